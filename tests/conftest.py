import os

import pytest

# bot.py opts in to python-telegram-bot's timedelta durations; tests that import the
# Application without bot.py's start-up need the same, or PTB warns (and warnings are errors).
os.environ.setdefault("PTB_TIMEDELTA", "true")

from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402


@pytest.fixture
async def telegram():
    """A running Bot API double."""
    double = TelegramDouble()
    await double.start()
    yield double
    await double.close()


@pytest.fixture
async def model():
    """A running OpenAI API double."""
    double = OpenAIDouble()
    await double.start()
    yield double
    await double.close()
