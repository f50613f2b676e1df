"""The model client's pure parts: roles a strict template takes, answers cut by the cap, servers' error texts,
token estimates, and what a model list says of the context window."""

from __future__ import annotations

import json
import logging

import httpx
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm.answers import end_cleanly, schema_instruction, with_instruction
from llm.discovery import context_of, server_name
from llm.errors import context_exceeded, context_size, describe, names, server_said
from llm.roles import EARLIER, strict_roles
from llm.server import EMBEDDINGS_RETRY_S, ServerFeatures
from llm.tokens import MARKS, estimate_tokens

SYSTEM = {"role": "system", "content": "be kind"}


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {"role": "assistant", "content": text}


# ----- roles -----

def test_messages_already_alternating_come_back_equal():
    messages = [SYSTEM, user("hi"), assistant("hello"), user("how are you?")]
    assert strict_roles(messages) == messages


def test_two_user_messages_in_a_row_become_one_turn():
    merged = strict_roles([SYSTEM, user("are you there?"), user("hello again")])
    assert merged == [SYSTEM, user("are you there?\n\nhello again")]


def test_the_companions_messages_in_a_row_become_one_turn():
    merged = strict_roles([SYSTEM, user("hi"), assistant("echo"), assistant("How is Murka?"), user("asleep")])
    assert merged == [SYSTEM, user("hi"), assistant("echo\n\nHow is Murka?"), user("asleep")]


def test_every_system_message_goes_into_the_first():
    merged = strict_roles([SYSTEM, user("hi"), {"role": "system", "content": "Write to them first."}])
    assert merged == [{"role": "system", "content": "be kind\n\nWrite to them first."}, user("hi")]


def test_a_leading_message_of_the_companion_moves_into_system_zero():
    merged = strict_roles([SYSTEM, assistant("How did the exam go?"), user("great!")])
    assert merged == [{"role": "system", "content": f"be kind\n\n{EARLIER}\nHow did the exam go?"}, user("great!")]
    no_system = strict_roles([assistant("How did the exam go?"), user("great!")])
    assert no_system == [{"role": "system", "content": f"{EARLIER}\nHow did the exam go?"}, user("great!")]


def test_a_system_message_alone_becomes_the_user_turn_a_template_cannot_drop():
    assert strict_roles([SYSTEM]) == [user("be kind")]
    assert strict_roles([assistant("hello")]) == [user("hello")]
    assert strict_roles([]) == []


def test_image_parts_stay_after_the_text_before_them():
    picture = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    merged = strict_roles([SYSTEM, user("earlier"), {"role": "user", "content": [{"type": "text", "text": "look"},
                                                                                  picture]}])
    assert merged == [SYSTEM, {"role": "user", "content": [
        {"type": "text", "text": "earlier"}, {"type": "text", "text": "look"}, picture]}]


def test_empty_contents_add_no_blank_lines():
    assert strict_roles([user(""), user("hi")]) == [user("hi")]


ROLE = st.sampled_from(["system", "user", "assistant"])


@given(st.lists(st.tuples(ROLE, st.text(max_size=5)), max_size=12))
def test_any_sequence_comes_out_as_a_strict_template_takes_it(pairs):
    messages = [{"role": role, "content": text} for role, text in pairs]
    result = strict_roles(messages)
    roles = [message["role"] for message in result]
    assert "system" not in roles[1:]
    turns = roles[1:] if roles[:1] == ["system"] else roles
    assert all(role == ("user" if index % 2 == 0 else "assistant") for index, role in enumerate(turns))
    said = "".join(text for _, text in pairs)
    assert sum(len(message["content"]) for message in result) >= len(said)  # nothing said is lost


# ----- answers cut by the cap -----

@pytest.mark.parametrize(("cut", "expected"), [
    ("It was a calm day. The sea was qui", "It was a calm day."),
    ("Как дела? Я вчера ходила в го", "Как дела?"),
    ("She said «hello!» and then we wen", "She said «hello!»"),
    ("First line\nsecond line without an e", "First line"),
    ("1. tea\n2. coffee\n3. hot choc", "1. tea\n2. coffee"),
    ("one long sentence that never end", "one long sentence that never…"),
    ("It costs 3.5 euros and", "It costs 3.5 euros…"),
    ("supercalifragilistic", "supercalifragilistic…"),
    ("Done.", "Done."),
])
def test_an_answer_cut_by_the_cap_ends_cleanly(cut, expected):
    assert end_cleanly(cut) == expected


