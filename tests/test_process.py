"""The bot as a real process: start-up errors, the token in logs, and a graceful SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from tests.timeouts import scaled

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = (
    "TELEGRAM_BOT_TOKEN OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL TELEGRAM_API_BASE_URL TELEGRAM_FILE_BASE_URL "
    "DATABASE_PATH HISTORY_LIMIT BOT_TIMEZONE ALLOWED_USER_IDS LOG_LEVEL VOICE_MAX_SECONDS VISION STREAM_REPLIES "
    "STREAM_INTERVAL_MS PROACTIVE PROACTIVE_SWEEP_SECONDS FOLLOWUP_AFTER_HOURS CHECKIN_AFTER_HOURS PROACTIVE_DAILY_MAX "
    "QUIET_HOURS DATABASE_URL WEBHOOK_URL WEBHOOK_SECRET ADMIN_USER_IDS DAILY_MESSAGE_LIMIT DAILY_TOKEN_LIMIT "
    "DAILY_VOICE_SECONDS PORT WEBAPP_URL WEBAPP_AUTH_MAX_AGE SEND_RETRY_MINUTES METRICS METRICS_TOKEN METRICS_PORT "
    "MODEL_CONCURRENCY"
).split()


def environment(**settings: str) -> dict[str, str]:
    """Every setting spelled out (empty = default), so that a developer's .env cannot leak in."""
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS}
    env.update({name: "" for name in SETTINGS})
    env["TRANSCRIPTION_MODEL"] = "whisper-1"  # its default; empty would turn voice off
    env["QUIET_HOURS"] = "22-9"  # its default; empty means no quiet hours
    env.update(settings)
    return env


async def start_bot(env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "bot.py", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )


@pytest.fixture
def env(telegram, model, tmp_path):
    return environment(
        TELEGRAM_BOT_TOKEN=telegram.token,
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url,
        DATABASE_PATH=str(tmp_path / "db" / "bot.db"),
    )


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({}, "TELEGRAM_BOT_TOKEN"),
        ({"TELEGRAM_BOT_TOKEN": "123456:ABCDEFGHIJKLMNOP"}, "OPENAI_API_KEY"),
        ({"TELEGRAM_BOT_TOKEN": "123456:ABCDEFGHIJKLMNOP", "OPENAI_API_KEY": "k", "HISTORY_LIMIT": "lots"},
         "HISTORY_LIMIT"),
        ({"TELEGRAM_BOT_TOKEN": "123456:ABCDEFGHIJKLMNOP", "OPENAI_API_KEY": "k", "BOT_TIMEZONE": "Nowhere/City"},
         "BOT_TIMEZONE"),
        ({"TELEGRAM_BOT_TOKEN": "123456:ABCDEFGHIJKLMNOP", "OPENAI_API_KEY": "k", "METRICS": "on"}, "METRICS_TOKEN"),
    ],
)
async def test_a_bad_setting_stops_start_up_with_one_line_and_exit_code_2(settings, named):
    process = await start_bot(environment(**settings))
    stdout, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    assert process.returncode == 2
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and named in lines[0]
    assert stdout == b""


async def test_a_token_telegram_rejects_is_one_line_and_exit_code_2(env, telegram):
    env["TELEGRAM_BOT_TOKEN"] = "999999:WRONG-TOKEN-VALUE"
    process = await start_bot(env)
    _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    text = stderr.decode()
    assert process.returncode == 2
    assert "error: Telegram rejected TELEGRAM_BOT_TOKEN" in text
    assert "Traceback" not in text and "WRONG-TOKEN-VALUE" not in text


@pytest.mark.parametrize("setting, more", [
    ("PORT", {"WEBAPP_URL": "https://bot.example.com/memory/"}),
    ("METRICS_PORT", {"METRICS": "on"}),  # polling without WEBAPP_URL or METRICS_TOKEN: the only port it opens
])
async def test_a_port_another_program_holds_is_one_line_and_exit_code_2(env, setting, more):
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        env.update(more, **{setting: str(taken.getsockname()[1])})
        process = await start_bot(env)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    text = stderr.decode()
    assert process.returncode == 2
    assert f"error: cannot listen on {setting}={env[setting]}" in text and "Traceback" not in text


async def test_sigterm_lets_the_turn_in_flight_finish_and_exits_0(env, telegram, model):
    env["LOG_LEVEL"] = "DEBUG"
    model.delay = 1.5
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("setMyCommands", timeout=30)
        telegram.push_text(1001, "a slow question")
        await model.wait_for_request(1, timeout=10)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0
    [reply] = telegram.sent_to(1001)
    assert reply["visible_text"] == "echo: a slow question"
    log = stderr.decode()
    assert "bot stopped cleanly" in log
    assert "Traceback" not in log
    # httpx logs every request URL, and the URL holds the token: it must never show up.
    assert telegram.token not in log and telegram.token.split(":")[1] not in log
    assert "sk-test" not in log


