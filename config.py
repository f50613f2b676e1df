"""Settings read from the environment into one frozen dataclass."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Mapping, TypeVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
EMBEDDING_BACKENDS = ("openai", "local", "hashing")
TOKEN_PATTERN = re.compile(r"^\d+:[A-Za-z0-9_-]{10,}$")
# A placeholder key for OpenAI-compatible servers that need none (Ollama, llama.cpp):
# the SDK refuses to start without some key.
NO_KEY = "not-needed"
# EXTRACT_MAX_PROMPT_TOKENS's default when extraction shares the chat server's limited slots: a message that arrives
# as an extraction begins waits for the server to read this many tokens (about 8 s on 2 CPU cores with Gemma 3
# 270M; bench/contention.py), since a server cannot stop reading a prompt it has begun. The brief instructions
# show the answer's shape, so no schema is added to such a prompt: this is all the server reads.
SHARED_SLOT_EXTRACT_TOKENS = 1536


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names it."""

T = TypeVar("T")


def hide_password(text: str, url: str) -> str:
    """`text` with the password of `url` (and of any URL in it) replaced by ***: how logs and errors
    name a database, in one place."""
    text = re.sub(r"(\w+://[^:/@\s]+):[^@\s]*@", r"\1:***@", text)
    password = re.match(r"\w+://[^:/@]+:([^@]*)@", url)
    return text.replace(password.group(1), "***") if password and password.group(1) else text


