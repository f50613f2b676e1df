"""copy-db: a SQLite database copied into PostgreSQL reads back the same through the Store; the source is untouched."""

import hashlib
import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memory.continuity import Topic
from memory.facts import Extraction, Fact, Relation
from memory.store.copying import CopyError, copy_sqlite_to_postgres
from memory.store.memory_store import Store
from memory.store.meter import UsageMeter
from tests.conftest import fetch
from tests.timeouts import scaled
from transport.transport_migrations import migrate_transport
from transport.transport_store import TransportStore

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
H = timedelta(hours=1)
ROOT = Path(__file__).resolve().parent.parent
VECTOR = bytes(range(256)) * 6  # 1536 bytes: 384 float32 values, every byte value included
GROUP = -1001234567890  # a supergroup's chat id: more than 32 bits


async def turn(store, user_id, text, now, update_id=None):
    return await store.turns.begin_turn(user_id=user_id, first_name="Аня", language_code="ru", text=text, now=now,
                                  update_id=update_id, history_limit=50)


@pytest.fixture
async def source(tmp_path):
    """A SQLite database of two users, written through the Store: messages, facts, history, relations, vectors,
    inbox, topics, usage, settings and reminders."""
    path = tmp_path / "data" / "bot.db"
    store = await Store.open(path)
    for i in range(3):
        for user_id in (1, 2):
            t = await turn(store, user_id, f"message {i}", T0 + i * H, update_id=100 + 2 * i + user_id)
            await store.turns.add_reply(user_id, f"reply {i}", T0 + i * H, 50, reply_to=t.message_id, tokens=40)
    await store.facts.save_facts(1, Extraction(
        [Fact("location", "city", "Moscow", confidence=0.7), Fact("pets", "pet:murka", "Murka", confidence=0.33)],
        [Relation("pet:murka", "city", "lives_in", 0.6)],
    ), T0, 100)
    await store.facts.save_facts(1, Extraction([Fact("location", "city", "Berlin", confidence=0.91)]), T0 + 5 * H, 100,
                           extracted_upto=5, topic=Topic("переезд в Берлин", T0, T0 + 2 * H))
    await store.facts.save_embeddings(1, "emb-1", [(f.id, VECTOR, 384) for f in await store.facts.facts(1)])
    inbox, meter = await TransportStore.open(store.backend), UsageMeter(store.backend)
    await inbox.record_updates([(900, '{"update_id": 900}', 1), (901, '{"update_id": 901}', 2)], T0)
    await inbox.mark_handled(900, T0 + H)
    await meter.record_usage(1, T0, voice_seconds=12.5)
    await meter.record_usage(None, T0, model_errors=1)
    await store.users.set_setting(1, "proactive", False, T0)
    await store.users.set_setting(2, "language", "en", T0)
    pills = await store.reminders.add_reminder(1, GROUP, "take the pills", T0 + H, "day 21:00", "Europe/Berlin", T0,
                                               asker="Аня")
    await store.reminders.finish_reminder(pills, T0 + H, T0 + 25 * H)
    call = await store.reminders.add_reminder(2, 2, "позвонить маме", T0 + 2 * H, None, "Europe/Moscow", T0)
    await store.reminders.finish_reminder(call, T0 + 2 * H, None)
    await store.reminders.add_reminder(2, 2, "купить хлеб", T0 + 3 * H, None, "Europe/Moscow", T0)
    await store.close()
    return path


