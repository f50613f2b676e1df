"""No private name of any dependency: read from the source (ast), every .py file of ours (the application, tests,
bench) fails on

- an import of a `_`-prefixed module or name of a third-party package (`from telegram._utils.x import y`,
  `import openai._base_client`, `from aiosqlite.core import _connection_worker_thread`);
- an attribute `thing._name` (one leading underscore, not a dunder) where `_name` is defined nowhere in our own
  code: not a `def _name`, a `class _name`, a `self._name =`, a class or module attribute, nor a `__slots__` entry.
  Our own private helpers (and our test doubles') pass; `connection._conn` of aiosqlite does not;
- a private name of a third-party base class, defined again (`async def _post` in a subclass of ExtBot) or used
  (`self._semaphore` in a subclass of BaseUpdateProcessor) in our class;
- the same name given as a string to getattr, setattr, hasattr, delattr or monkeypatch.setattr, and a dotted
  string naming a private module of a third-party package (`monkeypatch.setattr("telegram._bot.x", ...)`).

A dependency's underscore is its promise that the name may change without notice (the house style: public API
only). Where its public API cannot do something, ask upstream or choose another library."""

from __future__ import annotations

import ast
import functools
import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
# Not ours: the virtual environment, the real model server's checkout, git's and the tools' caches.
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})
# Names the standard library documents with a leading underscore, so that they never clash with a named tuple's
# fields (collections.namedtuple's _replace, _asdict, _fields, _make, _field_defaults) or as the documented way
# out of a process (os._exit).
DOCUMENTED_UNDERSCORE_NAMES = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults", "_exit"})
NAME_ARGUMENT_CALLS = frozenset({"getattr", "setattr", "hasattr", "delattr"})  # the name is the second argument


@dataclass(frozen=True)
class Finding:
    """One use of a private name that is not ours: where, and what."""

    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def is_private(name: str) -> bool:
    """True for a name with one leading underscore that is no dunder (`_conn`, `_utils`; not `__init__`, `_`)."""
    return name.startswith("_") and name != "_" and not (name.startswith("__") and name.endswith("__"))


def our_sources() -> list[Path]:
    """Return every .py file of the project: the application, tests and bench; nothing under a dot folder."""
    found = []
    for folder, folders, names in os.walk(ROOT):  # dot folders (.venv, .real-tts: thousands of files) never entered
        folders[:] = [name for name in folders if not name.startswith(".") and name not in SKIPPED_FOLDERS]
        found += [Path(folder, name) for name in names if name.endswith(".py")]
    return sorted(found)


def our_module_names(paths: list[Path]) -> frozenset[str]:
    """Return the names an import of ours may start with: each file's and each folder's name under the root (bench/
    and tests/ import their neighbours by bare name too)."""
    names: set[str] = set()
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.update(parts)
    return frozenset(names)


def defined_private_names(tree: ast.AST) -> set[str]:
    """Return the private names `tree` defines: functions and classes, module and class attributes (`__slots__`
    entries among them), attributes set on `self` or `cls`, and names imported as a private alias."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(alias.asname for alias in node.names if alias.asname)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                found.add(node.attr)
    for body in [tree.body] + [node.body for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]:
        for statement in body:
            found.update(_assigned_names(statement))
    return {name for name in found if is_private(name)}


def _assigned_names(statement: ast.stmt) -> set[str]:
    """Return the names a module's or class's statement binds, and the strings of a `__slots__` it sets."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign):
        targets = [statement.target]
    else:
        return set()
    names = {node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)}
    if "__slots__" in names and statement.value is not None:
        names |= {node.value for node in ast.walk(statement.value)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    return names


def private_module_path(dotted: str, ours: frozenset[str]) -> bool:
    """True when `dotted` names a third-party module or object through a private part (`telegram._utils.types`)."""
    parts = dotted.split(".")
    if parts[0] in ours or parts[0] in sys.stdlib_module_names:
        return False
    return any(is_private(part) for part in parts)


def imported_names(tree: ast.AST, ours: frozenset[str]) -> dict[str, str]:
    """Return what each name a module imports from a third-party package stands for, dotted (`from telegram.ext
    import ExtBot as Bot` -> {"Bot": "telegram.ext.ExtBot"}; `import aiohttp.web` -> {"aiohttp": "aiohttp"})."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    found[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.update({alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names})
    return {name: dotted for name, dotted in found.items() if third_party(dotted, ours)}


def third_party(dotted: str, ours: frozenset[str]) -> bool:
    """True when `dotted` starts with neither a module of ours nor one of the standard library."""
    head = dotted.split(".")[0]
    return head not in ours and head not in sys.stdlib_module_names


def dotted_name(node: ast.expr) -> str | None:
    """Return `a.b.C` for the expression a.b.C, None for anything but names and attributes of names."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def inherited_findings(tree: ast.AST, path: str, ours: frozenset[str],
                       private_names_of: Callable[[str], frozenset[str]]) -> tuple[list[Finding], set[ast.AST]]:
    """Return each private name of a third-party base class that one of our classes defines again or uses, with
    the attribute nodes it found (so that they are not reported twice). `private_names_of("telegram.ext.ExtBot")`
    gives that class's private names."""
    imported = imported_names(tree, ours)
    found: list[Finding] = []
    seen: set[ast.AST] = set()
    for cls in [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]:
        for base in cls.bases:
            name = dotted_name(base)
            head, _, rest = (name or "").partition(".")
            if head not in imported:
                continue
            full = f"{imported[head]}.{rest}" if rest else imported[head]
            theirs = private_names_of(full)
            for node in ast.walk(cls):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in theirs:
                    found.append(Finding(path, node.lineno, f"defines {full}.{node.name} again"))
                elif isinstance(node, ast.Attribute) and node.attr in theirs:
                    found.append(Finding(path, node.lineno, f"attribute .{node.attr} of {full}"))
                    seen.add(node)
            for statement in cls.body:
                found += [Finding(path, statement.lineno, f"defines {full}.{name} again")
                          for name in sorted(_assigned_names(statement) & theirs)]
    return found, seen