def test_the_schema_goes_into_the_system_message_when_it_cannot_be_a_format():
    schema = {"type": "object", "properties": {"facts": {"type": "array"}}}
    messages = with_instruction([SYSTEM, user("hi")], schema_instruction(schema))
    assert messages[0]["content"].startswith("be kind\n\nReply with one JSON object")
    assert json.dumps(schema, separators=(",", ":")) in messages[0]["content"] and messages[1] == user("hi")
    assert with_instruction([user("hi")], "X") == [{"role": "system", "content": "X"}, user("hi")]


# ----- what servers say in their errors -----

def status_error(status: int, body: object, headers: dict | None = None) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://server/v1/chat/completions")
    response = httpx.Response(status, json=body, headers=headers, request=request)
    message = f"Error code: {status}"
    if isinstance(body, dict) and isinstance(body.get("error"), dict) and body["error"].get("message"):
        message += f" - {body['error']['message']}"
    kind = {400: openai.BadRequestError, 500: openai.InternalServerError}.get(status, openai.APIStatusError)
    # As the SDK does: the body an error carries is OpenAI's "error" object where there is one.
    return kind(message, response=response, body=body.get("error", body) if isinstance(body, dict) else body)


LLAMA_CPP_500 = {"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                                      "'response_format', 'type'), 'msg': \"Input should be 'text' or "
                                      "'json_object'\"}", "type": "internal_server_error"}}


def test_the_servers_words_are_read_from_every_shape():
    assert server_said(status_error(500, {"error": {"message": "boom"}})) == "boom"
    assert server_said(status_error(400, {"error": "model not found"})) == "model not found"
    assert server_said(status_error(422, {"detail": [{"loc": ["body", "x"], "msg": "field required"}]})) == (
        "field required")
    assert server_said(status_error(500, {"message": "plain"})) == "plain"
    assert describe(status_error(500, LLAMA_CPP_500)).startswith("HTTP 500: 1 validation error: {'type'")
    assert describe(TimeoutError()) == "timed out"


def test_the_servers_words_are_shortened_to_one_line_and_hide_keys():
    long = status_error(401, {"error": {"message": "Incorrect API key provided: sk-proj-abcdefgh1234.\n" + "x" * 900}})
    said = server_said(long)
    assert "sk-proj" not in said and "[hidden]" in said and "\n" not in said
    assert len(said) == 200 and said.endswith("…")


def test_the_input_a_validation_error_quotes_stays_out_of_the_log():
    echoed = status_error(422, {"detail": [{"type": "string_type", "loc": ["body", "messages", 1, "content"],
                                            "msg": "Input should be a valid string", "input": "my diary: I feel…"}]})
    assert "diary" not in describe(echoed) and "Input should be a valid string" in describe(echoed)
    llama = status_error(500, {"error": {"message": "{'type': 'literal_error', 'msg': 'bad', 'input': 'my "
                                                    "secret words', 'ctx': {}}"}})
    assert "secret words" not in describe(llama) and "'input': …" in describe(llama)


def test_a_refused_parameter_is_found_by_name():
    assert names(status_error(500, LLAMA_CPP_500), "response_format")
    assert not names(status_error(500, {"error": {"message": "CUDA out of memory"}}), "response_format")
    assert not names(TimeoutError(), "response_format")


@pytest.mark.parametrize(("status", "body", "size"), [
    (400, {"error": {"message": "This model's maximum context length is 8192 tokens. However, you requested "
                                "12014 tokens", "code": "context_length_exceeded"}}, 8192),  # llama.cpp, vLLM
    (400, {"error": {"message": "Please reduce the length", "code": "context_length_exceeded"}}, None),  # OpenAI
    (400, {"error": {"message": "the request exceeds the available context size (4096 tokens)"}}, 4096),
    (500, {"error": {"message": "input is too long for requested n_ctx=2048"}}, 2048),
])
def test_a_prompt_past_the_context_is_recognised(status, body, size):
    error = status_error(status, body)
    assert context_exceeded(error) and context_size(error) == size


def test_other_errors_are_not_taken_for_a_long_prompt():
    assert not context_exceeded(status_error(500, LLAMA_CPP_500))
    assert not context_exceeded(status_error(429, {"error": {"message": "too many tokens per minute"}}))
    assert context_size(status_error(500, {"error": {"message": "boom"}})) is None


# ----- what the process learns about the server -----

