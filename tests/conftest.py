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


# PostgreSQL: one throwaway server per session (or TEST_DATABASE_URL), a fresh schema per test.
def _pg_unavailable(reason: str):
    message = f"PostgreSQL is not available: {reason}"
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def pg_server():
    """The URL of a PostgreSQL server: TEST_DATABASE_URL, or one started for this session."""
    from tests import pg

    if os.environ.get("TEST_DATABASE_URL"):
        yield os.environ["TEST_DATABASE_URL"]
        return
    try:
        server, reason = pg.start_server(), ""
    except (pg.Unavailable, OSError) as e:
        server, reason = None, str(e)
    if server is None:
        _pg_unavailable(reason)
    yield server.url
    server.stop()


@pytest.fixture
async def pg_url(pg_server):
    """A URL into pg_server whose search_path is a fresh schema, dropped after the test."""
    from tests import pg

    try:
        schema, reason = await pg.create_schema(pg_server), ""
    except pg.Unavailable as e:
        schema, reason = "", str(e)
    if not schema:
        _pg_unavailable(reason)
    yield pg.with_search_path(pg_server, schema)
    await pg.drop_schema(pg_server, schema)


# Every store test runs on both backends: a SQLite file, and a fresh schema in PostgreSQL.
@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    """Where a store lives: a SQLite path, or a postgresql:// URL into a fresh schema."""
    if request.param == "sqlite":
        return tmp_path / "bot.db"
    return request.getfixturevalue("pg_url")


@pytest.fixture
async def store(database):
    """A migrated Store on `database`, closed after the test."""
    from memory.store.store import Store

    opened = await Store.open(database)
    yield opened
    await opened.close()


async def fetch(store, sql: str, params=()) -> list[tuple]:
    """Run raw SQL (with ? placeholders) on a store of either backend; for tests that look under the hood."""
    async with store._session() as db:
        return [tuple(row) for row in await db.execute_fetchall(sql, params)]
