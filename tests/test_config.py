from pathlib import Path

import pytest

from config import NO_KEY, SHARED_SLOT_EXTRACT_TOKENS, Config, ConfigError, load_config, webapp_path

TOKEN = "123456:ABCdefGHIjkl-mno_pqr"
BASE = {"TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-abc"}


def test_defaults():
    config = load_config(BASE)
    assert config == Config(telegram_token=TOKEN, openai_api_key="sk-abc")
    assert config.openai_model == "gpt-4o-mini"
    assert config.telegram_api_base_url == "https://api.telegram.org/bot"
    assert config.database_path == Path("data/bot.db")
    assert config.history_limit == 20
    assert config.timezone == "UTC"
    assert config.allowed_user_ids == frozenset()
    assert config.log_level == "INFO"


def test_every_setting_is_read():
    config = load_config(
        BASE
        | {
            "OPENAI_BASE_URL": "http://localhost:11434/v1",
            "OPENAI_MODEL": "llama3.1",
            "TELEGRAM_API_BASE_URL": "http://localhost:8081/bot",
            "DATABASE_PATH": "/data/bot.db",
            "HISTORY_LIMIT": "40",
            "BOT_TIMEZONE": "Australia/Sydney",
            "ALLOWED_USER_IDS": " 1, 22 ,333",
            "LOG_LEVEL": "debug",
        }
    )
    assert config.openai_base_url == "http://localhost:11434/v1"
    assert config.openai_model == "llama3.1"
    assert config.telegram_api_base_url == "http://localhost:8081/bot"
    assert config.database_path == Path("/data/bot.db")
    assert config.history_limit == 40
    assert config.timezone == "Australia/Sydney"
    assert config.allowed_user_ids == frozenset({1, 22, 333})
    assert config.log_level == "DEBUG"


def test_memory_recall_and_webhook_settings():
    config = load_config(BASE | {
        "MEMORY_EXTRACT_DELAY_SECONDS": "5", "MEMORY_EXTRACT_EVERY": "4", "MEMORY_MAX_FACTS": "50",
        "MEMORY_PROMPT_FACTS": "10", "EMBEDDINGS": "LOCAL", "EMBEDDING_MODEL": "nomic-embed-text",
        "RECALL_TOP_K": "3", "WEBHOOK_URL": "https://bot.example.com/tg", "WEBHOOK_SECRET": "a" * 16, "PORT": "9000",
    })
    assert (config.memory_extract_delay_s, config.memory_extract_every, config.memory_max_facts,
            config.memory_prompt_facts) == (5, 4, 50, 10)
    assert (config.embeddings, config.embedding_model, config.recall_top_k) == ("local", "nomic-embed-text", 3)
    assert config.recall_min_similarity == 0.82  # e5's own scale, unless set
    assert (config.webhook_url, config.webhook_secret, config.port) == ("https://bot.example.com/tg", "a" * 16, 9000)
    assert load_config(BASE | {"RECALL_MIN_SIMILARITY": "0.5"}).recall_min_similarity == 0.5
    assert load_config(BASE).recall_min_similarity == 0.3


def test_memory_page_settings():
    assert (load_config(BASE).webapp_url, load_config(BASE).webapp_auth_max_age_s) == (None, 86_400)
    config = load_config(BASE | {"WEBAPP_URL": "https://bot.example.com/memory", "WEBAPP_AUTH_MAX_AGE": "3600",
                                 "WEBHOOK_URL": "https://bot.example.com/tg", "WEBHOOK_SECRET": "a" * 16})
    assert (config.webapp_url, config.webapp_auth_max_age_s) == ("https://bot.example.com/memory", 3600)
    assert webapp_path(config.webapp_url) == "/memory/" and webapp_path("https://bot.example.com") == "/"


