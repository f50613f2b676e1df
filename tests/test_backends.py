"""The two backends under Store: placeholders, the per-user lock, the poller lock, claims on background work,
the inbox's order per user, DATABASE_URL, where SQLite's scripts run, and its checkpoints."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest
from telegram import Bot, Update

from config import ConfigError, load_config
from memory.facts import Extraction, Fact
from memory.store import sqlite_backend
from memory.store.memory_store import Store
from memory.store.postgres_backend import Done, PostgresSession, postgres_sql
from memory.store.sqlite_backend import AUTOCHECKPOINT_FRAMES, checkpoint
from tests.timeouts import scaled
from transport.inbox import update_key
from transport.ordering import ordering_key
from transport.transport_store import TransportStore

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
MINUTE = timedelta(minutes=1)
TOKEN = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# ----- pure -----

@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1", "SELECT 1"),
        ("SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = $1 AND b = $2"),
        ("VALUES (?, ?, ?4, ?5) SET x = ?4", "VALUES ($1, $2, $4, $5) SET x = $4"),
        ("json_set(s, '$.' || ?4)", "json_set(s, '$.' || $4)"),
    ],
)
def test_placeholders_become_numbered(sql, expected):
    assert postgres_sql(sql) == expected


@pytest.mark.parametrize(("status", "count"), [("UPDATE 3", 3), ("INSERT 0 1", 1), ("DELETE 0", 0), ("BEGIN", 0)])
async def test_a_statements_status_gives_its_rowcount(status, count):
    class Connection:
        async def execute(self, *_args):
            return status

    assert await PostgresSession(Connection()).execute("UPDATE t SET a = ?", (1,)) == Done(count)


USER = {"id": 7, "is_bot": False, "first_name": "Ann"}
CHAT = {"id": -100, "type": "supergroup", "title": "G"}


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"update_id": 1, "message": {"message_id": 1, "date": 1, "chat": CHAT, "from": USER, "text": "hi"}}, 7),
        ({"update_id": 1, "edited_message": {"message_id": 1, "date": 1, "edit_date": 2, "chat": CHAT,
                                             "from": USER, "text": "hi"}}, 7),
        ({"update_id": 1, "callback_query": {"id": "q", "from": USER, "chat_instance": "c", "data": "x"}}, 7),
        ({"update_id": 1, "channel_post": {"message_id": 1, "date": 1, "chat": CHAT, "text": "news"}}, -100),
        ({"update_id": 1, "my_chat_member": {"chat": CHAT, "from": USER, "date": 1,
                                             "old_chat_member": {"status": "member", "user": USER},
                                             "new_chat_member": {"status": "kicked", "user": USER,
                                                                 "until_date": 0}}}, 7),
        ({"update_id": 1, "poll_answer": {"poll_id": "p", "user": USER, "option_ids": [0],
                                          "option_persistent_ids": ["a"]}}, 7),
    ],
)
def test_the_inbox_keys_an_update_as_the_processor_orders_it(data, key):
    assert update_key(data) == key == ordering_key(Update.de_json(data, Bot(TOKEN)))


def test_an_update_with_nobody_in_it_has_no_key():
    assert update_key({"update_id": 1}) is None and update_key({"update_id": 1, "poll": {"id": "p"}}) is None


def test_database_url_selects_postgresql_and_is_never_shown_with_its_password():
    base = {"TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-x"}
    config = load_config({**base, "DATABASE_URL": "postgresql://bot:hunter2@db.internal:5432/companion"})
    assert config.database == "postgresql://bot:hunter2@db.internal:5432/companion"
    assert config.database_name == "DATABASE_URL=postgresql://bot:***@db.internal:5432/companion"
    assert "hunter2" not in config.database_name
    plain = load_config(base)
    assert str(plain.database) == "data/bot.db" and plain.database_name == "DATABASE_PATH=data/bot.db"
    for bad in ("mysql://x", "data/bot.db", "postgresql://"):
        with pytest.raises(ConfigError, match="DATABASE_URL"):
            load_config({**base, "DATABASE_URL": bad})


# ----- on both backends -----

async def talk(store: Store, user_id: int, at=T0, update_id=None, checkin_after=MINUTE):
    return await store.turns.begin_turn(user_id=user_id, first_name="A", language_code="en", text="hi", now=at,
                                  update_id=update_id, history_limit=20, checkin_at=at + checkin_after)


async def test_an_extraction_pass_is_taken_by_one_machine_until_released_or_expired(store):
    await talk(store, 1)
    assert await store.claims.claim_extraction(1, T0, T0 + 15 * MINUTE)
    assert not await store.claims.claim_extraction(1, T0 + MINUTE, T0 + 16 * MINUTE)  # another machine
    assert await store.claims.claim_extraction(1, T0 + 15 * MINUTE + MINUTE, T0 + 30 * MINUTE)  # expired
    await store.claims.release_extraction(1)
    assert await store.claims.claim_extraction(1, T0 + 17 * MINUTE, T0 + 30 * MINUTE)
    await store.claims.release_extraction(1, T0 + 40 * MINUTE)  # failed: nobody before the retry time
    assert not await store.claims.claim_extraction(1, T0 + 39 * MINUTE, T0 + 50 * MINUTE)
    assert not await store.claims.claim_extraction(2, T0, T0 + MINUTE)  # nobody of that id


async def test_a_due_item_is_taken_once_and_moving_it_frees_it(store):
    await talk(store, 1)
    await store.facts.save_facts(1, Extraction([Fact("plans", "plan:exam", "exam", when="2026-12-01")]), T0, 100,
                           plan=lambda _fact: T0 + MINUTE)
    checkin, followup = sorted(await store.outreach.due_items(T0 + 2 * MINUTE, 10), key=lambda item: item.kind)
    for item in (checkin, followup):
        assert await store.claims.take_item(item, T0 + 2 * MINUTE, T0 + 12 * MINUTE)
        assert not await store.claims.take_item(item, T0 + 3 * MINUTE, T0 + 13 * MINUTE)
    await store.outreach.move_items([(checkin, T0 + 30 * MINUTE)])
    [moved] = [item for item in await store.outreach.due_items(T0 + 31 * MINUTE, 10) if item.kind == "checkin"]
    assert await store.claims.take_item(moved, T0 + 31 * MINUTE, T0 + 41 * MINUTE)
    assert not await store.claims.take_item(checkin, T0 + 31 * MINUTE, T0 + 41 * MINUTE)  # no longer due as read


async def test_earlier_unhandled_updates_are_the_users_own_in_order(store):
    inbox = await TransportStore.open(store.backend)
    await inbox.record_updates([(5, '{"update_id": 5}', 1), (3, '{"update_id": 3}', 1),
                                (4, '{"update_id": 4}', 2), (6, '{"update_id": 6}', 1)], T0)
    await inbox.mark_handled(3, T0)
    assert await inbox.earlier_unhandled(1, 6) == (['{"update_id": 5}'], False)
    assert await inbox.earlier_unhandled(1, 5) == ([], False)
    assert await inbox.earlier_unhandled(2, 9) == (['{"update_id": 4}'], False)
    assert await inbox.earlier_unhandled(1, 3) == ([], True)  # and whether the update itself was handled
    assert await inbox.earlier_unhandled(2, 6) == (['{"update_id": 4}'], False)  # 6 is user 1's, not yet handled
    assert await inbox.unhandled_updates(T0) == []  # none came before T0
    assert len(await inbox.unhandled_updates(T0 + MINUTE)) == 3


# ----- PostgreSQL only -----

async def test_one_users_turns_wait_for_each_other_and_other_users_do_not(pg_url):
    first, second = await Store.open(pg_url), await Store.open(pg_url)  # two machines
    order: list[str] = []

    async def turn(store: Store, key: int, name: str, hold: float) -> None:
        async with TransportStore(store.backend).user_turn(key):
            order.append(f"{name} in")
            await asyncio.sleep(hold)
            order.append(f"{name} out")

    try:
        await asyncio.gather(turn(first, 7, "a", 0.3), asyncio.sleep(0.05))
        await asyncio.gather(turn(first, 7, "a", 0.3), turn(second, 7, "b", 0.0), turn(second, 8, "c", 0.0))
    finally:
        await first.close()
        await second.close()
    later = order[2:]
    assert later.index("a out") < later.index("b in")  # same user: after
    assert later.index("c out") < later.index("a out")  # another user: meanwhile


async def test_only_one_process_may_poll_and_the_lock_goes_with_it(pg_url):
    first, second = await Store.open(pg_url), await Store.open(pg_url)
    try:
        assert await TransportStore(first.backend).take_poller_lock()
        assert not await TransportStore(second.backend).take_poller_lock()
        await first.close()
        assert await TransportStore(second.backend).take_poller_lock()
    finally:
        await second.close()


async def test_a_pooled_connection_goes_back_without_a_reset_round_trip_and_an_open_transaction_is_undone(pg_url):
    store = await Store.open(pg_url)
    try:
        async with store.backend.session() as db:
            pid = (await db.execute_fetchall("SELECT pg_backend_pid()"))[0][0]
            await db.execute_fetchall("SELECT 'the last statement' AS marker")
        import asyncpg

        other = await asyncpg.connect(pg_url)  # another machine looks at what that connection last ran
        try:
            last = [tuple(row) for row in await other.fetch("SELECT query FROM pg_stat_activity WHERE pid = $1", pid)]
        finally:
            await other.close()
        assert last == [("SELECT 'the last statement' AS marker",)]  # asyncpg's default would have sent RESET ALL
        connection = await store.backend.pool.acquire()
        await connection.execute("BEGIN")
        await connection.execute("INSERT INTO users (id, first_seen, last_seen) VALUES (9, 'a', 'a')")
        await store.backend.pool.release(connection)  # a transaction left open goes back rolled back
        async with store.backend.session() as db:
            assert await db.execute_fetchall("SELECT id FROM users WHERE id = 9") == []
    finally:
        await store.close()


async def test_two_machines_merging_into_one_users_memory_at_once_both_succeed(database):
    machines = [await Store.open(database), await Store.open(database)]
    try:
        await talk(machines[0], 1)
        cities = ["Oslo", "Bergen", "Tromsø", "Kazan", "Perm", "Omsk"]
        await asyncio.gather(*(
            machines[number % 2].facts.save_facts(1, Extraction([Fact("location", "city", city)]), T0, 100)
            for number, city in enumerate(cities)
        ))
        [city] = await machines[1].facts.facts(1)
        assert city.value in cities
        assert len(await machines[0].facts.fact_history(1, "city")) == len(cities) - 1
    finally:
        for machine in machines:
            await machine.close()


def counting_script(log: list):
    """A script of three statements whose rows it records: the second sees the first's write."""
    log.append((yield "CREATE TEMP TABLE IF NOT EXISTS t (x INTEGER)", ()))
    log.append((yield "INSERT INTO t (x) VALUES (?), (?)", (1, 2)))
    rows = yield "SELECT SUM(x) FROM t", ()
    return rows[0][0]