def test_a_refused_stream_options_cap_name_or_temperature_is_adapted_to_once(caplog):
    caplog.set_level(logging.INFO)
    features = ServerFeatures()
    refusal = {"loc": ["body", "stream_options"], "msg": "Extra inputs are not permitted"}
    extra = status_error(400, {"detail": [refusal]})
    assert not features.adapt(extra, streaming=False)  # not this request's parameter
    assert features.adapt(extra, streaming=True) and not features.stream_usage
    assert not features.adapt(extra, streaming=True)  # already adapted: the error is the error
    newer = status_error(400, {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with "
                                                    "this model. Use 'max_completion_tokens' instead."}})
    assert features.adapt(newer, streaming=False) and features.cap_name == "max_completion_tokens"
    fixed = status_error(400, {"error": {"message": "Unsupported value: 'temperature' does not support 0"}})
    assert features.adapt(fixed, streaming=False) and not features.temperature
    assert not features.adapt(status_error(500, LLAMA_CPP_500), streaming=True)
    assert len(caplog.records) == 3


def test_the_structured_modes_are_tried_in_order_until_one_works():
    features = ServerFeatures()
    assert features.structured_modes() == ("json_schema", "json_object", "text")
    features.leave_structured("json_schema", status_error(500, LLAMA_CPP_500))
    assert features.structured_modes() == ("json_object", "text")
    features.settle_structured()
    assert features.structured_modes() == ("json_object",)
    assert not features.may_probe_structured(status_error(500, LLAMA_CPP_500))


def test_auth_rate_and_missing_model_errors_never_probe_a_weaker_mode():
    features = ServerFeatures()
    for status in (401, 403, 404, 408, 409, 429):
        assert not features.may_probe_structured(status_error(status, {"error": {"message": "no"}}))
    assert features.may_probe_structured(status_error(400, {"error": {"message": "bad schema"}}))
    assert not features.may_probe_structured(TimeoutError())


def test_a_missing_embeddings_endpoint_is_asked_again_after_a_while(caplog):
    now = [1000.0]
    features = ServerFeatures(clock=lambda: now[0])
    assert features.embeddings_ready()
    features.embeddings_missing(status_error(500, {"error": {"message": "model must be created with embedding"}}))
    features.embeddings_missing(status_error(500, {"error": {"message": "again"}}))
    assert not features.embeddings_ready()
    assert len([r for r in caplog.records if "embeddings" in r.getMessage()]) == 1
    now[0] += EMBEDDINGS_RETRY_S
    assert features.embeddings_ready()


def test_the_context_window_only_ever_gets_smaller():
    features = ServerFeatures()
    features.learn_context(None, "nothing")
    features.learn_context(8192, "the model list")
    features.learn_context(32768, "an error")
    assert features.context_tokens == 8192
    features.learn_context(4096, "an error")
    assert features.context_tokens == 4096


def test_vision_off_means_images_are_known_not_to_be_seen():
    assert ServerFeatures(vision=False).images is False and ServerFeatures().images is None


# ----- tokens -----

def test_the_estimate_counts_bytes_or_pieces_whichever_is_more():
    assert estimate_tokens("") == 1
    prose = "Unquestionably, extraordinary circumstances necessitate comprehensive reconsideration."
    assert estimate_tokens(prose) == len(prose) // 4 + 1  # long words: bytes / 4
    assert estimate_tokens("The sea was calm and the sky was grey.") == 11  # short ones: nine words and a stop
    assert estimate_tokens("cat\n" * 100) == 202  # a word and a line break each, not 4 bytes a token
    assert estimate_tokens("Привет") == 4  # 12 bytes


@given(st.text(alphabet=st.sampled_from(list(MARKS + " \nab\u00e9ж🙂")) | st.characters(codec="utf-8"), max_size=200))
def test_the_estimate_counts_each_mark_once(text):
    pieces = bool(text) + text.count(" ") + 2 * text.count("\n") + sum(text.count(mark) for mark in MARKS)
    assert estimate_tokens(text) == max(len(text.encode("utf-8")) // 4, pieces) + 1


# ----- what a model list says -----

def test_the_context_window_is_read_where_each_server_states_it():
    assert context_of({"id": "m", "max_model_len": 32768}) == 32768  # vLLM
    assert context_of({"id": "m", "context_length": 128000}) == 128000  # OpenRouter
    assert context_of({"id": "m", "meta": {"n_ctx": 4096}}) == 4096  # llama.cpp's server
    assert context_of({"id": "m", "owned_by": "me"}) is None  # llama-cpp-python, Ollama, OpenAI
    assert context_of({"id": "m", "context_length": True}) is None


def test_the_server_is_named_by_host_only():
    assert server_name("http://user:secret@localhost:11434/v1") == "localhost:11434"
    assert server_name(None) == "api.openai.com"