@dataclass(frozen=True)
class Config:
    """Everything the bot needs to know at start-up."""

    telegram_token: str
    openai_api_key: str
    openai_base_url: str | None = None
    openai_model: str = "gpt-4o-mini"
    # Requests the chat server takes at once (None: any number); a conversation goes before memory upkeep.
    model_concurrency: int | None = None
    # Memory upkeep's own model and server; None: the chat's (then extraction shares the chat's slots).
    extract_model: str | None = None
    extract_base_url: str | None = None
    extract_api_key: str | None = None
    embedding_base_url: str | None = None
    embedding_api_key: str | None = None
    telegram_api_base_url: str = "https://api.telegram.org/bot"
    telegram_file_base_url: str = "https://api.telegram.org/file/bot"
    database_path: Path = Path("data/bot.db")
    database_url: str | None = None  # postgresql://…: PostgreSQL instead of the SQLite file at database_path
    history_limit: int = 20
    prompt_max_tokens: int = 1500
    timezone: str = "UTC"
    allowed_user_ids: frozenset[int] = frozenset()
    admin_user_ids: frozenset[int] = frozenset()  # may use /stats; exempt from the daily limits
    daily_message_limit: int = 0  # per user and local day; 0: no limit
    daily_token_limit: int = 0
    daily_voice_seconds: int = 0
    log_level: str = "INFO"
    memory_extract_delay_s: float = 30.0
    memory_extract_every: int = 10
    memory_max_facts: int = 100
    memory_prompt_facts: int = 20
    reply_max_tokens: int = 1024  # the cap on every reply and message written first
    # Room for a reasoning model's thinking, added to every reply's and extraction's cap; 0: as much again as
    # the cap, once the model is seen thinking (llm/server.py, ServerFeatures.answer_cap).
    reasoning_max_tokens: int = 0
    extract_timeout_s: float = 120.0  # one non-streamed extraction call, which a slow local server may need
    # One extraction prompt; a batch is cut to fit it (SHARED_SLOT_EXTRACT_TOKENS by default when it shares the
    # chat's limited slots). The full instructions nearly filling it, the brief ones (extract_facts_brief.md) go.
    extract_max_prompt_tokens: int = 6000
    conversation_gap_minutes: float = 180.0  # a longer silence between the user's messages starts a new conversation
    memory_max_topics: int = 30  # topic lines of earlier conversations kept per user; 0: none are written
    embeddings: str = "openai"  # "openai", "local" or "hashing"
    embedding_model: str = "text-embedding-3-small"
    recall_top_k: int = 5
    recall_min_similarity: float = 0.3
    webhook_url: str | None = None  # set: receive updates by webhook instead of long polling
    webhook_secret: str | None = None
    port: int = 8080
    webapp_url: str | None = None  # set: the memory page (a Telegram Mini App) and its API are served under its path
    webapp_auth_max_age_s: int = 86_400  # the page's signed initData is refused once older than this
    send_retry_s: float = 600.0  # a request Telegram does not take is retried this long; then its update waits
    transcription_model: str = "whisper-1"  # empty: voice messages are not transcribed
    voice_max_seconds: int = 300
    vision: bool = True  # VISION=auto: photos go to the chat model (until it refuses them)
    stream_replies: bool = True
    stream_interval_s: float = 0.6
    proactive: bool = True  # PROACTIVE=off: the companion never writes first
    proactive_sweep_s: float = 60.0
    reminder_sweep_s: float = 1.0  # how often due reminders are looked for (one indexed query)
    followup_after_hours: float = 3.0
    checkin_after_hours: float = 72.0
    proactive_daily_max: int = 1
    quiet_hours: tuple[int, int] | None = (22 * 60, 9 * 60)  # minutes after local midnight: start, end
    # One model request's wait: for an unstreamed answer, a stream's first piece, or its next; all its retries
    # within the budget, at least twice that.
    model_attempt_timeout_s: float = 20.0
    model_retry_budget_s: float = 60.0
    # Tuning that is not read from the environment; tests shorten it.
    typing_interval_s: float = 4.0
    model_backoff_s: float = 1.0
    max_concurrent_updates: int = 4096
    # Requests per second to Telegram across all chats (its broadcast limit); 0 turns the limiter off.
    telegram_max_rate: float = 30.0
    memory_retry_s: float = 300.0  # a failed extraction is tried again after this long
    memory_batch: int = 30  # messages per extraction call
    # The cap on an extraction answer: the ideal answer for the densest 30 messages of the corpus is 3,049
    # tokens (bench/answer_size.py); one that reaches it is cut, and its batch halved.
    extract_max_tokens: int = 3072
    recall_timeout_s: float = 2.0  # the message's embedding; past it, facts go by importance
    transcription_timeout_s: float = 60.0  # one voice message's transcription, retries included

    @property
    def database(self) -> Path | str:
        """Where the store lives: DATABASE_URL when set, else the SQLite file at DATABASE_PATH."""
        return self.database_url or self.database_path

    @property
    def database_name(self) -> str:
        """The database as logs and errors may name it: a URL without its password."""
        if not self.database_url:
            return f"DATABASE_PATH={self.database_path}"
        return "DATABASE_URL=" + hide_password(self.database_url, self.database_url)

    @property
    def tz(self) -> ZoneInfo:
        """The zone used for the timestamps in the prompt."""
        return ZoneInfo(self.timezone)

    def subset(self, settings: type[T]) -> T:
        """Return the few settings a service uses: a frozen dataclass whose fields are named like Config's."""
        return settings(**{item.name: getattr(self, item.name) for item in fields(settings)})

    def allows(self, user_id: int) -> bool:
        """True when this Telegram user may talk to the bot (admins always may)."""
        return not self.allowed_user_ids or user_id in self.allowed_user_ids or user_id in self.admin_user_ids


def webapp_path(url: str) -> str:
    """Return the path the memory page is served under, ending in "/": "https://x.dev/memory" -> "/memory/"."""
    path = urlsplit(url).path or "/"
    return path if path.endswith("/") else path + "/"