async def test_a_script_runs_its_statements_in_order_and_returns_its_result(store):
    seen: list = []
    assert await store.backend.run(counting_script(seen)) == 3
    assert seen == [[], []]


def in_the_thread(store: Store) -> list[str]:
    """Return the list each statement that the store's SQLite connection runs outside the loop's thread (in
    aiosqlite's) is appended to, from now on (SQLite's trace callback runs in the thread that runs the statement)."""
    loop_thread = threading.get_ident()
    elsewhere: list[str] = []

    def seen(sql: str) -> None:
        if threading.get_ident() != loop_thread:
            elsewhere.append(sql)

    store.backend.raw.set_trace_callback(seen)
    return elsewhere


async def test_a_script_on_sqlite_runs_at_once_without_a_trip_to_its_thread(tmp_path):
    store = await Store.open(tmp_path / "trips.db")
    trips = in_the_thread(store)
    try:
        assert await store.backend.run(counting_script([])) == 3
        turn = await store.turns.begin_turn(user_id=1, first_name="A", language_code="en", text="hi", now=T0,
                                      update_id=7, history_limit=20)
        await store.turns.add_reply(1, "hello", T0, 20, reply_to=turn.message_id, tokens=12)
        assert trips == []  # a turn's start and its reply ran in the loop's thread
        # and committed: aiosqlite's thread, through its own public call, sees them
        rows = await store.backend.connection.execute_fetchall("SELECT content FROM messages ORDER BY id")
        assert [row[0] for row in rows] == ["hi", "hello"]
        assert trips == ["SELECT content FROM messages ORDER BY id"]
    finally:
        await store.close()


