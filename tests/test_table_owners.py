"""Each table of the database has one owner, and only the owner's modules touch it: read from the source's SQL.

Three owners share one database (memory/store/database.py): memory's Store (what is remembered), the usage meter
(memory/store/meter.py) and the transport (transport/transport_store.py, with its own migrations in
transport/transport_migrations.py). A module's SQL is every
string in it (f-strings too; docstrings aside); a table it names after FROM, JOIN, INTO, UPDATE or TABLE is one it
touches.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.test_layers import LAYERS, MODULES, ROOT, module_name, room

MEMORY = "memory.store"
METER = "memory.store.meter"
TRANSPORT = "transport"  # the package: its store and its migrations
TRANSPORT_MODULES = {"transport.transport_store", "transport.transport_migrations"}
DATABASE = "the database"  # the backends under every owner, with their own bookkeeping

OWNERS = {
    "users": MEMORY, "messages": MEMORY, "facts": MEMORY, "fact_history": MEMORY, "fact_relations": MEMORY,
    "topics": MEMORY, "forgotten": MEMORY, "reminders": MEMORY, "members": MEMORY, "memory_events": MEMORY,
    "usage": METER,
    "inbox": TRANSPORT, "send_budget": TRANSPORT, "transport_version": TRANSPORT,
    "schema_version": DATABASE,  # PostgreSQL's record of the migrations applied (SQLite's is PRAGMA user_version)
}
DATABASE_MODULES = {
    "memory.store.backends", "memory.store.database", "memory.store.scripts", "memory.store.sqlite_backend",
    "memory.store.postgres_backend",
}
# They create, migrate and copy every table.
EVERY_TABLE = {"memory.store.migrations", "memory.store.migrations_pg", "memory.store.copying"}
# Where a module touches a table it does not own, and why it must: each is a reason, not a convenience.
SHARED = {
    ("memory.store.turn_rows", "usage"): "a user's message is counted in the statement that stores it, and a "
    "reply's tokens with the reply: each exactly once, in the turn's one round trip",
    ("memory.store.account_rows", "usage"): "forget_user keeps what the user spent in the day's totals but no "
    "longer says whose, in the transaction that forgets them",
    ("memory.store.meter", "users"): "a charge `while_stored` goes to a user only while they are stored; /stats "
    "counts the users active",
    ("memory.store.meter", "facts"): "/stats counts the facts kept",
    ("memory.store.backends", "users"): "the Dialect holds the engine-specific fragments of memory's own queries",
    ("memory.store.backends", "topics"): "the Dialect holds the engine-specific fragments of memory's own queries",
}
# Inside memory's store, each repository (a subclass of memory/store/rows.py's Rows) touches only its own tables: the
# first its own, the rest each for a reason said beside it.
REPOSITORY_TABLES = {
    "memory.store.turn_rows": {"messages", "users",
                               "facts",  # a turn reads the user's facts with their session, in one round trip
                               "usage"},  # SHARED: a message is counted in the statement that stores it
    "memory.store.fact_rows": {"facts", "fact_history", "fact_relations",
                               "users",  # a "name" fact is the user's name too
                               "messages"},  # the messages an extraction pass has yet to read
    "memory.store.forget_rows": {"forgotten", "facts", "fact_history", "fact_relations", "topics", "users",
                                 "memory_events"},  # a forget removes facts and topic lines, kept for Undo
    "memory.store.outreach_rows": {"users", "messages",  # a message written first is stored in the session
                                   "facts"},  # follow-ups are due from facts; a city sets the clock
    "memory.store.topic_rows": {"topics"},
    "memory.store.claims": {"users", "facts"},  # claims on a user's upkeep, and on a fact's follow-up
    "memory.store.edit_rows": {"messages"},
    "memory.store.reminder_rows": {"reminders"},
    "memory.store.scope_rows": {"members", "users", "messages", "facts"},  # a member's memory is a user key of its own
    "memory.store.event_rows": {"memory_events"},
    "memory.store.user_rows": {"users", "messages"},  # /profile counts the user's messages
    # The one repository that spans memory's tables: /export reads them all, /forget deletes them all at once.
    # An import writes a user's row, session and facts (with their history) in one transaction; an export read
    # back writes every table the export read (account_rows), but the groups'.
    "memory.store.import_rows": {"users", "messages", "facts", "fact_history", "topics", "reminders",
                                 "memory_events"},
    "memory.store.account_rows": {"users", "messages", "facts", "fact_history", "topics", "reminders", "members",
                                  "memory_events", "usage"},
}
TOUCH = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+\"?([a-z_][a-z0-9_]*)")


def sql_texts(source: str) -> list[str]:
    """Return every string of `source` but its docstrings; an f-string with `{}` where its values go."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            texts.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            texts.append("".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values))
    return texts


def tables_touched(source: str) -> set[str]:
    """Return the bot's tables that the SQL of `source` names (names of no table, such as a CTE's, are left out)."""
    return {name for text in sql_texts(source) for name in TOUCH.findall(text)} & set(OWNERS)


def owner_of(module: str) -> str | None:
    """Return the owner a module belongs to, or None for one that may touch no table."""
    if module in DATABASE_MODULES:
        return DATABASE
    for owner in (METER, TRANSPORT, MEMORY):  # the narrowest first: the meter is inside memory/store/
        if module == owner or module.startswith(owner + "."):
            return owner
    return None