def test_media_and_streaming_settings():
    config = load_config(BASE)
    assert (config.transcription_model, config.voice_max_seconds, config.vision) == ("whisper-1", 300, True)
    assert (config.stream_replies, config.stream_interval_s) == (True, 1.0)
    config = load_config(BASE | {
        "TRANSCRIPTION_MODEL": "gpt-4o-mini-transcribe", "VOICE_MAX_SECONDS": "60", "VISION": "OFF",
        "STREAM_REPLIES": "off", "STREAM_INTERVAL_MS": "1500",
    })
    assert (config.transcription_model, config.voice_max_seconds) == ("gpt-4o-mini-transcribe", 60)
    assert config.vision is False
    assert (config.stream_replies, config.stream_interval_s) == (False, 1.5)
    assert load_config(BASE | {"TRANSCRIPTION_MODEL": ""}).transcription_model == ""  # set but empty: voice off


def test_proactive_settings():
    config = load_config(BASE)
    assert (config.proactive, config.proactive_sweep_s, config.proactive_daily_max) == (True, 60.0, 1)
    assert (config.followup_after_hours, config.checkin_after_hours) == (3.0, 72.0)
    assert config.quiet_hours == (22 * 60, 9 * 60)
    config = load_config(BASE | {
        "PROACTIVE": "off", "PROACTIVE_SWEEP_SECONDS": "0.5", "FOLLOWUP_AFTER_HOURS": "1.5",
        "CHECKIN_AFTER_HOURS": "12.25", "PROACTIVE_DAILY_MAX": "2", "QUIET_HOURS": "23:30 - 08:15",
    })
    assert (config.proactive, config.proactive_sweep_s, config.proactive_daily_max) == (False, 0.5, 2)
    assert (config.followup_after_hours, config.checkin_after_hours) == (1.5, 12.25)
    assert config.quiet_hours == (23 * 60 + 30, 8 * 60 + 15)
    assert load_config(BASE | {"QUIET_HOURS": ""}).quiet_hours is None  # set but empty: no quiet hours


@pytest.mark.parametrize(
    ("api", "files"),
    [
        ("https://api.telegram.org/bot", "https://api.telegram.org/file/bot"),
        ("http://localhost:8081/bot", "http://localhost:8081/file/bot"),
        ("http://localhost:8081/bot/", "http://localhost:8081/file/bot"),
        ("https://proxy.example.com/telegram/bot", "https://proxy.example.com/telegram/file/bot"),
    ],
)
def test_the_file_url_follows_the_api_url_unless_set(api, files):
    assert load_config(BASE | {"TELEGRAM_API_BASE_URL": api}).telegram_file_base_url == files
    explicit = load_config(BASE | {"TELEGRAM_API_BASE_URL": api, "TELEGRAM_FILE_BASE_URL": "https://files.example.com/f"})
    assert explicit.telegram_file_base_url == "https://files.example.com/f"


def test_model_server_settings():
    defaults = load_config(BASE)
    assert (defaults.reply_max_tokens, defaults.extract_timeout_s, defaults.extraction_prompt_tokens(None)) == (
        1024, 120.0, 6000)
    assert (defaults.model_attempt_timeout_s, defaults.model_retry_budget_s) == (20.0, 60.0)
    config = load_config(BASE | {"REPLY_MAX_TOKENS": "300", "EXTRACT_TIMEOUT_SECONDS": "600",
                                 "EXTRACT_MAX_PROMPT_TOKENS": "3000", "MODEL_TIMEOUT_SECONDS": "90"})
    assert (config.reply_max_tokens, config.extract_timeout_s, config.extract_max_prompt_tokens) == (300, 600.0, 3000)
    assert (config.model_attempt_timeout_s, config.model_retry_budget_s) == (90.0, 180.0)  # room for two attempts


def test_reasoning_room_is_read_and_off_unless_set():
    assert load_config(BASE).reasoning_max_tokens == 0
    assert load_config(BASE | {"REASONING_MAX_TOKENS": "2048"}).reasoning_max_tokens == 2048