async def test_sigterm_with_a_backlog_waits_only_for_the_turn_in_flight_and_the_next_start_answers_the_rest(
    env, telegram, model
):
    env["LOG_LEVEL"] = "INFO"
    model.delay = 1.0
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("setMyCommands", timeout=30)
        for n in range(30):  # one user: their turns run one after another
            telegram.push_text(1001, f"question {n}")
        await model.wait_for_request(1, timeout=10)
        process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
        stopped_in = time.monotonic() - started
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0
    answered = [m["visible_text"] for m in telegram.sent_to(1001)]
    assert answered == ["echo: question 0"] and stopped_in < 10  # not 29 more turns of a second each
    assert "29 update(s) not begun wait in the inbox for the next start" in stderr.decode()
    process = await start_bot(env)
    try:
        await telegram.wait_for_sent(1001, 30, timeout=60)
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.communicate(), scaled(30))
    assert [m["visible_text"] for m in telegram.sent_to(1001)] == [f"echo: question {n}" for n in range(30)]


async def test_a_voice_note_through_the_real_process_with_the_file_url_derived_and_the_reply_streamed(
    env, telegram, model
):
    model.transcript = "hello from my voice"
    # 0.7 s of stream: its first words come in the second read at the latest, and the first draft leaves 0.15 s
    # after them, long before the end.
    model.stream_chunk_chars, model.stream_chunk_interval = 4, 0.1
    env["STREAM_INTERVAL_MS"] = "200"
    assert env["TELEGRAM_FILE_BASE_URL"] == ""  # derived from TELEGRAM_API_BASE_URL
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("setMyCommands", timeout=30)
        voice = (ROOT / "tests" / "fixtures" / "voice.ogg").read_bytes()
        telegram.push_message(1001, {"voice": telegram.voice(content=voice)})
        [reply] = await telegram.wait_for_sent(1001, 1, timeout=30)
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    assert reply["visible_text"] == "echo: hello from my voice"
    assert len(telegram.downloads) == 1 and model.transcription_requests[0]["content"] == voice
    assert telegram.drafts_to(1001) and all(d["at"] < reply["at"] for d in telegram.drafts_to(1001))
    log = stderr.decode()
    assert telegram.token.split(":")[1] not in log and "Traceback" not in log


async def test_a_llama_cpp_server_that_reports_three_slots_gets_three_requests_at_once(env, telegram, model):
    model.props = {"total_slots": 3, "default_generation_settings": {"n_ctx": 4096}}
    release = asyncio.Event()
    in_flight, most = 0, 0

    async def held(body: dict) -> str:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await release.wait()
        in_flight -= 1
        return "done"

    model.reply = held
    assert env["MODEL_CONCURRENCY"] == ""  # unset: the server decides
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("setMyCommands", timeout=30)
        for user in range(3001, 3005):
            telegram.push_text(user, "hello")
        await model.wait_for_request(3, timeout=30)
        with pytest.raises(AssertionError, match="expected 4 chat requests"):
            await model.wait_for_request(4, timeout=1.0)  # the fourth waits for a slot
        release.set()
        for user in range(3001, 3005):
            await telegram.wait_for_sent(user, 1, timeout=30)
    finally:
        release.set()
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    assert most == 3 and model.props_asked == 1
    log = stderr.decode()
    assert "model concurrency: 3 (llama.cpp reports 3 slots)" in log and "context 4096 tokens" in log


