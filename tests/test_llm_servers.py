"""The model client against the OpenAI double playing real servers' quirks: it finds out what the server can do
from its answers, once, and adapts."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path

import openai
import pytest

from llm.client import AnswerCut, ChatModel, ModelUnavailable, Tally, TooLong
from llm.discovery import describe_server
from tests.doubles.openai_api import image_parts

MESSAGES = [{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi there"}]
SCHEMA = {"type": "object", "properties": {"facts": {"type": "array"}}, "required": ["facts"]}
JPEG = (Path(__file__).parent / "fixtures" / "photo.jpg").read_bytes()
DATA_URL = "data:image/jpeg;base64," + base64.b64encode(JPEG).decode()
JSON_PROMPT = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "facts please"}]


@pytest.fixture
async def chat(model):
    client = openai.AsyncOpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0)
    yield ChatModel(client, "gpt-4o-mini", attempt_timeout=1.0, budget=2.0, backoff=0.02)
    await client.close()


def formats(model) -> list[str]:
    return [(body.get("response_format") or {}).get("type", "text") for body in model.requests]


def messages_of(caplog, words: str) -> list[str]:
    return [record.getMessage() for record in caplog.records if words in record.getMessage()]


# ----- structured output -----

@pytest.mark.parametrize("status", [500, 400])
async def test_a_refused_json_schema_moves_the_process_to_json_object_with_the_schema_in_the_prompt(
    model, chat, caplog, status
):
    caplog.set_level(logging.INFO)
    model.reject_json_schema, model.json_schema_status = True, status
    model.reply = lambda body: '{"facts": []}'
    for _ in range(2):
        answer = await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=100, timeout=1.0)
        assert json.loads(answer) == {"facts": []}
    assert formats(model) == ["json_schema", "json_object", "json_object"]  # no retries of the refused one
    assert json.dumps(SCHEMA, separators=(",", ":")) in model.requests[1]["messages"][0]["content"]
    assert all(body["max_tokens"] == 100 and body["temperature"] == 0 for body in model.requests)
    [line] = messages_of(caplog, "structured output: json_object with")
    assert f"HTTP {status}" in line and "json_schema" in line


async def test_a_prompt_that_shows_the_answers_shape_gets_no_copy_of_the_schema(model, chat):
    model.reject_json_schema = True
    model.reply = lambda body: '{"facts": []}'
    await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=100, timeout=1.0, shape_shown=True)
    assert formats(model) == ["json_schema", "json_object"]
    assert model.requests[1]["messages"] == JSON_PROMPT  # as written: the brief extraction prompt ends with it


async def test_a_500_that_goes_away_with_another_format_moves_the_process_too(model, chat):
    model.fail_next(500, message="failed to parse grammar")  # no word of response_format
    model.reply = lambda body: '{"facts": []}'
    await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=100, timeout=1.0)
    assert formats(model) == ["json_schema", "json_object"] and chat.features.structured == "json_object"


async def test_a_server_without_json_formats_gets_json_asked_for_in_plain_text(model, chat, caplog):
    caplog.set_level(logging.INFO)
    model.fail_next(400, message="Invalid parameter: 'response_format' of type 'json_schema' is not supported")
    model.fail_next(400, message="'response_format.type' must be 'json_schema' or 'text'")  # LM Studio's kind
    model.reply = lambda body: '```json\n{"facts": [1]}\n```'
    answer = await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=100, timeout=1.0)
    assert "```json" in answer and formats(model) == ["json_schema", "json_object", "text"]
    assert "response_format" not in model.requests[2] and "JSON Schema" in model.requests[2]["messages"][0]["content"]
    assert chat.features.structured == "text"
    assert len(messages_of(caplog, "structured output:")) == 3  # left json_schema, left json_object, text works


async def test_once_a_mode_has_worked_an_outage_is_only_an_outage(model, chat):
    model.reply = lambda body: '{"facts": []}'
    await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=100, timeout=1.0)
    model.fail_always(500)
    with pytest.raises(ModelUnavailable):
        await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=100, timeout=0.5)
    assert set(formats(model)) == {"json_schema"} and chat.features.structured == "json_schema"


async def test_an_auth_error_never_changes_the_mode(model, chat):
    model.fail_next(401)
    with pytest.raises(ModelUnavailable):
        await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=100, timeout=1.0)
    assert formats(model) == ["json_schema"] and chat.features.structured == "json_schema"


async def test_a_prompt_past_the_context_is_too_long_not_an_outage_and_teaches_the_window(model, chat):
    model.context_window = 500
    failures = []

    async def count() -> None:
        failures.append(1)

    chat.on_failure = count
    prompt = [{"role": "system", "content": "x " * 2000}, {"role": "user", "content": "facts please"}]
    with pytest.raises(TooLong) as raised:
        await chat.complete_json(prompt, "facts", SCHEMA, max_tokens=10, timeout=1.0)
    assert raised.value.context == 500 and chat.features.context_tokens == 500
    assert len(model.requests) == 1 and failures == []  # not retried, not a model error, no weaker mode
    assert chat.features.structured == "json_schema"


async def test_a_structured_answer_cut_by_its_cap_says_so_with_what_came(model, chat):
    model.reply = lambda body: '{"facts": [' + '{"key": "x"}, ' * 100 + "]}"
    with pytest.raises(AnswerCut) as raised:
        await chat.complete_json(JSON_PROMPT, "facts", SCHEMA, max_tokens=20, timeout=1.0)
    assert raised.value.text.startswith('{"facts": [{"key": "x"}') and len(raised.value.text) == 80


# ----- replies -----

async def test_every_reply_carries_its_cap_and_a_cut_one_ends_at_a_whole_sentence(model, chat):
    model.reply = lambda body: "The sea was calm. " * 50
    answer = await chat.complete(MESSAGES, max_tokens=20)
    assert model.requests[0]["max_tokens"] == 20
    assert answer.endswith("The sea was calm.") and len(answer) <= 80


async def test_a_streamed_reply_cut_by_its_cap_ends_cleanly_too(model, chat):
    model.reply = lambda body: "Wir gehen heute an den Strand und dann essen wir Eis. " * 20
    shown = []
    answer = await chat.complete(MESSAGES, on_text=shown.append, max_tokens=30)
    assert answer.endswith("Eis.") and shown[-1].startswith(answer) and len(shown[-1]) > len(answer)


async def test_a_server_that_refuses_stream_options_streams_without_them_from_then_on(model, chat, caplog):
    caplog.set_level(logging.INFO)
    model.stream_options_supported = False
    model.report_usage = False
    tally = Tally()
    for _ in range(2):
        assert await chat.complete(MESSAGES, on_text=lambda text: None, tally=tally) == "echo: hi there"
    assert ["stream_options" in body for body in model.requests] == [True, False, False]
    assert tally.estimated and len(messages_of(caplog, "streamed usage: not asked for")) == 1


async def test_a_model_that_wants_max_completion_tokens_gets_it(model, chat):
    model.fail_next(400, message="Unsupported parameter: 'max_tokens' is not supported with this model. "
                                 "Use 'max_completion_tokens' instead.")
    assert await chat.complete(MESSAGES, max_tokens=50) == "echo: hi there"
    assert model.requests[1]["max_completion_tokens"] == 50 and "max_tokens" not in model.requests[1]


async def test_a_strict_template_gets_one_turn_per_role(model, chat):
    model.strict_roles = True
    twice = [*MESSAGES, {"role": "user", "content": "are you there?"}]
    assert await chat.complete(twice) == "echo: hi there\n\nare you there?"
    assert await chat.complete(twice, on_text=lambda text: None) == "echo: hi there\n\nare you there?"
    assert [len(body["messages"]) for body in model.requests] == [2, 2]


async def test_an_empty_stream_is_asked_again_unstreamed(model, chat):
    model.empty_stream_next()
    assert await chat.complete(MESSAGES, on_text=lambda text: None) == "echo: hi there"
    assert [body.get("stream", False) for body in model.requests] == [True, False]


async def test_the_warning_of_an_outage_gives_the_servers_own_words(model, chat, caplog):
    model.fail_next(503, times=100, message="loading model, please wait (sk-live-abcdef123456 leaked)")
    with pytest.raises(ModelUnavailable):
        await chat.complete(MESSAGES)
    [line] = messages_of(caplog, "model unavailable after")
    assert "HTTP 503: loading model, please wait" in line and "sk-live" not in line


# ----- images -----

async def test_a_model_that_sees_images_is_found_out_once(model, chat):
    assert await chat.takes_images(DATA_URL) is True
    assert await chat.takes_images(DATA_URL) is True
    without, seen = model.requests
    assert image_parts(without) == [] and len(image_parts(seen)) == 1
    assert without["max_tokens"] == seen["max_tokens"] == 1


async def test_a_server_that_drops_images_without_a_word_is_found_out(model, chat, caplog):
    model.drop_images = True
    assert await chat.takes_images(DATA_URL) is False
    assert await chat.takes_images(DATA_URL) is False and len(model.requests) == 2
    [line] = messages_of(caplog, "does not see them")
    assert "added 0 prompt tokens" in line


async def test_a_server_that_refuses_images_is_found_out(model, chat):
    model.reject_images = True
    assert await chat.takes_images(DATA_URL) is False and chat.features.images is False


async def test_without_usage_whether_images_are_seen_is_unknown_and_they_are_sent(model, chat):
    model.report_usage, model.drop_images = False, True
    assert await chat.takes_images(DATA_URL) is True and chat.features.images is True


async def test_an_outage_during_the_probe_leaves_it_for_next_time(model, chat):
    model.fail_next(503)
    assert await chat.takes_images(DATA_URL) is True and chat.features.images is None
    assert await chat.takes_images(DATA_URL) is True and chat.features.images is True


# ----- the model list at start-up -----

async def test_the_model_list_tells_the_context_window_where_the_server_states_it(model, chat, caplog):
    caplog.set_level(logging.INFO)
    model.model_fields = {"max_model_len": 4096}
    await describe_server(chat.client, model.base_url, "gpt-4o-mini", chat.features)
    assert chat.features.context_tokens == 4096
    [line] = messages_of(caplog, "model server 127.0.0.1:")
    assert line.endswith("model gpt-4o-mini listed, context 4096 tokens")


async def test_a_server_without_a_model_list_is_simply_not_described(model, chat, caplog):
    caplog.set_level(logging.INFO)
    model.fail_next(404, endpoint="models")
    await describe_server(chat.client, model.base_url, "llama3", chat.features)
    assert chat.features.context_tokens is None and messages_of(caplog, "could not list its models (HTTP 404")