def no_private_names(_dotted: str) -> frozenset[str]:
    """Return no private names, whatever the class: for checking code whose bases are not looked up."""
    return frozenset()


def findings_in(source: str, path: str, own_names: set[str] | frozenset[str], ours: frozenset[str],
                private_names_of: Callable[[str], frozenset[str]] = no_private_names) -> list[Finding]:
    """Return each use in `source` of a private name of a dependency: an import of a private module or name of a
    third-party package, a private attribute (read, set, or named as a string) that `own_names` lacks, or a
    third-party base class's private name (`private_names_of` gives them) that one of our classes defines again
    or uses."""
    tree = ast.parse(source)
    found, seen = inherited_findings(tree, path, ours, private_names_of)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Finding(path, node.lineno, f"import {alias.name}") for alias in node.names
                      if private_module_path(alias.name, ours)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if private_module_path(node.module, ours):
                found.append(Finding(path, node.lineno, f"from {node.module} import ..."))
            elif node.module.split(".")[0] not in ours | sys.stdlib_module_names:
                found += [Finding(path, node.lineno, f"from {node.module} import {alias.name}")
                          for alias in node.names if is_private(alias.name)]
        elif isinstance(node, ast.Attribute) and node not in seen:
            if is_private(node.attr) and node.attr not in own_names | DOCUMENTED_UNDERSCORE_NAMES:
                found.append(Finding(path, node.lineno, f"attribute .{node.attr}"))
        elif isinstance(node, ast.Call):
            found += _named_in_call(node, path, own_names, ours)
    return found


def _named_in_call(call: ast.Call, path: str, own_names: set[str] | frozenset[str],
                   ours: frozenset[str]) -> list[Finding]:
    """Return the private names a call gives as strings: getattr(x, "_name") and its kin, monkeypatch.setattr with
    an object and a name or with a dotted path, importlib.import_module("x._y")."""
    function = call.func
    called = function.id if isinstance(function, ast.Name) else function.attr if isinstance(
        function, ast.Attribute) else ""
    strings = [arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
               for arg in call.args]
    found = []
    if called in NAME_ARGUMENT_CALLS and len(strings) > 1 and strings[1] is not None:
        name = strings[1]
        if is_private(name) and name not in own_names | DOCUMENTED_UNDERSCORE_NAMES:
            found.append(Finding(path, call.lineno, f'{called}(..., "{name}")'))
    if called in ("setattr", "delattr", "import_module") and strings and strings[0] is not None:
        dotted = strings[0]
        if "." in dotted and private_module_path(dotted, ours):
            found.append(Finding(path, call.lineno, f'{called}("{dotted}")'))
    return found