async def run_command(*arguments: str, env: dict[str, str]) -> tuple[int, str, str]:
    """Run `python bot.py ARGUMENTS` to its end; return its exit code, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "bot.py", *arguments, cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    return process.returncode, stdout.decode(), stderr.decode()


async def test_help_names_every_command_and_needs_no_settings():
    code, stdout, stderr = await run_command("--help", env=environment())
    assert code == 0 and stderr == ""
    assert stdout.startswith(
        "usage: python bot.py [-h] [--check | backup PATH | copy-db --to URL | import PATH [--dry-run]]")
    assert all(word in stdout for word in ("--check", "backup", "copy-db", "import"))
    code, stdout, _ = await run_command("import", "--help", env=environment())
    assert code == 0 and all(word in stdout for word in ("--dry-run", "--format", "--user ID"))
    code, stdout, _ = await run_command("copy-db", "--help", env=environment())
    assert code == 0 and "--to URL" in stdout


@pytest.mark.parametrize(("arguments", "named"), [
    (["serve"], "invalid choice: 'serve'"),
    (["backup"], "PATH"),
    (["backup", "a.db", "b.db"], "unrecognized arguments: b.db"),
    (["copy-db"], "--to"),
    (["import"], "PATH"),
    (["import", "x.pkl", "--format", "csv"], "invalid choice: 'csv'"),
    (["--check", "backup", "a.db"], "--check takes no command"),
    (["--chek"], "unrecognized arguments: --chek"),
])
async def test_a_bad_command_line_shows_the_usage_and_exits_2(arguments, named):
    code, stdout, stderr = await run_command(
        *arguments, env=environment(TELEGRAM_BOT_TOKEN="123456:ABCDEFGHIJKLMNOP", OPENAI_API_KEY="k"))
    assert (code, stdout) == (2, "")
    assert stderr.startswith("usage: python bot.py") and named in stderr and "Traceback" not in stderr


async def test_backup_while_the_bot_writes_gives_a_sound_copy(env, telegram, model, tmp_path):
    process = await start_bot(env)
    try:
        await telegram.wait_for_call("setMyCommands", timeout=30)
        for i in range(40):
            telegram.push_text(2000 + i % 5, f"message number {i}, I live in Berlin")
        await telegram.wait_for_sent(2000, 2, timeout=30)  # the bot is busy writing
        target = tmp_path / "backups" / "copy.db"
        backup = await asyncio.create_subprocess_exec(
            sys.executable, "bot.py", "backup", str(target), cwd=ROOT, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await asyncio.wait_for(backup.communicate(), scaled(60))
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.communicate(), scaled(30))
    assert backup.returncode == 0, stderr.decode()
    assert "integrity check: ok" in stdout.decode()
    import sqlite3

    with sqlite3.connect(target) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert copy.execute("SELECT COUNT(*) FROM messages").fetchone()[0] > 0


async def test_backup_without_a_database_is_one_line():
    process = await asyncio.create_subprocess_exec(
        sys.executable, "bot.py", "backup", "/tmp/never.db", cwd=ROOT,
        env=environment(TELEGRAM_BOT_TOKEN="123456:ABCDEFGHIJKLMNOP", OPENAI_API_KEY="k",
                        DATABASE_PATH="/nonexistent/bot.db"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    assert process.returncode == 2
    assert stderr.decode().strip().splitlines() == ["error: no database at DATABASE_PATH=/nonexistent/bot.db"]


async def test_backup_on_postgresql_points_to_pg_dump_and_an_unreachable_one_is_one_line_without_its_password(env):
    base = {**env, "DATABASE_URL": "postgresql://bot:hunter2@127.0.0.1:9/none"}
    backup = await asyncio.create_subprocess_exec(
        sys.executable, "bot.py", "backup", "/tmp/never.db", cwd=ROOT, env=base,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(backup.communicate(), scaled(30))
    assert backup.returncode == 2 and "pg_dump" in stderr.decode() and len(stderr.decode().splitlines()) == 1
    run = await start_bot(base)
    _, stderr = await asyncio.wait_for(run.communicate(), scaled(60))
    lines = stderr.decode().strip().splitlines()
    assert run.returncode == 2 and "hunter2" not in stderr.decode() and "Traceback" not in stderr.decode()
    assert lines[-1].startswith("error: cannot open DATABASE_URL=postgresql://bot:***@127.0.0.1:9/none")


def damage(path: Path) -> None:
    """Overwrite the middle of a database file (past the header page) with junk."""
    data = bytearray(path.read_bytes())
    data[8192:12288] = bytes(range(256)) * 16
    path.write_bytes(bytes(data))


async def fill(path: Path) -> None:
    import sqlite3

    with sqlite3.connect(path) as db:  # a few pages of ordinary rows, then the bot's own schema on top
        db.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT)")
        db.executemany("INSERT INTO filler (text) VALUES (?)", [("x" * 200,)] * 200)
        db.execute("CREATE INDEX filler_by_text ON filler(text)")


@pytest.mark.parametrize("kind", ["not a database", "damaged pages"])
async def test_a_corrupt_database_stops_start_up_with_one_line_and_is_left_as_it_was(env, kind, tmp_path):
    path = Path(env["DATABASE_PATH"])
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "not a database":
        path.write_bytes(os.urandom(20000))
    else:
        await fill(path)
        damage(path)
    before = path.read_bytes()
    process = await start_bot(env)
    stdout, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    assert process.returncode == 2
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot open DATABASE_PATH={path}: "), lines
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["bot.db"]  # no WAL or journal left beside it


async def test_a_database_another_program_holds_locked_stops_start_up_with_one_line(env):
    import sqlite3

    path = Path(env["DATABASE_PATH"])
    path.parent.mkdir(parents=True, exist_ok=True)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        process = await start_bot(env)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    finally:
        holder.rollback()
        holder.close()
    assert process.returncode == 2
    lines = stderr.decode().strip().splitlines()
    assert lines == [f"error: cannot open DATABASE_PATH={path}: database is locked"]
