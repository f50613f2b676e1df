"""Forgetting lives in one place: only the Forgetter (services/forgetting.py) calls the store's forgetting, and its
docstring names every way to forget. Read from the source (ast), like tests/test_layers.py."""

from __future__ import annotations

import ast
import inspect
import os
import typing
from pathlib import Path

import services.forgetting
from memory.store.memory_store import Store
from services.forgetting import Forgetter

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "services" / "forgetting.py"
# The store's methods that forget: erase a user, forget facts with Undo, undo, purge, and the plain deletes.
FORGETTING = {"forget_user", "forget", "restore_forgotten", "purge_forgotten", "delete_facts", "delete_topic"}
# What holds them: the store, or the repositories that define them (the Store's fields).
HOLDERS = {"store", "accounts", "forgetting", "facts", "topics"}
# Where the store itself lives (its own methods call each other) and what may read the source for tests; folders
# whose name starts with a dot (.venv, .real-server, .real-tts: other projects' code) are never read.
OUTSIDE = ("memory/store/", "tests/", "bench/")


def store_calls(path: Path) -> set[str]:
    """Return the FORGETTING methods `path` calls on a store or a repository: `store.x(…)`, `<anything>.store.x(…)`,
    `self.facts.x(…)`."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FORGETTING:
            owner = node.func.value
            if (isinstance(owner, ast.Name) and owner.id in HOLDERS) or (
                isinstance(owner, ast.Attribute) and owner.attr in HOLDERS
            ):
                found.add(node.func.attr)
    return found


def our_sources() -> list[Path]:
    found = []
    for folder, folders, names in os.walk(ROOT):
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [path for name in names if name.endswith(".py")
                  and not (path := Path(folder, name)).relative_to(ROOT).as_posix().startswith(OUTSIDE)]
    return sorted(found)


def test_the_sources_read_are_ours_alone():
    read = {path.relative_to(ROOT).as_posix() for path in our_sources()}
    assert {"bot.py", "services/forgetting.py", "handlers/talk.py"} <= read
    assert not any(name.startswith(".") or name.startswith(OUTSIDE) for name in read)


def test_only_the_forgetter_calls_the_stores_forgetting():
    callers = {path.relative_to(ROOT).as_posix(): calls for path in our_sources() if (calls := store_calls(path))}
    assert callers == {"services/forgetting.py": FORGETTING}


def test_the_forgetting_methods_are_the_stores_repositories():
    repositories = list(typing.get_type_hints(Store).values())
    assert all(any(callable(getattr(repository, name, None)) for repository in repositories) for name in FORGETTING)


def test_the_check_sees_a_call_on_a_store(tmp_path):
    source = tmp_path / "handler.py"
    source.write_text("async def f(context, store, page):\n    await context.bot_data.store.delete_facts(1, [2])\n"
                      "    await store.forget_user(1)\n    await page.delete_fact(1, 2)\n"
                      "    await self.topics.delete_topic(1, 2)\n", encoding="utf-8")
    assert store_calls(source) == {"delete_facts", "forget_user", "delete_topic"}


def test_the_services_docstring_names_every_way_to_forget():
    doc = services.forgetting.__doc__ or ""
    public = [name for name, _ in inspect.getmembers(Forgetter, inspect.iscoroutinefunction)
              if not name.startswith("_")]
    assert public and [name for name in public if f"`{name}`" not in doc] == []
    for entry in ("/forget", "POST api/forget", "Forget that", "extraction pass", "Undo", "/profile",
                  "DELETE api/facts", "api/reminders", "remembered", "Companion.edit", "purge"):
        assert entry in doc, entry