def our_sources() -> dict[str, str]:
    paths = [ROOT / "bot.py", ROOT / "config.py"]
    for folder in LAYERS:
        paths += sorted((ROOT / folder).rglob("*.py")) if (ROOT / folder).is_dir() else []
    return {module_name(path): path.read_text(encoding="utf-8") for path in paths}


TOUCHED = {module: tables for module, source in our_sources().items() if (tables := tables_touched(source))}


def created_tables() -> set[str]:
    found = set()
    for name in ("memory/store/migrations.py", "memory/store/migrations_pg.py", "transport/transport_migrations.py"):
        path = ROOT / name
        found |= set(re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", path.read_text(encoding="utf-8")))
    return found


def test_every_table_the_migrations_create_has_one_owner():
    assert created_tables() | {"schema_version"} == set(OWNERS)


@pytest.mark.parametrize("module", sorted(TOUCHED))
def test_a_module_touches_only_the_tables_its_owner_owns(module):
    if module in EVERY_TABLE:
        return
    strays = sorted(table for table in TOUCHED[module]
                    if OWNERS[table] != owner_of(module) and (module, table) not in SHARED)
    assert strays == [], f"{module} (owner: {owner_of(module)}) touches {strays}, owned by " + ", ".join(
        f"{table}: {OWNERS[table]}" for table in strays)


def test_every_shared_table_is_still_touched_where_it_says():
    stale = [pair for pair in SHARED if pair[1] not in TOUCHED.get(pair[0], set())]
    assert stale == [], f"no longer touched, drop them from SHARED: {stale}"


def test_the_inbox_and_the_send_budget_are_the_transports_alone():
    assert {module for module, tables in TOUCHED.items() if tables & {"inbox", "send_budget"}} - EVERY_TABLE == (
        TRANSPORT_MODULES)
    assert {module for module, tables in TOUCHED.items() if "usage" in tables} - EVERY_TABLE == {
        METER, *(module for module, table in SHARED if table == "usage")}


def test_the_transport_takes_only_the_shared_database_from_memorys_store():
    for module, deps in MODULES.items():
        if room(module) == "transport":
            taken = sorted(dep for dep in deps if dep.startswith(MEMORY + ".") and dep not in DATABASE_MODULES)
            assert taken == [], f"{module} imports memory's store itself: {taken}"


def test_the_reader_finds_tables_in_plain_and_formatted_sql_and_not_in_docstrings():
    source = '''
def f(d):
    """Reads FROM inbox, says the docstring, which does not count."""
    a = "SELECT x FROM users u JOIN facts f ON f.user_id = u.id"
    b = f"INSERT INTO usage (a) SELECT {d.x} FROM message"
    c = "UPDATE send_budget SET tokens = 1"
    e = "DELETE FROM topics WHERE " + "id = ?"
    g = "ON CONFLICT (id) DO UPDATE SET tokens = 2"
'''
    assert tables_touched(source) == {"users", "facts", "usage", "send_budget", "topics"}
    assert owner_of("memory.store.meter") == METER and owner_of("memory.store.fact_rows") == MEMORY
    assert owner_of("transport.transport_store") == TRANSPORT and owner_of("services.companion") is None
    assert owner_of("transport.transport_migrations") == TRANSPORT and owner_of("transportation") is None
    assert owner_of("memory.store.sqlite_backend") == DATABASE


def test_nothing_outside_the_owners_touches_a_table():
    assert {module for module in TOUCHED if owner_of(module) is None} == set()


def test_the_sources_are_where_the_owners_say():
    for module in (METER, *TRANSPORT_MODULES, *DATABASE_MODULES, *EVERY_TABLE):
        assert (ROOT / Path(*module.split("."))).with_suffix(".py").is_file(), module


def repository_modules() -> set[str]:
    """Return memory's store modules that define a subclass of Rows (memory/store/rows.py)."""
    found = set()
    for path in sorted((ROOT / "memory" / "store").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == "Rows" for b in node.bases):
                found.add(module_name(path))
    return found


def test_every_repository_says_which_tables_it_touches():
    assert repository_modules() == set(REPOSITORY_TABLES)


@pytest.mark.parametrize("module", sorted(REPOSITORY_TABLES))
def test_a_repository_touches_only_its_own_tables(module):
    strays = sorted(TOUCHED.get(module, set()) - REPOSITORY_TABLES[module])
    assert strays == [], f"{module} touches {strays}, which are not its tables"
    assert TOUCHED.get(module, set()) == REPOSITORY_TABLES[module], f"{module} no longer touches all it says"


def test_no_service_takes_the_whole_store():
    """Each service is built with the repositories it uses (bot.py wires them from the Store's fields)."""
    takers = sorted(module for module, deps in MODULES.items()
                    if module.startswith(("services.", "memory.extract.", "memory.recall.", "handlers.", "transport."))
                    and "memory.store.memory_store" in deps)
    # The handlers' frozen Services (handlers/context.py) holds the Store bot.py built, from which a handler reads
    # the repository its command needs; no function or service of theirs is built with it whole.
    assert takers == ["handlers.context"]
