"""End to end: secrets in free phrasing (issue 59) are masked before the model and the database, whichever way
the user says them."""

from __future__ import annotations

import json

import pytest

from tests.conftest import fetch
from tests.harness import make_config, running_bot

ANN = 1001


@pytest.fixture
def config(telegram, model, tmp_path):
    return make_config(telegram, model, tmp_path / "bot.db", stream_replies=False)


@pytest.mark.parametrize("said, secret", [
    ("мой пин-код один два три четыре, не забудь", "один два три четыре"),
    ("pin is four five six seven", "four five six seven"),
    ("мой ИНН 715926017408, нужен для налоговой", "715926017408"),
    ("девичья фамилия матери — Иванова, это для банка", "Иванова"),
    ("my mother's maiden name is Kowalski, for the bank", "Kowalski"),
    ("с паролем Zebra!2024 не могу войти в почту", "Zebra!2024"),
])
async def test_a_secret_in_free_phrasing_reaches_neither_the_model_nor_the_database(telegram, model, config, said,
                                                                                   secret):
    async with running_bot(config) as app:
        telegram.push_text(ANN, said)
        await telegram.wait_for_sent(ANN, 1)
        stored = await fetch(app.bot_data.store, "SELECT content FROM messages")
    assert secret not in json.dumps(model.requests, ensure_ascii=False)
    assert stored and secret not in json.dumps(stored, ensure_ascii=False)
    assert "hidden]" in json.dumps(stored, ensure_ascii=False)