async def test_a_failing_statement_fails_the_script_and_the_store_goes_on(store):
    def broken():
        yield "INSERT INTO users (id, first_seen, last_seen) VALUES (5, '2026-12-01', '2026-12-01')", ()
        yield "SELECT no_such_column FROM users", ()

    with pytest.raises(Exception, match="no_such_column"):
        await store.backend.run(broken())
    turn = await store.turns.begin_turn(user_id=1, first_name="A", language_code="en", text="hi", now=T0,
                                  update_id=8, history_limit=20)
    assert [message["content"] for message in turn.history] == ["hi"]
    # On SQLite, where a script is one transaction, its first write went with it.
    async with store.backend.session() as db:
        assert len(await db.execute_fetchall("SELECT id FROM users WHERE id = 5")) == store.on_postgres


async def test_while_another_connection_writes_a_script_waits_in_the_thread_not_in_the_loop(tmp_path):
    store = await Store.open(tmp_path / "busy.db")
    trips = in_the_thread(store)
    other = sqlite3.connect(tmp_path / "busy.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # a backup tool, or a second process by mistake, writing
        asyncio.get_running_loop().call_later(0.3, other.execute, "COMMIT")  # only the loop can end it
        started = time.monotonic()
        turn = await store.turns.begin_turn(user_id=1, first_name="A", language_code="en", text="hi", now=T0,
                                      update_id=9, history_limit=20)
        assert 0.25 < time.monotonic() - started < 4  # it waited for the other writer, and the loop ran meanwhile
        assert trips == ["BEGIN IMMEDIATE"]  # only the wait went to aiosqlite's thread; the statements ran here
        assert [message["content"] for message in turn.history] == ["hi"]
        assert await store.backend.run(counting_script([])) == 3
        assert trips == ["BEGIN IMMEDIATE"]  # the file is free again: at once
    finally:
        other.close()
        await store.close()


async def test_sessions_and_transactions_on_sqlite_run_in_the_loops_thread(tmp_path):
    store = await Store.open(tmp_path / "inline.db")
    trips = in_the_thread(store)
    try:
        async with store.backend.transaction() as db:
            await db.execute("INSERT INTO users (id, first_seen, last_seen) VALUES (5, '2026-12-01', '2026-12-01')")
            assert (await db.execute("UPDATE users SET name = 'A' WHERE id = 5")).rowcount == 1
        async with store.backend.session() as db:
            assert await db.execute_fetchall("SELECT name FROM users WHERE id = 5") == [("A",)]
        with pytest.raises(sqlite3.IntegrityError):
            async with store.backend.transaction() as db:
                await db.execute("UPDATE users SET name = 'B' WHERE id = 5")
                await db.execute("INSERT INTO users (id, first_seen, last_seen) VALUES (5, 'x', 'x')")
        async with store.backend.session() as db:  # the failed transaction left nothing behind
            assert await db.execute_fetchall("SELECT name FROM users WHERE id = 5") == [("A",)]
        assert trips == []
    finally:
        await store.close()


async def test_while_another_connection_writes_a_transaction_and_a_statement_wait_in_the_thread(tmp_path):
    store = await Store.open(tmp_path / "busy.db")
    trips = in_the_thread(store)
    other = sqlite3.connect(tmp_path / "busy.db", isolation_level=None)
    ticks = 0

    async def ticking() -> None:  # the loop goes on while the store waits
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(ticking())
    try:
        for write in ("transaction", "session"):
            other.execute("BEGIN IMMEDIATE")
            asyncio.get_running_loop().call_later(0.3, other.execute, "COMMIT")
            started, ticks = time.monotonic(), 0
            if write == "transaction":
                async with store.backend.transaction() as db:
                    await db.execute("INSERT INTO users (id, first_seen, last_seen) VALUES (6, 'x', 'x')")
            else:
                async with store.backend.session() as db:
                    await db.execute("UPDATE users SET name = 'C' WHERE id = 6")
            assert 0.25 < time.monotonic() - started < 4 and ticks >= 10
        assert trips == ["BEGIN IMMEDIATE", "BEGIN IMMEDIATE"]  # the transaction's, then the UPDATE's own, waited there
        async with store.backend.session() as db:
            assert await db.execute_fetchall("SELECT name FROM users WHERE id = 6") == [("C",)]
            assert await db.execute_fetchall("PRAGMA busy_timeout") == [(0,)]  # back to never waiting
    finally:
        ticker.cancel()
        other.close()
        await store.close()


async def test_a_wait_for_another_writer_that_times_out_fails_the_script_and_the_store_goes_on(tmp_path,
                                                                                             monkeypatch):
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_MS", 200)
    store = await Store.open(tmp_path / "stuck.db")
    other = sqlite3.connect(tmp_path / "stuck.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # never ends in time
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            await store.backend.run(counting_script([]))
        other.execute("COMMIT")
        assert not store.backend.raw.in_transaction
        assert await store.backend.run(counting_script([])) == 3
        async with store.backend.session() as db:
            assert await db.execute_fetchall("PRAGMA busy_timeout") == [(0,)]
    finally:
        other.close()
        await store.close()


async def test_a_script_cancelled_while_it_waits_for_another_writer_leaves_no_transaction_open(tmp_path):
    store = await Store.open(tmp_path / "cancel.db")
    other = sqlite3.connect(tmp_path / "cancel.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        waiting = asyncio.create_task(store.backend.run(counting_script([])))
        await asyncio.sleep(0.1)  # it waits in aiosqlite's thread now
        asyncio.get_running_loop().call_later(0.2, other.execute, "COMMIT")  # the thread's BEGIN then goes through
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert not store.backend.raw.in_transaction  # what the thread began was rolled back
        assert await store.backend.run(counting_script([])) == 3
    finally:
        other.close()
        await store.close()


async def test_scripts_that_arrive_while_the_connection_is_busy_run_in_order_each_with_its_own_outcome(tmp_path):
    store = await Store.open(tmp_path / "batch.db")
    trips = in_the_thread(store)
    release = asyncio.Event()

    async def busy() -> None:  # a query of the store's own holding the connection while the turns arrive
        async with store.backend.session():
            await release.wait()

    def broken():
        yield "SELECT no_such_column FROM users", ()

    try:
        holder = asyncio.create_task(busy())
        await asyncio.sleep(0)
        turns = [asyncio.create_task(store.turns.begin_turn(
            user_id=user, first_name="A", language_code="en", text=f"hi {user}", now=T0, update_id=100 + user,
            history_limit=20)) for user in range(1, 51)]
        turns.insert(25, asyncio.create_task(store.backend.run(broken())))
        await asyncio.sleep(0.05)
        assert not any(turn.done() for turn in turns)  # they wait for the connection
        release.set()
        outcomes = await asyncio.gather(*turns, return_exceptions=True)
        await holder
        assert trips == []  # each ran in the loop's thread, in a transaction of its own
        assert "no_such_column" in str(outcomes[25])
        started = [outcome for index, outcome in enumerate(outcomes) if index != 25]
        assert [turn.history[-1]["content"] for turn in started] == [f"hi {user}" for user in range(1, 51)]
        assert [turn.message_id for turn in started] == sorted(turn.message_id for turn in started)  # as they came
    finally:
        await store.close()


async def test_a_script_on_a_closed_store_fails_and_never_hangs(tmp_path):
    store = await Store.open(tmp_path / "closed.db")
    await store.close()
    with pytest.raises(ValueError, match="connection"):
        await asyncio.wait_for(store.backend.run(counting_script([])), scaled(5))


def test_a_checkpoint_copies_the_log_and_restarts_a_long_one(tmp_path):
    path = str(tmp_path / "log.db")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("CREATE TABLE t (x TEXT)")
    other = sqlite3.connect(path, isolation_level=None)
    statements: list[str] = []
    other.set_trace_callback(statements.append)
    try:
        for _ in range(20):
            writer.execute("INSERT INTO t VALUES (?)", ("x" * 5000,))
        busy, frames, copied = checkpoint(other, wait_frames=10_000)
        assert busy == 0 and frames == copied >= 20  # all of it copied, without waiting for anyone
        assert statements == ["PRAGMA wal_checkpoint(PASSIVE)"]
        checkpoint(other, wait_frames=frames)  # a log this long: copied, then started over
        assert statements[1:] == ["PRAGMA wal_checkpoint(PASSIVE)", "PRAGMA wal_checkpoint(RESTART)"]
    finally:
        other.close()
        writer.close()


async def test_the_log_is_checkpointed_in_a_thread_not_inside_a_commit(tmp_path, monkeypatch):
    runs: list[tuple[int, tuple[int, int, int]]] = []
    real = sqlite_backend.checkpoint_file

    def recorded(path):
        answer = real(path)
        runs.append((threading.get_ident(), answer))
        return answer

    monkeypatch.setattr(sqlite_backend, "checkpoint_file", recorded)
    store = await Store.open(tmp_path / "log.db")
    try:
        async with store.backend.session() as db:  # SQLite's own checkpoint, inside a commit, only for a runaway log
            assert (await db.execute_fetchall("PRAGMA wal_autocheckpoint"))[0][0] == AUTOCHECKPOINT_FRAMES > 1000
        for update_id in range(sqlite_backend.CHECKPOINT_EVERY):
            await store.turns.begin_turn(user_id=1, first_name="A", language_code="en", text="hi", now=T0,
                                   update_id=update_id, history_limit=20)
        await store.backend._checkpoint
        [(thread, (busy, frames, copied))] = runs
        assert thread != threading.get_ident()
        assert busy == 0 and frames == copied > 0
    finally:
        await store.close()
    assert not (tmp_path / "log.db-wal").exists()  # the last connection to close took the log with it
