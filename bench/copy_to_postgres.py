"""How long `python bot.py copy-db` takes: a SQLite database built through the Store, copied into PostgreSQL.

    .venv/bin/python bench/copy_to_postgres.py            # 100 users x 100 messages, 20 facts each with a vector
    .venv/bin/python bench/copy_to_postgres.py --users 10  # smaller

PostgreSQL is a throwaway loopback server from tests/pg.py (fsync off); the copy is timed twice: the first
fills it, the second finds every row there (a re-run copies nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.facts import Extraction, Fact  # noqa: E402
from memory.store.copying import copy_sqlite_to_postgres  # noqa: E402
from memory.store.memory_store import Store  # noqa: E402
from tests import pg  # noqa: E402
from transport.transport_migrations import migrate_transport  # noqa: E402

T0 = datetime(2026, 12, 1, tzinfo=timezone.utc)
VECTOR = bytes(1536)  # 384 float32, the size of a local model's vector


async def build(path: Path, users: int, messages: int, facts: int) -> None:
    store = await Store.open(path)
    for user_id in range(1, users + 1):
        for number in range(messages // 2):
            at = T0 + timedelta(minutes=number)
            turn = await store.turns.begin_turn(user_id=user_id, first_name="U", language_code="en",
                                          text=f"message {number}", now=at, update_id=None, history_limit=10_000)
            await store.turns.add_reply(user_id, f"reply {number}", at, 10_000, reply_to=turn.message_id)
        found = [Fact("interests", f"hobby:{number}", f"hobby {number}") for number in range(facts)]
        saved = await store.facts.save_facts(user_id, Extraction(found), T0, 1_000)
        await store.facts.save_embeddings(user_id, "bench", [(fact.id, VECTOR, 384) for fact in saved])
    await store.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--messages", type=int, default=100, help="per user, replies included")
    parser.add_argument("--facts", type=int, default=20, help="per user, each with a vector")
    args = parser.parse_args()
    server = pg.start_server()
    try:
        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / "bot.db"
            await build(source, args.users, args.messages, args.facts)
            schema = await pg.create_schema(server.url)
            target = pg.with_search_path(server.url, schema)
            for attempt in ("first copy", "re-run"):
                started = time.perf_counter()
                counts = await copy_sqlite_to_postgres(source, target, also_migrate=migrate_transport)
                seconds = time.perf_counter() - started
                rows = sum(source_rows for source_rows, _ in counts.values())
                same = all(source_rows == copied for source_rows, copied in counts.values())
                print(f"{attempt}: {rows:,} rows in {seconds:.2f} s, counts match: {same}"
                      f" (messages {counts['messages'][0]:,}, facts {counts['facts'][0]:,})")
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