def load_config(env: Mapping[str, str]) -> Config:
    """Build the Config from environment variables, or raise ConfigError naming the bad one."""
    token = _get(env, "TELEGRAM_BOT_TOKEN")
    if not token:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set (get one from @BotFather)")
    if not TOKEN_PATTERN.match(token):
        raise ConfigError("TELEGRAM_BOT_TOKEN does not look like a bot token (digits:letters)")

    base_url = _get(env, "OPENAI_BASE_URL") or None
    if base_url is not None:
        _check_url("OPENAI_BASE_URL", base_url)
    api_key = _get(env, "OPENAI_API_KEY")
    if not api_key and base_url is None:
        raise ConfigError("OPENAI_API_KEY is not set (or set OPENAI_BASE_URL to a server that needs no key)")

    telegram_url = _get(env, "TELEGRAM_API_BASE_URL") or "https://api.telegram.org/bot"
    _check_url("TELEGRAM_API_BASE_URL", telegram_url)
    file_url = _get(env, "TELEGRAM_FILE_BASE_URL") or file_base_url(telegram_url)
    _check_url("TELEGRAM_FILE_BASE_URL", file_url)

    timezone = _get(env, "BOT_TIMEZONE") or "UTC"
    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(f"BOT_TIMEZONE={timezone!r} is not an IANA time zone such as Europe/Moscow") from None

    embeddings = (_get(env, "EMBEDDINGS") or "openai").lower()
    if embeddings not in EMBEDDING_BACKENDS:
        raise ConfigError(f"EMBEDDINGS must be one of {', '.join(EMBEDDING_BACKENDS)}, got {embeddings!r}")
    # e5's cosines crowd into a narrow band (related ≈ 0.86, unrelated ≈ 0.82; bench/recall.py).
    min_similarity = _get(env, "RECALL_MIN_SIMILARITY") or ("0.82" if embeddings == "local" else "0.3")
    try:
        recall_min_similarity = float(min_similarity)
    except ValueError:
        raise ConfigError(f"RECALL_MIN_SIMILARITY must be a number between -1 and 1, got {min_similarity!r}") from None
    if not -1 <= recall_min_similarity <= 1:
        raise ConfigError(f"RECALL_MIN_SIMILARITY must be between -1 and 1, got {recall_min_similarity}")

    webhook_url = _get(env, "WEBHOOK_URL") or None
    webhook_secret = _get(env, "WEBHOOK_SECRET") or None
    if webhook_url is not None:
        if not webhook_url.startswith("https://"):
            raise ConfigError("WEBHOOK_URL must be an https:// URL (Telegram only calls https webhooks)")
        if not webhook_secret or not re.fullmatch(r"[A-Za-z0-9_-]{16,256}", webhook_secret):
            raise ConfigError("WEBHOOK_SECRET is required with WEBHOOK_URL: 16-256 letters, digits, _ or -")

    webapp_url = _get(env, "WEBAPP_URL") or None
    if webapp_url is not None:
        parts = urlsplit(webapp_url)
        if parts.scheme != "https" or not parts.hostname or parts.query or parts.fragment:
            raise ConfigError("WEBAPP_URL must be an https:// URL without ?query or #fragment (Telegram opens only"
                              " https Mini Apps), e.g. https://<app>.fly.dev/memory/")
        if webapp_path(webapp_url) == "/healthz/" or (
            webhook_url and urlsplit(webhook_url).path.startswith(webapp_path(webapp_url))
        ):
            raise ConfigError("WEBAPP_URL's path must not hold /healthz or WEBHOOK_URL's path; try /memory/")

    quiet = env.get("QUIET_HOURS", "22-9").strip()
    quiet_hours = parse_quiet_hours(quiet)
    if quiet and quiet_hours is None:
        raise ConfigError(f"QUIET_HOURS must look like 22-9 or 23:30-08:00 (local time), or be empty; got {quiet!r}")

    vision = (_get(env, "VISION") or "auto").lower()
    if vision not in ("auto", "off"):
        raise ConfigError(f"VISION must be auto or off, got {vision!r}")

    # A slow local server may take long over a prompt before its first word: the retries get room for two.
    attempt_timeout = _number(env, "MODEL_TIMEOUT_SECONDS", 20, low=1, high=3600)

    for name in ("EXTRACT_BASE_URL", "EMBEDDING_BASE_URL"):
        if _get(env, name):
            _check_url(name, _get(env, name))
    # A local server (OPENAI_BASE_URL set) answers one request at a time unless told otherwise; 0: no limit.
    concurrency = _int(env, "MODEL_CONCURRENCY", 1 if base_url else 0, low=0, high=1_000) or None
    # Extraction sharing such a slot keeps each request short: a user's message may wait out one prompt evaluation.
    shares_slot = concurrency is not None and not _get(env, "EXTRACT_BASE_URL")
    extract_prompt = SHARED_SLOT_EXTRACT_TOKENS if shares_slot else 6000

    log_level = (_get(env, "LOG_LEVEL") or "INFO").upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")

    return Config(
        telegram_token=token,
        openai_api_key=api_key or NO_KEY,
        openai_base_url=base_url,
        openai_model=_get(env, "OPENAI_MODEL") or "gpt-4o-mini",
        model_concurrency=concurrency,
        extract_model=_get(env, "EXTRACT_MODEL") or None,
        extract_base_url=_get(env, "EXTRACT_BASE_URL") or None,
        extract_api_key=_get(env, "EXTRACT_API_KEY") or None,
        embedding_base_url=_get(env, "EMBEDDING_BASE_URL") or None,
        embedding_api_key=_get(env, "EMBEDDING_API_KEY") or None,
        telegram_api_base_url=telegram_url,
        telegram_file_base_url=file_url,
        database_path=Path(_get(env, "DATABASE_PATH") or "data/bot.db"),
        database_url=_database_url(env),
        history_limit=_int(env, "HISTORY_LIMIT", 20, low=2, high=500),
        prompt_max_tokens=_int(env, "PROMPT_MAX_TOKENS", 1500, low=0, high=1_000_000),
        timezone=timezone,
        allowed_user_ids=_user_ids(env, "ALLOWED_USER_IDS"),
        admin_user_ids=_user_ids(env, "ADMIN_USER_IDS"),
        daily_message_limit=_int(env, "DAILY_MESSAGE_LIMIT", 0, low=0, high=1_000_000),
        daily_token_limit=_int(env, "DAILY_TOKEN_LIMIT", 0, low=0, high=10**12),
        daily_voice_seconds=_int(env, "DAILY_VOICE_SECONDS", 0, low=0, high=86_400),
        log_level=log_level,
        memory_extract_delay_s=_int(env, "MEMORY_EXTRACT_DELAY_SECONDS", 30, low=0, high=86_400),
        memory_extract_every=_int(env, "MEMORY_EXTRACT_EVERY", 10, low=1, high=1_000),
        memory_max_facts=_int(env, "MEMORY_MAX_FACTS", 100, low=1, high=10_000),
        memory_prompt_facts=_int(env, "MEMORY_PROMPT_FACTS", 20, low=0, high=1_000),
        reply_max_tokens=_int(env, "REPLY_MAX_TOKENS", 1024, low=16, high=1_000_000),
        reasoning_max_tokens=_int(env, "REASONING_MAX_TOKENS", 0, low=0, high=1_000_000),
        model_attempt_timeout_s=attempt_timeout,
        model_retry_budget_s=max(60.0, 2 * attempt_timeout),
        extract_timeout_s=_number(env, "EXTRACT_TIMEOUT_SECONDS", 120, low=1, high=3600),
        extract_max_prompt_tokens=_int(env, "EXTRACT_MAX_PROMPT_TOKENS", extract_prompt, low=1024, high=10_000_000),
        conversation_gap_minutes=_number(env, "CONVERSATION_GAP_MINUTES", 180, low=0.001, high=60 * 24 * 365),
        memory_max_topics=_int(env, "MEMORY_MAX_TOPICS", 30, low=0, high=1_000),
        embeddings=embeddings,
        embedding_model=_get(env, "EMBEDDING_MODEL") or "text-embedding-3-small",
        recall_top_k=_int(env, "RECALL_TOP_K", 5, low=1, high=100),
        recall_min_similarity=recall_min_similarity,
        webhook_url=webhook_url,
        webhook_secret=webhook_secret,
        port=_int(env, "PORT", 8080, low=1, high=65_535),
        webapp_url=webapp_url,
        webapp_auth_max_age_s=_int(env, "WEBAPP_AUTH_MAX_AGE", 86_400, low=60, high=365 * 86_400),
        send_retry_s=_number(env, "SEND_RETRY_MINUTES", 10, low=0, high=24 * 60) * 60,
        # Set but empty turns voice off, so it is read as given rather than through `or`.
        transcription_model=env.get("TRANSCRIPTION_MODEL", "whisper-1").strip(),
        voice_max_seconds=_int(env, "VOICE_MAX_SECONDS", 300, low=1, high=86_400),
        vision=vision == "auto",
        stream_replies=_switch(env, "STREAM_REPLIES", True),
        stream_interval_s=_int(env, "STREAM_INTERVAL_MS", 600, low=50, high=60_000) / 1000,
        proactive=_switch(env, "PROACTIVE", True),
        proactive_sweep_s=_number(env, "PROACTIVE_SWEEP_SECONDS", 60, low=0.1, high=86_400),
        followup_after_hours=_number(env, "FOLLOWUP_AFTER_HOURS", 3, low=0, high=24 * 30),
        checkin_after_hours=_number(env, "CHECKIN_AFTER_HOURS", 72, low=0.0001, high=24 * 365),
        proactive_daily_max=_int(env, "PROACTIVE_DAILY_MAX", 1, low=1, high=24),
        # Set but empty means no quiet hours, so it is read as given rather than through `or`.
        quiet_hours=quiet_hours,
    )


