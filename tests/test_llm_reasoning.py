"""The model client against the OpenAI double playing reasoning servers: the thinking never comes back as the
answer, streamed text is told only from where the thinking ends, and the cap makes room for the thinking."""

from __future__ import annotations

import json

import pytest

from llm.client import AnswerCut, ChatModel, ModelUnavailable, Tally
from llm.server import ServerFeatures

MESSAGES = [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi there"}]
SCHEMA = {"type": "object", "properties": {"facts": {"type": "array"}}, "required": ["facts"]}
THOUGHT = "The user greets me. I should greet them back warmly, and maybe ask how they are."
FORMS = ["tags", "unopened", "reasoning_content", "reasoning", "hidden"]


@pytest.fixture
def chat(client):
    return ChatModel(client, "gpt-4o-mini", attempt_timeout=1.0, budget=2.0, backoff=0.02)


@pytest.fixture
def thinking(model):
    model.thinking = THOUGHT
    model.stream_chunk_chars = 3  # tags split across pieces: "<th" "ink" ">Th"…
    return model


@pytest.mark.parametrize("form", FORMS)
async def test_the_answer_comes_without_its_thinking(chat, thinking, form):
    thinking.thinking_form = form
    assert await chat.complete(MESSAGES) == "echo: hi there"
    assert chat.features.thinks


@pytest.mark.parametrize("form", ["tags", "reasoning_content", "reasoning", "hidden"])
async def test_a_streamed_answer_is_shown_only_from_where_the_thinking_ends(chat, thinking, form):
    thinking.thinking_form = form
    shown: list[str] = []
    assert await chat.complete(MESSAGES, on_text=shown.append) == "echo: hi there"
    assert shown and all("echo: hi there".startswith(text) for text in shown)
    assert all(a != b for a, b in zip(shown, shown[1:], strict=False))  # told only when it changed


async def test_the_second_stream_of_a_template_that_opens_the_thinking_shows_nothing_of_it(chat, thinking):
    thinking.thinking_form = "unopened"
    first: list[str] = []
    await chat.complete(MESSAGES, on_text=first.append)
    assert any("greets" in text for text in first)  # before the first closing tag, it could not be known
    assert chat.features.thinking_in_prompt
    second: list[str] = []
    assert await chat.complete(MESSAGES, on_text=second.append) == "echo: hi there"
    assert second and all("echo: hi there".startswith(text) for text in second)


async def test_a_model_that_does_not_think_gets_its_cap_as_asked(chat, model):
    await chat.complete(MESSAGES, max_tokens=100)
    await chat.complete(MESSAGES, max_tokens=100, on_text=lambda text: None)
    assert [body["max_tokens"] for body in model.requests] == [100, 100]
    assert not chat.features.thinks


@pytest.mark.parametrize("form", ["tags", "reasoning_content", "hidden"])
async def test_once_seen_thinking_the_cap_gets_as_much_again(chat, thinking, form):
    thinking.thinking_form = form
    await chat.complete(MESSAGES, max_tokens=100)
    await chat.complete(MESSAGES, max_tokens=100)
    assert [body["max_tokens"] for body in thinking.requests] == [100, 200]


async def test_a_set_room_for_thinking_is_on_every_request(client, model):
    chat = ChatModel(client, "gpt-4o-mini", attempt_timeout=1.0, budget=2.0,
                     features=ServerFeatures(reasoning_tokens=700))
    await chat.complete(MESSAGES, max_tokens=100)
    await chat.complete_json(MESSAGES, "facts", SCHEMA, max_tokens=300, timeout=1.0)
    assert [body["max_tokens"] for body in model.requests] == [800, 1000]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("streamed", [False, True])
async def test_an_answer_cut_off_while_still_thinking_is_no_answer(client, thinking, form, streamed):
    thinking.thinking_form = form
    thinking.thinking = "hmm " * 400  # 400 tokens of thinking: past the cap even with the room it gets
    chat = ChatModel(client, "gpt-4o-mini", attempt_timeout=1.0, budget=2.0, backoff=0.02)
    chat.features.thinks = True  # the room is there already: no second try
    chat.features.thinking_in_prompt = form == "unopened"
    shown: list[str] = []
    with pytest.raises(ModelUnavailable, match="empty answer"):
        await chat.complete(MESSAGES, on_text=shown.append if streamed else None, max_tokens=100)
    assert shown == []
    assert len(thinking.requests) == 1


async def test_thinking_that_ate_the_cap_before_it_was_known_is_asked_again_with_room(chat, thinking):
    thinking.thinking_form = "reasoning_content"
    thinking.thinking = "hmm " * 150  # 151 tokens: past a cap of 100, within 200
    assert await chat.complete(MESSAGES, max_tokens=100) == "echo: hi there"
    assert [body["max_tokens"] for body in thinking.requests] == [100, 200]


async def test_an_extraction_answer_after_thinking_parses(chat, thinking):
    thinking.reply = lambda body: json.dumps({"facts": [{"key": "city"}]})
    for form in ("tags", "unopened", "reasoning", "reasoning_content"):
        thinking.thinking_form = form
        raw = await chat.complete_json(MESSAGES, "facts", SCHEMA, max_tokens=300, timeout=1.0)
        assert json.loads(raw) == {"facts": [{"key": "city"}]}


async def test_an_extraction_cut_off_while_thinking_is_cut_with_no_text(chat, thinking):
    thinking.thinking = "hmm " * 400
    chat.features.thinks = True
    with pytest.raises(AnswerCut) as cut:
        await chat.complete_json(MESSAGES, "facts", SCHEMA, max_tokens=100, timeout=1.0)
    assert cut.value.text == ""


async def test_the_thinking_counts_in_the_tokens_when_the_server_reports_none(chat, thinking):
    thinking.report_usage = False
    thinking.thinking_form = "reasoning"
    with_thinking, without = Tally(), Tally()
    await chat.complete(MESSAGES, tally=with_thinking)
    thinking.thinking = None
    await chat.complete(MESSAGES, tally=without)
    assert with_thinking.estimated and with_thinking.tokens > without.tokens
