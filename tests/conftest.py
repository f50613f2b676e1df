import os

import hypothesis
import openai
import pytest

# bot.py opts in to python-telegram-bot's timedelta durations; tests that import the
# Application without bot.py's start-up need the same, or PTB warns (and warnings are errors).
os.environ.setdefault("PTB_TIMEDELTA", "true")

from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.timeouts import SCALE  # noqa: E402

# Hypothesis: no per-example deadline anywhere (several tests share two cores; pytest-timeout bounds a test), and
# in CI the same examples on every run, so a red build is the code's doing and reproduces. A test's own
# @settings (max_examples, …) still wins over the profile. HYPOTHESIS_PROFILE picks one by hand.
hypothesis.settings.register_profile("dev", deadline=None, print_blob=True)
hypothesis.settings.register_profile(
    "ci", deadline=None, derandomize=True, database=None, max_examples=100, print_blob=True
)
ON_CI = os.environ.get("CI", "").lower() in ("true", "1")
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if ON_CI else "dev"))


# Under pytest-xdist (`python3 dev.py test` runs it): the modules with the longest tests start first, so that no
# worker begins one near the end. (The real model server's tests take a lock instead of sharing one worker:
# tests/test_real_server.py.)
LONGEST_FIRST = (
    "tests/test_real_server.py", "tests/test_hostile_input.py", "tests/test_crash.py", "tests/test_process.py",
    "tests/test_scale_out.py", "tests/test_prefilter_property.py", "tests/test_crash_proactive.py",
    "tests/test_crash_reminders.py", "tests/test_e2e_outage.py", "tests/test_copying.py", "tests/test_rules_golden.py",
)


# Workers yield the CPU to the real model server (tests/real_server), the one process whose speed a test measures.
WORKER_NICENESS = 5


def pytest_configure(config):
    """On an xdist worker: a lower priority for it and all it starts, but the real model server."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        os.nice(WORKER_NICENESS)


def pytest_collection_modifyitems(config, items):
    """On an xdist worker, LONGEST_FIRST's modules first, in that order (run alone, the order is the files')."""
    if "PYTEST_XDIST_WORKER" in os.environ:
        rank = {module: place for place, module in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item, settings):
    """pytest-timeout's limit (pyproject.toml's, --timeout's or a test's mark) stretched by TEST_TIMEOUT_SCALE."""
    if SCALE == 1:
        return None  # pytest-timeout's own hook sets it as it is
    import pytest_timeout

    return pytest_timeout.pytest_timeout_set_timer(item, settings._replace(timeout=settings.timeout * SCALE))


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


@pytest.fixture
async def client(model):
    """The openai SDK's client on the OpenAI double, without the SDK's own retries (a module may have its own)."""
    sdk = openai.AsyncOpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0)
    yield sdk
    await sdk.close()


# PostgreSQL: one throwaway server per session (or TEST_DATABASE_URL), a fresh schema per test.
def _pg_unavailable(reason: str):
    message = f"PostgreSQL is not available: {reason}"
    if ON_CI:
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
    from memory.store.memory_store import Store

    opened = await Store.open(database)
    yield opened
    await opened.close()


async def fetch(store, sql: str, params=()) -> list[tuple]:
    """Run raw SQL (with ? placeholders) on a store of either backend; for tests that look under the hood."""
    async with store.backend.session() as db:
        return [tuple(row) for row in await db.execute_fetchall(sql, params)]



def pytest_terminal_summary(terminalreporter):
    """One line for the crash test's passed runs together (each records its tally; xdist brings them back)."""
    totals: dict[str, int] = {}
    for report in terminalreporter.stats.get("passed", []):
        for name, value in getattr(report, "user_properties", []) if report.when == "call" else []:
            if name.startswith("sigkills: "):
                key = name.removeprefix("sigkills: ")
                totals[key] = totals.get(key, 0) + value
    if totals:
        terminalreporter.write_line(
            f"crash test: {totals['messages']} messages, {totals['kills']} SIGKILLs, all answered; {totals['in doubt']}"
            f" answers left in doubt by a kill right after sending, {totals['sent again']} sent again"
        )


@pytest.fixture
async def servers():
    """The network tests' local servers (tests/network_servers.py): start those a test makes
    (`await servers(ScriptedServer(...))`); close them all at its end."""
    started = []

    async def start(server):
        started.append(await server.start())
        return server

    yield start
    for server in started:
        await server.close()