def test_a_local_server_needs_no_key():
    config = load_config({"TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_BASE_URL": "http://localhost:11434/v1"})
    assert config.openai_api_key == NO_KEY


def test_concurrency_and_extraction_prompts_are_left_to_start_up_unless_told():
    """Unset, both are decided at start by what the server is (tests/test_concurrency.py)."""
    local = BASE | {"OPENAI_BASE_URL": "http://localhost:11434/v1"}
    config = load_config(local)
    assert (config.model_concurrency, config.extract_max_prompt_tokens) == (None, None)
    assert (config.extraction_prompt_tokens(1), config.extraction_prompt_tokens(None)) == (
        SHARED_SLOT_EXTRACT_TOKENS, 6000)
    config = load_config(local | {"MODEL_CONCURRENCY": "0"})
    assert config.model_concurrency == 0  # unlimited, said outright
    config = load_config(local | {"EXTRACT_BASE_URL": "http://localhost:8001/v1"})
    assert config.extraction_prompt_tokens(1) == 6000  # its own server: no sharing
    config = load_config(BASE | {"MODEL_CONCURRENCY": "4", "EXTRACT_MAX_PROMPT_TOKENS": "3000"})
    assert (config.model_concurrency, config.extraction_prompt_tokens(4)) == (4, 3000)
    with pytest.raises(ConfigError, match="MODEL_CONCURRENCY"):
        load_config(BASE | {"MODEL_CONCURRENCY": "-1"})


def test_the_config_is_frozen():
    with pytest.raises(AttributeError):
        load_config(BASE).history_limit = 5  # type: ignore[misc]


