"""/metrics end to end: the real Application in polling and webhook mode, scraped as Prometheus scrapes it."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from bot import build_application, serve_webhook
from tests.harness import ProcessedUpdates, make_config, running_bot, wait_healthy
from tests.pg import free_port
from tests.test_metrics import samples, value
from tests.timeouts import scaled
from tests.webhook_bots import text_update

ANN, BOB = 1001, 1002
TOKEN = "metrics-token_0123456789"
PAGE = "https://bot.example.com/memory/"
MODEL = "gpt-4o-mini"  # the settings' default chat model


async def get(http: aiohttp.ClientSession, port: int, path: str = "/metrics",
              token: str | None = None, **headers: str) -> tuple[int, str, dict]:
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    async with http.get(f"http://127.0.0.1:{port}{path}", headers=headers) as response:
        return response.status, await response.text(), dict(response.headers)


async def talk(app, telegram, user_id: int, texts: list[str]) -> None:
    """Send `texts` one at a time, each once the Application has finished with the one before."""
    processed = ProcessedUpdates(app)
    for text in texts:
        await processed.wait(telegram.push_text(user_id, text), timeout=10)


@pytest.fixture
async def http():
    async with aiohttp.ClientSession() as session:
        yield session


async def test_metrics_are_off_by_default_and_port_serves_none(telegram, model, tmp_path, http):
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", webapp_url=PAGE, port=port)
    async with running_bot(config) as app:
        status, body, _ = await get(http, port, token=TOKEN)
        assert status == 404 and "companion_" not in body
        assert (await get(http, port, "/healthz"))[0] == 200
        assert app.bot_data.web.metrics_server is None


async def test_metrics_behind_a_token_count_real_turns_and_the_tokens_the_model_reported(telegram, model, tmp_path,
                                                                                        http, caplog):
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", port=port, metrics=True, metrics_token=TOKEN)
    async with running_bot(config) as app:  # polling without WEBAPP_URL: PORT opens for /metrics alone
        await talk(app, telegram, ANN, ["Hi, I'm Ann.", "How are you today?"])
        await talk(app, telegram, BOB, ["Tell me something nice."])
        status, body, headers = await get(http, port, token=TOKEN)
        assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4")
        found = samples(body)
        assert value(found, "companion_turns_total", outcome="answered") == 3
        assert value(found, "companion_turns_total", outcome="model_failure") == 0
        assert len(model.usages) == 3  # one completion a turn, each reporting its usage
        assert value(found, "companion_model_tokens_total", model=MODEL, kind="prompt") == \
            sum(usage["prompt_tokens"] for usage in model.usages)
        assert value(found, "companion_model_tokens_total", model=MODEL, kind="completion") == \
            sum(usage["completion_tokens"] for usage in model.usages)
        assert value(found, "companion_first_words_seconds_count") == 3
        assert 0 < value(found, "companion_first_words_seconds_sum") < scaled(30)
        assert value(found, "companion_inbox_waiting") == 0  # every update handled
        assert value(found, "process_resident_memory_bytes") > 0
        assert not any(labels and ({str(ANN), str(BOB)} & {v for _, v in labels}) for _, labels in found)
    assert TOKEN not in caplog.text


@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer wrong-token_0123456789"}, {"Authorization": f"Basic {TOKEN}"},
    {"Authorization": f"Bearer {TOKEN}x"},
])
async def test_without_the_right_token_metrics_get_401_and_nothing_of_them(telegram, model, tmp_path, http, caplog,
                                                                          headers):
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", port=port, metrics=True, metrics_token=TOKEN)
    async with running_bot(config):
        status, body, answer = await get(http, port, **headers)
        assert status == 401 and "companion_" not in body
        assert answer["WWW-Authenticate"].startswith("Bearer")
        assert (await get(http, port, token=TOKEN))[0] == 200
    assert TOKEN not in caplog.text


async def test_metrics_port_serves_metrics_alone_without_a_token_and_port_stays_shut(telegram, model, tmp_path,
                                                                                   http):
    port, private = free_port(), free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", port=port, metrics=True, metrics_port=private)
    model.fail_always(500)
    async with running_bot(config) as app:
        await talk(app, telegram, ANN, ["Hello?"])  # the model is down: the apology, and a failure counted
        status, body, _ = await get(http, private)
        assert status == 200
        found = samples(body)
        assert value(found, "companion_turns_total", outcome="model_failure") == 1
        assert value(found, "companion_model_errors_total", model=MODEL, kind="server_error") == 1
        assert value(found, "companion_model_retries_total", model=MODEL, kind="server_error") >= 1
        assert (await get(http, private, "/healthz"))[0] == 404  # only /metrics on the private port
        assert app.bot_data.web.server is None  # nothing asked for PORT in polling mode
        with pytest.raises(aiohttp.ClientConnectionError):
            await get(http, port, "/healthz")


async def test_in_webhook_mode_metrics_share_port_with_the_webhook(telegram, model, tmp_path, http):
    port = free_port()
    secret = "s3cret-token-for-tests_0123"
    config = make_config(telegram, model, tmp_path / "bot.db", webhook_url="https://bot.example.com/tg",
                         webhook_secret=secret, port=port, metrics=True, metrics_token=TOKEN)
    telegram.push_text(ANN, "so the double knows this chat")  # never polled in webhook mode
    app = await build_application(config)
    processed = ProcessedUpdates(app)
    task = asyncio.create_task(serve_webhook(app, config))
    try:
        await telegram.wait_for_call("setWebhook")
        assert await wait_healthy(http, port)
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret, "Content-Type": "application/json"}
        update = text_update(500, ANN, "hi by webhook", first_name="Ann")
        async with http.post(f"http://127.0.0.1:{port}/tg", data=json.dumps(update), headers=headers) as response:
            assert response.status == 200
        await processed.wait(500)
        found = samples((await get(http, port, token=TOKEN))[1])
        assert value(found, "companion_turns_total", outcome="answered") == 1
        assert value(found, "companion_first_words_seconds_count") == 1  # from the POST's arrival
        assert (await get(http, port))[0] == 401
    finally:
        app.bot_data.stop_requested.set()
        await asyncio.wait_for(task, scaled(15))



async def test_memory_writes_marks_and_memories_per_reply_are_counted_where_they_happen(telegram, model, tmp_path,
                                                                                       http):
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", port=port, metrics=True, metrics_token=TOKEN)
    async with running_bot(config) as app:
        await talk(app, telegram, ANN, ["My name is Ann. I live in Berlin and I have a dog named Rex.", "/why"])
        listed = telegram.sent_to(ANN)[-1]
        cross = listed["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        telegram.push_callback(ANN, cross, listed["message_id"])
        await telegram.wait_for_sent(ANN, 3)
        await app.bot_data.memory_page.add(ANN, {"category": "interests", "value": "plays chess"})
        await talk(app, telegram, ANN, ["and now?"])
        found = samples((await get(http, port, token=TOKEN))[1])
    assert value(found, "companion_memory_writes_total", source="rule") == 3
    assert value(found, "companion_memory_writes_total", source="page") == 1
    assert value(found, "companion_memory_writes_total", source="llm") == 0
    assert value(found, "companion_marked_wrong_total") == 1
    assert value(found, "companion_memories_used_count") == 2
    assert value(found, "companion_memories_used_sum") == 3 + 3  # name, city and dog; then one of them ✗, chess
