"""Local HTTP doubles of the Telegram Bot API and the OpenAI API for end-to-end tests."""

from .openai_api import CountingOpenAIDouble, OpenAIDouble
from .telegram_api import TaggedReplies, TelegramDouble

__all__ = ["CountingOpenAIDouble", "OpenAIDouble", "TaggedReplies", "TelegramDouble"]
