"""The bot's log: stderr at LOG_LEVEL, with no secret, no user's raw message from a batch python-telegram-bot
could not read, and an outage said once rather than a traceback for each request it fails."""

from __future__ import annotations

import logging

from config import Config
from transport.sending import QuietOutageLogs


class RedactSecrets(logging.Filter):
    """Replaces the bot token and API key in every log record, whatever logged them."""

    def __init__(self, *secrets: str) -> None:
        super().__init__()
        self.secrets = [secret for secret in secrets if secret and len(secret) > 8]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            for secret in self.secrets:
                message = message.replace(secret, "[redacted]")
            record.msg, record.args = message, None
        return True


class WithholdUpdateData(logging.Filter):
    """Drops python-telegram-bot's record of a batch it could not parse: it dumps users' raw messages with a
    traceback. The inbox then reads that batch one update at a time and logs one warning for each update it
    cannot read (transport/inbox.py)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith("Error while parsing updates"))


def setup_logging(config: Config) -> None:
    """Log to stderr at LOG_LEVEL, never showing secrets; httpx would log every URL, token included."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    keys = (config.openai_api_key, config.extract_api_key, config.embedding_api_key, config.metrics_token)
    handler.addFilter(RedactSecrets(config.telegram_token, *(key for key in keys if key)))
    handler.addFilter(WithholdUpdateData())
    handler.addFilter(QuietOutageLogs())
    logging.basicConfig(level=config.log_level, handlers=[handler], force=True)
    for noisy in ("httpx", "httpx2", "httpcore", "openai"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLogger().level))
    # APScheduler warns when a memory sweep is skipped because the last one still runs: expected, not news.
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
