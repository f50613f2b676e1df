"""The bot against a real OpenAI-compatible server: llama-cpp-python 0.3.36 with Gemma 3 270M (.ci/real_server).

The real Application talks to the Bot API double and to the real server, whose chat template is as strict as
Gemma's own. At 270M parameters the model's words are nonsense: these tests check the protocol (what is sent,
what comes back, what the bot makes of it), never the quality. Skipped when the server is not installed,
except under CI=true, where it must run.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from config import SHARED_SLOT_EXTRACT_TOKENS
from handlers.texts import text
from llm.answers import clean_answer, end_cleanly
from llm.client import ChatModel
from llm.gate import Gate
from llm.responses import read_chunks
from llm.server import ServerFeatures
from llm.servers import ModelServer
from services.reminders import FARTHEST
from tests.harness import make_config, running_bot
from tests.real_server import ALIAS, RealServer, free_port, missing
from tests.timeouts import scaled

pytestmark = [pytest.mark.real_server, pytest.mark.timeout(900)]
# One real server at a time on this machine, whichever of pytest-xdist's workers (or checkouts) runs these tests:
# two at once halve each other's speed, and these tests time a conversation.
ONE_AT_A_TIME = Path(tempfile.gettempdir()) / "companion-bot-real-server.lock"
ANN = 7001
JPEG = (Path(__file__).parent / "fixtures" / "photo.jpg").read_bytes()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    reason = missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    with ONE_AT_A_TIME.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, after the server stopped
        real = RealServer(free_port(), tmp_path_factory.mktemp("real-server") / "server.log")
        real.start()
        yield real
        real.stop()


async def wait_for_log(caplog, words: str, timeout: float) -> logging.LogRecord:
    """Return the first log record whose message holds `words`, waiting up to `timeout` seconds."""
    deadline = time.monotonic() + scaled(timeout)
    while time.monotonic() < deadline:
        found = [record for record in caplog.records if words in record.getMessage()]
        if found:
            return found[0]
        await asyncio.sleep(0.2)
    raise AssertionError(f"no log line with {words!r} within {timeout} s")


def calls_between(telegram, start: int, end: int | None = None) -> list[str]:
    return [method for method, _ in telegram.calls[start:end]]


async def test_a_conversation_on_a_real_server_with_an_outage_a_photo_and_a_memory_pass(
    telegram, server, tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    config = make_config(
        telegram, server, tmp_path / "bot.db", openai_model=ALIAS, model_attempt_timeout_s=90,
        model_retry_budget_s=120, model_backoff_s=0.2, reply_max_tokens=48, stream_interval_s=0.3,
        extract_max_tokens=128, extract_timeout_s=240, memory_extract_delay_s=3600, memory_extract_every=4,
        extract_max_prompt_tokens=SHARED_SLOT_EXTRACT_TOKENS,
        embeddings="hashing", transcription_model="",
    )
    async with running_bot(config) as app:
        # 1. A streamed reply: drafts while it is written, then one message, the answer capped at 48 tokens.
        before = len(telegram.calls)
        telegram.push_text(ANN, "Hi! My name is Anna and I live in Berlin. Tell me a long story about the sea.")
        [reply] = await telegram.wait_for_sent(ANN, 1, timeout=240)
        methods = calls_between(telegram, before)
        assert "sendMessageDraft" in methods and methods.count("sendMessage") == 1
        assert methods.index("sendMessageDraft") < methods.index("sendMessage")
        assert reply["visible_text"].strip() and reply["visible_text"] != text("model_down", None)
        assert len(reply["visible_text"].split()) <= 48  # no more words than the cap has tokens

        # 2. A photo: the server drops image parts without a word; two one-token probes find it out.
        telegram.push_message(ANN, {"photo": telegram.photo(content=JPEG), "caption": "my cat Murka"})
        [*_, photo_reply] = await telegram.wait_for_sent(ANN, 2, timeout=240)
        assert text("photo_unseen", None) in photo_reply["visible_text"]
        await wait_for_log(caplog, "images: the chat model does not see them", 1)

        # 3. The server goes away: the user gets the apology, and their message stays in the session.
        server.stop()
        model, budget = app.bot_data.model, app.bot_data.model.budget
        model.budget = 2.0  # a short retry budget, so the test does not wait out two minutes of refusals
        telegram.push_text(ANN, "are you there?")
        [*_, apology] = await telegram.wait_for_sent(ANN, 3, timeout=60)
        assert apology["visible_text"] == text("model_down", None)
        model.budget = budget

        # 4. It is back: the next message is answered, though two of the user's messages now stand in a row
        # (a strict template refuses that unless they are sent as one turn).
        server.start()
        telegram.push_text(ANN, "I love climbing and my sister Olya is a doctor.")
        [*_, answer] = await telegram.wait_for_sent(ANN, 4, timeout=240)
        assert answer["visible_text"] != text("model_down", None)

        # 5. The fourth unread message starts an extraction pass: json_schema is refused (500), json_object
        # works, and the answer is parsed. The prompt is held to the one-slot budget a local server gets by
        # default; a tiny model's answer often runs past the 128-token cap, so the pass halves the batch and
        # keeps a single message's cut answer's whole facts (memory/extract/keeper.py). However few facts it
        # finds, the pass ends without error. (At 256 tokens and the full prompt, the same test took 168 s
        # alone and 100–250 s of the server's CPU in a full run; like this, 74 s alone.)
        await wait_for_log(caplog, "structured output: json_object", 300)
        summary = await wait_for_log(caplog, "memory: learned", 600)
        assert "from 4 messages" in summary.getMessage()
    assert not [r for r in caplog.records if "fact extraction failed" in r.getMessage()]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_message_sent_during_a_memory_pass_is_answered_without_an_apology(telegram, server, tmp_path, caplog):
    """The contention of issue 40, kept short: one slot (MODEL_CONCURRENCY's default for a local server), the
    README's default timeouts, a pass started once the user is idle, and a message arriving meanwhile."""
    caplog.set_level(logging.INFO)
    config = make_config(
        telegram, server, tmp_path / "bot.db", openai_model=ALIAS, model_concurrency=1, model_attempt_timeout_s=20,
        model_retry_budget_s=60, model_backoff_s=1.0, reply_max_tokens=32, memory_extract_delay_s=0.5,
        embeddings="hashing", transcription_model="", stream_interval_s=0.3,
        extract_max_prompt_tokens=SHARED_SLOT_EXTRACT_TOKENS,  # load_config's default with one shared slot
    )
    async with running_bot(config) as app:
        telegram.push_text(ANN, "Hi! My name is Anna, I live in Berlin, I work as a nurse and I have a cat, Murka.")
        await telegram.wait_for_sent(ANN, 1, timeout=240)
        deadline = time.monotonic() + scaled(60)
        while not (app.bot_data.keeper.passes and app.bot_data.servers[0].gate.busy):
            assert time.monotonic() < deadline, "no memory pass began"
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # the pass's request is on the server now
        began, drafts_before = time.monotonic(), len(telegram.drafts)
        telegram.push_text(ANN, "What do you think about cats?")
        [*_, reply] = await telegram.wait_for_sent(ANN, 2, timeout=240)
        drafts = telegram.drafts[drafts_before:]
        first_words = (drafts[0]["at"] if drafts else reply["at"]) - began
    assert reply["visible_text"].strip() and reply["visible_text"] != text("model_down", None)
    # Within one short prompt evaluation of the pass (llama-cpp-python cannot stop inside one, and extraction
    # sharing the slot keeps its prompts to SHARED_SLOT_EXTRACT_TOKENS: about 10 s on this 2-core machine,
    # bench/contention.py), with room for a slower CI machine; the landed code apologised after 60 s.
    # 45, not 30: under pytest-xdist the server shares the 2 cores with three other workers (33.9 s seen).
    assert first_words < 45, first_words
    assert any("gave way to a conversation" in record.getMessage() for record in caplog.records)


async def test_the_lean_wire_path_reads_a_real_stream_as_the_sdk_does(server):
    """ChatModel's request through the model server's client (llm/servers.py) and its reading of the stream
    (llm/responses.py, llm/wire.py) against the SDK's own `chat.completions.create` stream: greedy decoding with a
    seed, so the same request gives the same words, chunk by chunk."""
    client = ModelServer.open(server.base_url, "sk-real", 240, Gate(None), ServerFeatures()).client
    chat = ChatModel(client, ALIAS, attempt_timeout=240)
    messages = [{"role": "system", "content": "You tell short stories."},
                {"role": "user", "content": "Tell me a story about the sea."}]
    options = {"temperature": 0, "seed": 7}

    def read(chunk: dict, pieces: list, usage: list) -> None:
        if chunk.get("usage"):
            counted = chunk["usage"]
            usage.append((counted["prompt_tokens"], counted["completion_tokens"], counted["total_tokens"]))
        pieces += [(choice["delta"].get("content"), choice.get("finish_reason"))
                   for choice in (chunk.get("choices") or ())[:1]]

    lean: list = []
    lean_usage: list = []
    # _opened adapts to what the server refuses
    async with chat._opened(messages, 32, options, 240, stream=True) as response:
        async for batch in read_chunks(response):
            for chunk in batch:
                read(chunk, lean, lean_usage)
    sdk: list = []
    sdk_usage: list = []
    async for one in await client.chat.completions.create(**chat._arguments(messages, 32, options, True)):
        read(one.model_dump(exclude_unset=True), sdk, sdk_usage)
    answer = await chat.complete(messages, on_text=lambda words: None, max_tokens=32, **options)
    await client.close()

    words, finish = "".join(content or "" for content, _ in sdk), next(f for _, f in reversed(sdk) if f)
    assert lean == sdk and lean_usage == sdk_usage and words.strip()
    assert answer == (end_cleanly(clean_answer(words)) if finish == "length" else clean_answer(words))


async def test_a_reminder_the_rules_cannot_place_is_read_by_the_one_slot_server_or_asked_never_guessed(
    telegram, server, tmp_path
):
    """Issue 59: a request whose time the rules cannot place goes to the real one-slot server in one structured
    request; what comes back is checked. A 270M model's answer is nonsense more often than not, so either the
    reminder is set at a time ahead of now, with words of the user's own as its task, or the user is asked with
    buttons and nothing is set; the reply comes either way, without an apology."""
    config = make_config(
        telegram, server, tmp_path / "bot.db", openai_model=ALIAS, model_concurrency=1, model_attempt_timeout_s=120,
        model_retry_budget_s=240, reply_max_tokens=24, memory_extract_delay_s=3600, embeddings="hashing",
        transcription_model="", stream_replies=False, proactive=False,
    )
    async with running_bot(config) as app:
        began = datetime.now(UTC)
        telegram.push_text(ANN, "remind me to call mom on her birthday, the day after the conference")
        sent = await telegram.wait_for_sent(ANN, 2, timeout=480)
        set_now = await app.bot_data.store.reminders.reminders(ANN)
    lines = [message for message in sent if "⏰" in message["visible_text"]]
    assert len(lines) == 1 and all(m["visible_text"] != text("model_down", None) for m in sent)
    [line] = lines
    picks = (line.get("reply_markup") or {}).get("inline_keyboard", [])
    if set_now:  # the model placed it: ahead of now, within the bound, its task from the user's words
        [reminder] = set_now
        assert began < reminder.due_at <= began + FARTHEST
        assert set(reminder.task.lower().split()) & {"call", "mom", "birthday", "conference"}
    else:  # asked: times to choose from, nothing set until one is pressed
        assert picks, line["visible_text"]