def _database_url(env: Mapping[str, str]) -> str | None:
    url = _get(env, "DATABASE_URL")
    if not url:
        return None
    if not re.match(r"^postgres(ql)?://[^\s]+$", url):
        raise ConfigError("DATABASE_URL must be a postgresql:// URL (unset, the SQLite file at DATABASE_PATH is used)")
    return url


def _get(env: Mapping[str, str], name: str) -> str:
    return env.get(name, "").strip()


def file_base_url(api_base_url: str) -> str:
    """Return the file URL base that goes with a Bot API base URL, as python-telegram-bot pairs them.

    `https://api.telegram.org/bot` gives `https://api.telegram.org/file/bot`: "file" goes before the last
    part of the path.
    """
    head, _, last = api_base_url.rstrip("/").rpartition("/")
    return f"{head}/file/{last}"


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = _get(env, name).lower()
    if not raw:
        return default
    if raw not in ("on", "off"):
        raise ConfigError(f"{name} must be on or off, got {raw!r}")
    return raw == "on"


def _check_url(name: str, value: str) -> None:
    if not re.match(r"^https?://[^\s/]+", value):
        raise ConfigError(f"{name} must be an http:// or https:// URL")


def _int(env: Mapping[str, str], name: str, default: int, *, low: int, high: int) -> int:
    raw = _get(env, name)
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