def test_allows():
    assert load_config(BASE).allows(42)
    limited = load_config(BASE | {"ALLOWED_USER_IDS": "1,2"})
    assert limited.allows(1) and not limited.allows(3)


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, "TELEGRAM_BOT_TOKEN"),
        ({"TELEGRAM_BOT_TOKEN": "nonsense"}, "TELEGRAM_BOT_TOKEN"),
        ({"TELEGRAM_BOT_TOKEN": TOKEN}, "OPENAI_API_KEY"),
        (BASE | {"OPENAI_BASE_URL": "localhost:11434"}, "OPENAI_BASE_URL"),
        (BASE | {"TELEGRAM_API_BASE_URL": "ftp://x"}, "TELEGRAM_API_BASE_URL"),
        (BASE | {"HISTORY_LIMIT": "twenty"}, "HISTORY_LIMIT"),
        (BASE | {"HISTORY_LIMIT": "1"}, "HISTORY_LIMIT"),
        (BASE | {"HISTORY_LIMIT": "100000"}, "HISTORY_LIMIT"),
        (BASE | {"BOT_TIMEZONE": "Mars/Olympus"}, "BOT_TIMEZONE"),
        (BASE | {"BOT_TIMEZONE": "../../etc/passwd"}, "BOT_TIMEZONE"),
        (BASE | {"BOT_TIMEZONE": "Europe"}, "BOT_TIMEZONE"),  # a folder of zones, not one
        (BASE | {"ALLOWED_USER_IDS": "12,bob"}, "ALLOWED_USER_IDS"),
        (BASE | {"ALLOWED_USER_IDS": "-5"}, "ALLOWED_USER_IDS"),
        (BASE | {"LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
        (BASE | {"EMBEDDINGS": "magic"}, "EMBEDDINGS"),
        (BASE | {"RECALL_MIN_SIMILARITY": "high"}, "RECALL_MIN_SIMILARITY"),
        (BASE | {"RECALL_MIN_SIMILARITY": "2"}, "RECALL_MIN_SIMILARITY"),
        (BASE | {"RECALL_TOP_K": "0"}, "RECALL_TOP_K"),
        (BASE | {"MEMORY_EXTRACT_EVERY": "0"}, "MEMORY_EXTRACT_EVERY"),
        (BASE | {"WEBHOOK_URL": "http://plain.example.com/hook", "WEBHOOK_SECRET": "x" * 20}, "WEBHOOK_URL"),
        (BASE | {"WEBHOOK_URL": "https://example.com/hook"}, "WEBHOOK_SECRET"),
        (BASE | {"WEBHOOK_URL": "https://example.com/hook", "WEBHOOK_SECRET": "short"}, "WEBHOOK_SECRET"),
        (BASE | {"PORT": "99999"}, "PORT"),
        (BASE | {"WEBAPP_URL": "http://bot.example.com/memory/"}, "WEBAPP_URL"),
        (BASE | {"WEBAPP_URL": "https:///memory/"}, "WEBAPP_URL"),
        (BASE | {"WEBAPP_URL": "https://bot.example.com/memory/?x=1"}, "WEBAPP_URL"),
        (BASE | {"WEBAPP_URL": "https://bot.example.com/healthz"}, "WEBAPP_URL"),
        (BASE | {"WEBAPP_URL": "https://bot.example.com/", "WEBHOOK_URL": "https://bot.example.com/tg",
                 "WEBHOOK_SECRET": "x" * 20}, "WEBAPP_URL"),
        (BASE | {"WEBAPP_AUTH_MAX_AGE": "soon"}, "WEBAPP_AUTH_MAX_AGE"),
        (BASE | {"WEBAPP_AUTH_MAX_AGE": "10"}, "WEBAPP_AUTH_MAX_AGE"),
        (BASE | {"TELEGRAM_FILE_BASE_URL": "files"}, "TELEGRAM_FILE_BASE_URL"),
        (BASE | {"VOICE_MAX_SECONDS": "0"}, "VOICE_MAX_SECONDS"),
        (BASE | {"VISION": "always"}, "VISION"),
        (BASE | {"STREAM_REPLIES": "yes"}, "STREAM_REPLIES"),
        (BASE | {"STREAM_INTERVAL_MS": "10"}, "STREAM_INTERVAL_MS"),
        (BASE | {"PROACTIVE": "sometimes"}, "PROACTIVE"),
        (BASE | {"PROACTIVE_SWEEP_SECONDS": "0"}, "PROACTIVE_SWEEP_SECONDS"),
        (BASE | {"FOLLOWUP_AFTER_HOURS": "-1"}, "FOLLOWUP_AFTER_HOURS"),
        (BASE | {"FOLLOWUP_AFTER_HOURS": "nan"}, "FOLLOWUP_AFTER_HOURS"),
        (BASE | {"CHECKIN_AFTER_HOURS": "three days"}, "CHECKIN_AFTER_HOURS"),
        (BASE | {"CHECKIN_AFTER_HOURS": "0"}, "CHECKIN_AFTER_HOURS"),
        (BASE | {"PROACTIVE_DAILY_MAX": "0"}, "PROACTIVE_DAILY_MAX"),
        (BASE | {"QUIET_HOURS": "night"}, "QUIET_HOURS"),
        (BASE | {"QUIET_HOURS": "22-22"}, "QUIET_HOURS"),
        (BASE | {"QUIET_HOURS": "25-9"}, "QUIET_HOURS"),
        (BASE | {"QUIET_HOURS": "22:61-9"}, "QUIET_HOURS"),
        (BASE | {"CONVERSATION_GAP_MINUTES": "0"}, "CONVERSATION_GAP_MINUTES"),
        (BASE | {"CONVERSATION_GAP_MINUTES": "three hours"}, "CONVERSATION_GAP_MINUTES"),
        (BASE | {"MEMORY_MAX_TOPICS": "-1"}, "MEMORY_MAX_TOPICS"),
        (BASE | {"REPLY_MAX_TOKENS": "8"}, "REPLY_MAX_TOKENS"),
        (BASE | {"REPLY_MAX_TOKENS": "lots"}, "REPLY_MAX_TOKENS"),
        (BASE | {"REASONING_MAX_TOKENS": "-1"}, "REASONING_MAX_TOKENS"),
        (BASE | {"REASONING_MAX_TOKENS": "much"}, "REASONING_MAX_TOKENS"),
        (BASE | {"EXTRACT_TIMEOUT_SECONDS": "0"}, "EXTRACT_TIMEOUT_SECONDS"),
        (BASE | {"EXTRACT_MAX_PROMPT_TOKENS": "500"}, "EXTRACT_MAX_PROMPT_TOKENS"),
        (BASE | {"MODEL_TIMEOUT_SECONDS": "soon"}, "MODEL_TIMEOUT_SECONDS"),
        (BASE | {"METRICS": "yes"}, "METRICS"),
        (BASE | {"METRICS": "on", "METRICS_TOKEN": "short"}, "METRICS_TOKEN"),
        (BASE | {"METRICS": "on", "METRICS_TOKEN": "has spaces in it, sixteen+"}, "METRICS_TOKEN"),
        (BASE | {"METRICS": "on", "METRICS_PORT": "0"}, "METRICS_PORT"),
        (BASE | {"METRICS": "on", "METRICS_PORT": "9091x"}, "METRICS_PORT"),
        (BASE | {"METRICS": "on", "METRICS_PORT": "8080"}, "METRICS_PORT must differ from PORT"),
    ],
)
def test_a_bad_setting_is_named(env, named):
    with pytest.raises(ConfigError, match=named):
        load_config(env)