@functools.cache
def private_names_of(dotted: str) -> frozenset[str]:
    """Return the private names of the class that `dotted` names (`telegram.ext.ExtBot`), imported; none for what is
    no class or cannot be imported."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        if isinstance(found, type):
            return frozenset(name for name in dir(found) if is_private(name))
        return frozenset()
    return frozenset()


@functools.cache
def project_findings() -> tuple[Finding, ...]:
    """Return every use of a dependency's private name in the project's sources."""
    paths = our_sources()
    sources = {path: path.read_text(encoding="utf-8") for path in paths}
    own_names: set[str] = set()
    for source in sources.values():
        own_names |= defined_private_names(ast.parse(source))
    ours = our_module_names(paths)
    found: list[Finding] = []
    for path, source in sources.items():
        found += findings_in(source, str(path.relative_to(ROOT)), own_names, ours, private_names_of)
    return tuple(found)


# ---- the project ---------------------------------------------------------------------------------------------


def test_the_sources_read_include_the_application_the_tests_and_bench():
    read = {str(path.relative_to(ROOT)) for path in our_sources()}
    assert {"bot.py", "memory/store/sqlite_backend.py", "tests/doubles/telegram_api.py", "bench/trips.py"} <= read
    assert not any(name.startswith((".venv", ".real-server", ".real-tts", ".git")) for name in read)


def test_no_source_uses_a_private_name_of_a_dependency():
    found = project_findings()
    assert found == (), "private names of dependencies:\n" + "\n".join(map(str, found))


# ---- the checker itself, on small pieces of code -----------------------------------------------------------

OURS = frozenset({"memory", "tests", "handlers"})


def check(source: str, own_names: frozenset[str] = frozenset()) -> list[str]:
    """Return what the checker says of `source`, each finding as its text without the path and line."""
    return [finding.what for finding in findings_in(source, "x.py", own_names, OURS)]


def test_a_private_module_of_a_dependency_is_flagged_however_it_is_imported():
    assert check("from telegram._utils.types import ODVInput") == ["from telegram._utils.types import ..."]
    assert check("import openai._base_client") == ["import openai._base_client"]
    assert check("import openai._base_client as base") == ["import openai._base_client"]
    assert check("from aiosqlite.core import _connection_worker_thread") == [
        "from aiosqlite.core import _connection_worker_thread"]
    assert check("from openai import _exceptions") == ["from openai import _exceptions"]


def test_public_imports_ours_and_the_standard_librarys_pass():
    assert check("from telegram.request import BaseRequest\nimport openai\nfrom aiosqlite import Connection") == []
    assert check("from memory.store._rows import _helper\nfrom . import _private\nimport tests._x") == []
    assert check("from __future__ import annotations\nimport _thread") == []


def test_a_private_attribute_defined_nowhere_of_ours_is_flagged():
    assert check("raw = connection._conn") == ["attribute ._conn"]
    assert check("await connection._execute(work)") == ["attribute ._execute"]
    assert check("connection._execute = counted") == ["attribute ._execute"]  # a patch defines nothing


def test_a_private_attribute_of_our_own_passes():
    assert check("store._backend.run(script)", frozenset({"_backend"})) == []
    assert check("class Store:\n    def __init__(self):\n        self._backend = 1\n    def x(self):\n"
                 "        return self._backend", defined_of("class Store:\n    def __init__(self):\n"
                                                            "        self._backend = 1")) == []


def test_dunders_a_bare_underscore_and_the_named_tuples_documented_names_pass():
    assert check("x.__class__.__name__\nfor _ in x._asdict(): y = p._replace(a=1)\nos._exit(1)") == []


def test_a_private_name_given_as_a_string_is_flagged():
    assert check('monkeypatch.setattr(connection, "_execute", counted)') == ['setattr(..., "_execute")']
    assert check('getattr(request, "_client")') == ['getattr(..., "_client")']
    assert check('monkeypatch.setattr("telegram._bot.Bot.send", fake)') == ['setattr("telegram._bot.Bot.send")']
    assert check('importlib.import_module("openai._client")') == ['import_module("openai._client")']
    assert check('getattr(store, "_backend")', frozenset({"_backend"})) == []
    assert check('monkeypatch.setattr("memory.store._x.y", fake)') == []


def test_a_third_party_base_classs_private_name_defined_again_or_used_is_flagged_though_we_define_it_too():
    source = """
from telegram.ext import ExtBot, BaseUpdateProcessor as Processor
import telegram.ext as ext
class InboxBot(ExtBot):
    __slots__ = ("_inbox", "_bot")
    async def _post(self, endpoint):
        return await super()._post(endpoint)
class Ordering(Processor):
    async def process(self):
        async with self._semaphore:
            self._mine = 1
class Plain(ext.Application):
    _queue = None
"""
    bases = {"telegram.ext.ExtBot": frozenset({"_post", "_bot"}),
             "telegram.ext.BaseUpdateProcessor": frozenset({"_semaphore"}),
             "telegram.ext.Application": frozenset({"_queue"})}
    found = [finding.what for finding in findings_in(source, "x.py", frozenset({"_post", "_semaphore", "_mine"}), OURS,
                                                     lambda dotted: bases.get(dotted, frozenset()))]
    assert sorted(found) == sorted(["defines telegram.ext.ExtBot._post again", "defines telegram.ext.ExtBot._bot again",
                                    "attribute ._post of telegram.ext.ExtBot",
                                    "attribute ._semaphore of telegram.ext.BaseUpdateProcessor",
                                    "defines telegram.ext.Application._queue again"])


def test_a_third_party_classs_private_names_are_read_from_the_class_itself():
    assert "_post" in private_names_of("telegram.ext.ExtBot")
    assert private_names_of("telegram.ext.no_such_thing") == frozenset()
    assert private_names_of("no_such_package.Thing") == frozenset()


def defined_of(source: str) -> frozenset[str]:
    return frozenset(defined_private_names(ast.parse(source)))


def test_what_our_code_defines_is_read_from_every_kind_of_definition():
    source = """
import threading as _threading
_lock = 1
_count: int = 0
def _helper(): pass
async def _fetch(): pass
class _Hidden:
    _limit = 3
    __slots__ = ("_a", "public")
    def __init__(self):
        self._b, self._c = 1, 2
        self._d: int = 4
    @classmethod
    def make(cls):
        cls._e = 5
def f(other):
    _local = 1
    other._f = 6
"""
    assert defined_of(source) == {"_threading", "_lock", "_count", "_helper", "_fetch", "_Hidden", "_limit", "_a",
                                  "_b", "_c", "_d", "_e"}