def _number(env: Mapping[str, str], name: str, default: float, *, low: float, high: float) -> float:
    raw = _get(env, name)
    if not raw:
        return float(default)
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if not low <= value <= high:  # also refuses nan
        raise ConfigError(f"{name} must be between {low:g} and {high:g}, got {raw}")
    return value


def parse_quiet_hours(raw: str) -> tuple[int, int] | None:
    """Return quiet hours "22-9" or "23:30-08:00" as (start, end) minutes after midnight; None if malformed or empty."""
    match = re.fullmatch(r"\s*(\d{1,2})(?::(\d{2}))?\s*-\s*(\d{1,2})(?::(\d{2}))?\s*", raw)
    if not match:
        return None
    start_h, start_m, end_h, end_m = (int(part or 0) for part in match.groups())
    if start_h > 23 or end_h > 23 or start_m > 59 or end_m > 59:
        return None
    start, end = start_h * 60 + start_m, end_h * 60 + end_m
    return (start, end) if start != end else None


def _user_ids(env: Mapping[str, str], name: str) -> frozenset[int]:
    raw = _get(env, name)
    ids = set()
    for part in raw.replace(" ", "").split(","):
        if not part:
            continue
        if not part.isdigit():
            raise ConfigError(f"{name} must be comma-separated Telegram user ids, got {part!r}")
        ids.add(int(part))
    return frozenset(ids)
