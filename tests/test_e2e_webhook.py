"""Webhook mode end to end: registration with the secret, updates POSTed to the bot's port, /healthz."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from bot import build_application, serve_webhook
from tests.harness import make_config, wait_healthy
from tests.pg import free_port
from tests.timeouts import scaled
from tests.webhook_bots import text_update as webhook_update

ANN = 1001
SECRET = "s3cret-token-for-tests_0123"


def text_update(update_id: int, text: str) -> dict:
    return webhook_update(update_id, ANN, text, first_name="Ann")


@pytest.fixture
async def webhook_bot(telegram, model, tmp_path):
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", webhook_url="https://bot.example.com/tg/hook",
                         webhook_secret=SECRET, port=port)
    telegram.push_text(ANN, "so the double knows this chat")  # never polled in webhook mode
    app = await build_application(config)
    task = asyncio.create_task(serve_webhook(app, config))
    await telegram.wait_for_call("setWebhook")
    async with aiohttp.ClientSession() as http:
        for _ in range(100):  # wait until the port accepts connections
            try:
                async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                    if response.status == 200:
                        break
            except aiohttp.ClientConnectionError:
                await asyncio.sleep(0.05)
        yield http, f"http://127.0.0.1:{port}"
    app.bot_data.stop_requested.set()
    await asyncio.wait_for(task, scaled(15))


async def test_the_webhook_is_registered_with_its_secret(webhook_bot, telegram):
    [registration] = [p for m, p in telegram.calls if m == "setWebhook"]
    assert registration["url"] == "https://bot.example.com/tg/hook"
    assert registration["secret_token"] == SECRET


async def test_an_update_with_the_right_secret_is_answered(webhook_bot, telegram, model):
    http, base = webhook_bot
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
    async with http.post(f"{base}/tg/hook", data=json.dumps(text_update(500, "hi by webhook")),
                         headers=headers) as response:
        assert response.status == 200
    [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: hi by webhook"


async def test_a_wrong_or_missing_secret_gets_403_and_is_not_processed(webhook_bot, telegram, model):
    http, base = webhook_bot
    for headers in ({"X-Telegram-Bot-Api-Secret-Token": "wrong"}, {}):
        async with http.post(f"{base}/tg/hook", data=json.dumps(text_update(501, "intruder")),
                             headers=headers) as response:
            assert response.status == 403
    async with http.post(f"{base}/tg/hook", data="not json",
                         headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}) as response:
        assert response.status == 400
    await asyncio.sleep(0.3)
    assert telegram.sent_to(ANN) == [] and model.requests == []


async def test_an_update_the_library_cannot_read_gets_200_and_the_next_is_answered(webhook_bot, telegram):
    http, base = webhook_bot
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
    unreadable = {"update_id": 510, "poll": {"id": "1"}}  # lacks fields python-telegram-bot requires
    for body in (unreadable, text_update(511, "still there?")):
        async with http.post(f"{base}/tg/hook", data=json.dumps(body), headers=headers) as response:
            assert response.status == 200  # a refusal would make Telegram send it again, and again
    [reply] = await telegram.wait_for_sent(ANN, 1)
    assert reply["visible_text"] == "echo: still there?"


async def test_healthz(webhook_bot):
    http, base = webhook_bot
    async with http.get(f"{base}/healthz") as response:
        assert response.status == 200 and await response.text() == "ok"


async def test_the_memory_page_shares_the_webhook_port_and_each_keeps_its_path(telegram, model, tmp_path):
    port = free_port()
    config = make_config(telegram, model, tmp_path / "bot.db", webhook_url="https://bot.example.com/tg/hook",
                         webhook_secret=SECRET, port=port, webapp_url="https://bot.example.com/memory/")
    telegram.push_text(ANN, "so the double knows this chat")
    app = await build_application(config)
    task = asyncio.create_task(serve_webhook(app, config))
    await telegram.wait_for_call("setWebhook")
    base = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as http:
        assert await wait_healthy(http, port)
        async with http.get(f"{base}/memory/") as response:
            assert response.status == 200 and "Content-Security-Policy" in response.headers
        async with http.get(f"{base}/memory/api/memory") as response:
            assert response.status == 401  # unsigned
        async with http.get(f"{base}/tg/hook/") as response:
            assert response.status == 404
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
        async with http.post(f"{base}/tg/hook", data=json.dumps(text_update(520, "both")), headers=headers) as answer:
            assert answer.status == 200
        [reply] = await telegram.wait_for_sent(ANN, 1)
    app.bot_data.stop_requested.set()
    await asyncio.wait_for(task, scaled(15))
    assert reply["visible_text"] == "echo: both"
    assert telegram.menu_button["web_app"] == {"url": "https://bot.example.com/memory/"}