def test_metrics_are_off_unless_asked_for_and_read_with_their_token_and_port():
    config = load_config(BASE)
    assert (config.metrics, config.metrics_token, config.metrics_port) == (False, None, None)
    assert not config.serves_port  # polling with nothing to serve opens no port
    token = "Abc_def-123.456~+/="
    config = load_config(BASE | {"METRICS": "ON", "METRICS_TOKEN": token, "METRICS_PORT": "9091"})
    assert (config.metrics, config.metrics_token, config.metrics_port) == (True, token, 9091)
    assert config.serves_port  # /metrics behind its token is on PORT, in polling mode too
    private = load_config(BASE | {"METRICS": "on", "METRICS_PORT": "9091"})
    assert (private.metrics_token, private.metrics_port, private.serves_port) == (None, 9091, False)


def test_metrics_on_with_nowhere_to_serve_them_is_one_line_naming_both_ways():
    with pytest.raises(ConfigError) as caught:
        load_config(BASE | {"METRICS": "on"})
    assert str(caught.value).startswith("METRICS=on needs METRICS_TOKEN")
    assert "METRICS_PORT" in str(caught.value) and "\n" not in str(caught.value)


def test_metrics_off_reads_its_other_settings_without_checking_them():
    config = load_config(BASE | {"METRICS": "off", "METRICS_TOKEN": "short", "METRICS_PORT": "8080"})
    assert not config.metrics and not config.serves_port


def test_a_wrong_metrics_token_is_never_shown():
    with pytest.raises(ConfigError) as caught:
        load_config(BASE | {"METRICS": "on", "METRICS_TOKEN": "s3cret"})
    assert "s3cret" not in str(caught.value)


def test_conversation_settings_take_decimals_and_zero_topics():
    config = load_config(BASE | {"CONVERSATION_GAP_MINUTES": "90.5", "MEMORY_MAX_TOPICS": "0"})
    assert (config.conversation_gap_minutes, config.memory_max_topics) == (90.5, 0)
    assert (load_config(BASE).conversation_gap_minutes, load_config(BASE).memory_max_topics) == (180, 30)


def test_the_error_never_shows_the_token():
    with pytest.raises(ConfigError) as caught:
        load_config({"TELEGRAM_BOT_TOKEN": "12345:short"})
    assert "short" not in str(caught.value)