def digest(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


async def read_back(store) -> dict:
    """What the Store says about both users."""
    return {
        user_id: {
            "export": await store.accounts.export_user(user_id),
            "facts": [(f.key, f.value, f.confidence, f.importance) for f in await store.facts.facts(user_id)],
            "vectors": sorted(await store.facts.fact_vectors(user_id, "emb-1")),
            "history": await store.facts.fact_history(user_id, "city"),
            "settings": await store.users.settings(user_id),
            "topics": await store.topics.topics(user_id),
            "reminders": [await store.reminders.reminder(user_id, r) for r in range(1, 4)],
        }
        for user_id in (1, 2)
    }


async def test_the_copy_reads_back_the_same_and_leaves_the_source_untouched(source, pg_url):
    before, files = digest(source), sorted(os.listdir(source.parent))
    counts = await copy_sqlite_to_postgres(source, pg_url, also_migrate=migrate_transport)
    assert list(counts) == ["users", "messages", "facts", "fact_history", "fact_relations", "topics", "usage",
                           "forgotten", "reminders", "members", "memory_events", "transport_version", "inbox",
                           "send_budget"]
    assert all(lite == pg for lite, pg in counts.values()) and counts["messages"] == (12, 12)
    assert counts["fact_history"] == (1, 1) and counts["usage"][0] == 14
    assert digest(source) == before and sorted(os.listdir(source.parent)) == files

    lite, pg = await Store.open(source), await Store.open(pg_url)
    try:
        expected, copied = await read_back(lite), await read_back(pg)
        assert copied == expected
        assert copied[1]["vectors"][0][1] == VECTOR and {c for _, _, c, _ in copied[1]["facts"]} == {0.91, 0.33}
        assert copied[1]["history"] == [("Moscow", T0, T0 + 5 * H)]
        assert copied[1]["settings"] == {"proactive": False}
        inbox = TransportStore(pg.backend)
        assert await inbox.unhandled_updates() == ['{"update_id": 901}'] and await inbox.was_handled(900)
        assert await fetch(pg, "SELECT voice_seconds FROM usage WHERE voice_seconds > 0") == [(12.5,)]
        highest = (await fetch(pg, "SELECT MAX(id) FROM messages"))[0][0]
        new = await turn(pg, 3, "first on PostgreSQL", T0 + 10 * H)  # the sequences start past the copied ids
        assert new.message_id > highest
        await pg.facts.save_facts(3, Extraction([Fact("location", "city", "Riga")]), T0 + 10 * H, 100)
        assert counts["reminders"] == (3, 3)
        assert [r.task for r in copied[2]["reminders"] if r] == ["позвонить маме", "купить хлеб"]
        pills = copied[1]["reminders"][0]
        assert (pills.chat_id, pills.asker, pills.due_at, pills.delivered_at) == (GROUP, "Аня", T0 + 25 * H, T0 + H)
        later = await pg.reminders.add_reminder(3, 3, "first on PostgreSQL", T0 + 20 * H, None, "Europe/Riga",
                                                T0 + 10 * H)
        assert later is not None and later.id == 4  # past the copied ids
    finally:
        await lite.close()
        await pg.close()


async def test_a_database_in_use_is_read_with_its_write_ahead_log(source, pg_url):
    running = await Store.open(source)  # as if the bot were running: its last turn is still only in bot.db-wal
    try:
        await turn(running, 1, "not yet checkpointed", T0 + 9 * H)
        assert Path(f"{source}-wal").stat().st_size > 0
        counts = await copy_sqlite_to_postgres(source, pg_url, also_migrate=migrate_transport)
    finally:
        await running.close()
    assert counts["messages"] == (13, 13)


async def test_a_second_run_copies_nothing_new_and_counts_still_match(source, pg_url):
    first = await copy_sqlite_to_postgres(source, pg_url, also_migrate=migrate_transport)
    again = await copy_sqlite_to_postgres(source, pg_url, also_migrate=migrate_transport)
    assert again == first
    store = await Store.open(pg_url)
    try:
        assert len((await store.accounts.export_user(1))["messages"]) == 6
    finally:
        await store.close()


async def test_rows_the_target_already_held_show_as_a_mismatch(source, pg_url):
    store = await Store.open(pg_url)
    await turn(store, 77, "someone else", T0)
    await store.close()
    counts = await copy_sqlite_to_postgres(source, pg_url, also_migrate=migrate_transport)
    assert counts["users"] == (2, 3) and counts["facts"] == (2, 2)
    # Its message took id 1, so the source's message 1 was skipped as "already there": only users tell.
    assert counts["messages"] == (12, 12)


async def test_an_old_schema_or_a_table_postgresql_lacks_is_refused(source, pg_url, tmp_path):
    old = tmp_path / "old.db"
    sqlite3.connect(old).execute("PRAGMA user_version = 3").connection.close()
    with pytest.raises(CopyError, match="start the bot once on it"):
        await copy_sqlite_to_postgres(old, pg_url, also_migrate=migrate_transport)
    extra = tmp_path / "extra.db"
    with sqlite3.connect(source) as db, sqlite3.connect(extra) as copy:
        db.backup(copy)
        copy.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    with pytest.raises(CopyError, match="table notes"):
        await copy_sqlite_to_postgres(extra, pg_url, also_migrate=migrate_transport)


def cli(database: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATABASE_PATH")}
    env.update(TELEGRAM_BOT_TOKEN="123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ", OPENAI_API_KEY="sk-x",
               DATABASE_PATH=str(database))
    return subprocess.run([sys.executable, str(ROOT / "bot.py"), "copy-db", *args], cwd=database.parent.parent,
                          env=env, capture_output=True, text=True, timeout=scaled(60))


async def test_the_command_prints_each_table_and_says_the_counts_match(source, pg_url):
    done = cli(source, "--to", pg_url)
    assert done.returncode == 0, done.stderr
    assert "users: 2 → 2" in done.stdout and "messages: 12 → 12" in done.stdout
    assert done.stdout.strip().splitlines()[-1].endswith("rows copied, counts match")
    store = await Store.open(pg_url)
    await turn(store, 77, "someone else", T0)
    await store.close()
    mismatch = cli(source, f"--to={pg_url}")
    assert mismatch.returncode == 1 and "users" in mismatch.stderr and "messages" in mismatch.stderr


@pytest.mark.parametrize("target", ["sqlite:///x.db", "postgresql://copier:s3cret-pw@127.0.0.1:1/companion"])
def test_a_bad_or_unreachable_target_is_one_line_without_the_password(source, target):
    before = digest(source)
    done = cli(source, "--to", target)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: ") and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and "s3cret-pw" not in done.stderr
    assert digest(source) == before


def test_a_missing_source_is_one_line(tmp_path):
    done = cli(tmp_path / "data" / "none.db", "--to", "postgresql://localhost/companion")
    assert done.returncode == 2 and done.stderr.startswith("error: no SQLite database at")
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "data" / "none.db").exists()


async def test_a_members_memory_in_a_group_and_memorys_record_are_copied(tmp_path, pg_url):
    path = tmp_path / "bot.db"
    store = await Store.open(path)
    member = await store.scopes.member_key(1, GROUP, "Аня и друзья", T0)
    await turn(store, member, "in the group", T0, update_id=950)
    await store.facts.save_facts(member, Extraction([Fact("pets", "pet:kesha", "parrot Kesha")]), T0, 100)
    await store.close()
    counts = await copy_sqlite_to_postgres(path, pg_url, also_migrate=migrate_transport)
    assert counts["members"] == (1, 1) and counts["memory_events"] == (1, 1)
    pg = await Store.open(pg_url)
    try:
        assert [(m.key, m.chat_id, m.title) for m in await pg.scopes.memberships(1)] == [(member, GROUP,
                                                                                          "Аня и друзья")]
        assert [fact.value for fact in await pg.facts.facts(member)] == ["parrot Kesha"]
        await pg.facts.save_facts(member, Extraction([Fact("pets", "pet:gosha", "parrot Gosha")]), T0, 100)
        assert await fetch(pg, "SELECT COUNT(*) FROM memory_events") == [(2,)]  # its ids start past the copied
    finally:
        await pg.close()
