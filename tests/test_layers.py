"""The rooms import each other one way only: read from the source (ast), so a circle or an upward import fails;
and no two modules share a name, so a name alone says which one is meant."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Highest first: a room may import the rooms after it, never one before it.
# The bottom rooms (the process clock, the metrics, the configuration) are single modules anything may import; they
# import nothing of ours.
BOTTOM = ["clock", "metrics", "config", "json_bytes", "proxies"]
LAYERS = ["bot", "handlers", "transport", "services", "prompts", "memory", "llm", *BOTTOM]
# memory/'s top-level modules hold the plain types every part may import; the store imports only them.
PLAIN = "memory"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Return the modules of ours that `path` imports, anywhere in it (a late import counts too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from memory.rules import fact_patterns` imports memory.rules.fact_patterns
            found |= {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
    return {name for name in found if name.split(".")[0] in LAYERS}


def our_modules() -> dict[str, set[str]]:
    paths = []
    for room in LAYERS:
        paths += sorted((ROOT / room).rglob("*.py")) if (ROOT / room).is_dir() else [ROOT / f"{room}.py"]
    modules = {module_name(path): imports_of(path) for path in paths}
    # keep only names that are modules (drops `from x import SomeClass`)
    return {name: {dep for dep in deps if dep in modules} for name, deps in modules.items()}


MODULES = our_modules()


def room(module: str) -> str:
    return module.split(".")[0]


def memory_part(module: str) -> str:
    """Return the part of memory/ a module belongs to: its sub-package, or PLAIN for a top-level module."""
    parts = module.split(".")
    is_package = (ROOT.joinpath(*parts) / "__init__.py").exists()
    if len(parts) == 1 or (len(parts) == 2 and not is_package):
        return PLAIN
    return parts[1]


def test_the_layer_list_names_every_room():
    assert {room(module) for module in MODULES} == set(LAYERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_room_imports_a_room_above_it(module):
    upward = [dep for dep in MODULES[module] if LAYERS.index(room(dep)) < LAYERS.index(room(module))]
    assert upward == [], f"{module} imports a higher room: {upward}"


@pytest.mark.parametrize("module", BOTTOM)
def test_the_bottom_rooms_import_nothing_of_ours(module):
    assert MODULES[module] == set()


def shared_names(paths: list[Path]) -> dict[str, list[str]]:
    """Return each module name (the file's, without ".py"; packages' __init__ aside) that more than one path has."""
    by_name: dict[str, list[str]] = {}
    for path in paths:
        if path.name != "__init__.py":
            by_name.setdefault(path.stem, []).append(path.relative_to(ROOT).as_posix())
    return {name: found for name, found in sorted(by_name.items()) if len(found) > 1}


def test_no_two_modules_share_a_name():
    """A name in two rooms makes every mention of it (a docstring, a log line, a traceback) ask which one is meant."""
    paths = sorted(ROOT.glob("*.py")) + [path for room in LAYERS for path in sorted((ROOT / room).rglob("*.py"))]
    assert shared_names(paths) == {}


def test_shared_names_finds_a_name_in_two_rooms():
    found = shared_names([ROOT / "handlers/store.py", ROOT / "memory/store.py", ROOT / "memory/__init__.py",
                          ROOT / "llm/__init__.py", ROOT / "bot.py"])
    assert found == {"store": ["handlers/store.py", "memory/store.py"]}


def test_memory_parts_import_each_other_without_a_circle():
    graph: dict[str, set[str]] = {}
    for module, deps in MODULES.items():
        if room(module) == "memory":
            part = memory_part(module)
            graph.setdefault(part, set()).update(
                memory_part(dep) for dep in deps if room(dep) == "memory" and memory_part(dep) != part
            )
    assert graph[PLAIN] == set(), "memory's plain types import a sub-package"
    assert graph["store"] <= {PLAIN}, f"the store imports more than the plain types: {graph['store']}"
    assert find_circle(graph) is None


def test_transport_never_imports_the_handlers_above_it():
    for module, deps in MODULES.items():
        if room(module) == "transport":
            above = [dep for dep in deps if room(dep) in ("bot", "handlers")]
            assert above == [], f"{module} imports {above}"


def test_no_two_modules_import_each_other_in_a_circle():
    assert find_circle(MODULES) is None


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """Return one circle of the graph as a path (first == last), or None when it has none."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if nxt not in state and (circle := walk(nxt, [*path, nxt])) is not None:
                return circle
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (circle := walk(start, [start])) is not None:
            return circle
    return None


def test_find_circle_finds_one_and_passes_a_tree():
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
