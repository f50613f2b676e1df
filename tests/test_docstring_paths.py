"""Docstrings, comments and the docs name only files that exist in the working tree.

Read: the docstrings (every string that stands alone as a statement) and the comments of every .py file of the
project (the root's and every folder's, not .venv/, data/ or hidden folders), and README.md and docs/*.md whole.
Strings that are code (messages to users, examples, patterns) are not read. The tree is read afresh each run,
so a file renamed or moved fails the test wherever its old name is still written.

What is taken for a path:
- a path under one of the project's top-level folders (those at the root that hold a .py or .md file, and
  memory/, handlers/, services/, llm/, prompts/, bench/, tests/, docs/ whatever the tree holds): `memory/store/`,
  `handlers/talk.py`, `docs/memory.md`, `prompts/extract_facts.md`. It must be a file or folder of the tree,
  or a module written without its ".py" (`handlers/forget_commands`);
- a file at the root by its name: `bot.py`, `config.py`, `README.md`;
- a Python or markdown file by its bare name (`turn_rows.py`, `reminders.md`): some file of the project must
  have that name;
- a module and a name, after a colon or a dot (`prefilter.py:could_match`, `handlers/forget_commands.forget_button`):
  the module must exist and define the name (a function, a class, an assignment or an import, at any depth).
Not taken for paths: a word preceded by "/", ":", ".", "@" or a wildcard (URLs, `../shared/data`,
`.venv/bin/python`), one followed by a wildcard or a placeholder (`tests/test_*.py`, `bench/<name>.py`), and
whatever does not start with a top-level folder or end in ".py" or ".md" (`api/reminders/<id>`, `Europe/Moscow`,
`RU/EN`, `sendMessage`, `openai/_streaming.py`, `index.html`, `re.IGNORECASE`).
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {".venv", ".git", "data", "__pycache__", "node_modules"}  # and every hidden folder
PROJECT_FOLDERS = {"memory", "handlers", "transport", "services", "llm", "prompts", "bench", "tests", "docs"}
# A token that may be a path: folders and a last part, or a file name; then, maybe, ":name".
TOKEN = re.compile(r"(?<![\w./:@~$*<>{}-])((?:[\w-]+/)+(?:[\w-]+(?:\.\w+)*)?|[\w-]+(?:\.\w+)+)"
                   r"(?::([A-Za-z_]\w*))?(?![\w*<>{}\[/-])")
BARE_SUFFIXES = (".py", ".md")


def _project_files() -> list[Path]:
    """Return every file of the working tree as it is now, outside the skipped and hidden folders."""
    files = []
    for folder, folders, names in os.walk(ROOT):
        folders[:] = [name for name in folders if name not in SKIPPED and not name.startswith(".")]
        files += [Path(folder, name) for name in names]
    return sorted(files)


def _top_folders(files: list[Path]) -> set[str]:
    found = {path.relative_to(ROOT).parts[0] for path in files
             if len(path.relative_to(ROOT).parts) > 1 and path.suffix in BARE_SUFFIXES}
    return found | PROJECT_FOLDERS


def _written(path: Path) -> list[tuple[int, str]]:
    """Return (first line, text) of each docstring and comment of a .py file, or of each line of a markdown file."""
    source = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return [(number, line) for number, line in enumerate(source.splitlines(), start=1)]
    found = [(node.lineno, node.value.value) for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
             and isinstance(node.value.value, str)]
    found += [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type == tokenize.COMMENT]
    return found


@lru_cache(maxsize=None)
def _defined_names(path: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return frozenset(names)


def _module_file(relative: str) -> Path | None:
    """Return the file of a module written as a path without its suffix (`services/limits`), or None."""
    for candidate in (ROOT / f"{relative}.py", ROOT / relative / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _stale(token: str, name: str | None, folders: set[str], by_name: dict[str, list[Path]]) -> str | None:
    """Return why `token` (and `name` after a colon) names nothing of the tree, or None when it does."""
    token = token.rstrip(".")
    if "/" in token:
        if token.split("/")[0] not in folders:
            return None  # not ours: a URL's tail, a time zone, an API route
        target = ROOT / token
        if target.exists():
            return _undefined(target, name)
        if _module_file(token) is not None:
            return _undefined(_module_file(token), name)
        relative, dot, attribute = token.rpartition("/")[2].partition(".")
        module = _module_file(token.rpartition("/")[0] + "/" + relative) if dot else None
        if module is None:
            return "no such file or folder"
        return _undefined(module, attribute.split(".")[0]) or _undefined(module, name)
    if (ROOT / token).is_file():
        return _undefined(ROOT / token, name)
    if not token.endswith(BARE_SUFFIXES):
        return None  # "api.example.com", "index.html", "re.IGNORECASE": not a name of ours
    matches = by_name.get(token, [])
    if not matches:
        return "no file of this name in the project"
    if name is None or not token.endswith(".py") or any(_undefined(path, name) is None for path in matches):
        return None
    return f"no {token} defines {name}"


def _undefined(path: Path, name: str | None) -> str | None:
    if name is None or path.suffix != ".py" or name in _defined_names(path):
        return None
    return f"{path.relative_to(ROOT)} does not define {name}"


def stale_references() -> list[str]:
    """Return "file:line: token (why)" for every path written in the project that names nothing of its tree."""
    files = _project_files()
    folders = _top_folders(files)
    by_name: dict[str, list[Path]] = {}
    for path in files:
        by_name.setdefault(path.name, []).append(path)
    read = [path for path in files if path.suffix == ".py"]
    read += [path for path in files if path.suffix == ".md" and path.parent in (ROOT, ROOT / "docs")]
    found = []
    for path in read:
        for line, text in _written(path):
            for match in TOKEN.finditer(text):
                why = _stale(match.group(1), match.group(2), folders, by_name)
                if why is not None:
                    at = line + text.count("\n", 0, match.start())
                    found.append(f"{path.relative_to(ROOT)}:{at}: {match.group()} ({why})")
    return found


def test_docstrings_comments_and_docs_name_only_files_that_exist():
    assert stale_references() == []


def _verdicts(text: str) -> list[str | None]:
    """Return what the test says of each token of `text` (None: fine, or not a path)."""
    files = _project_files()
    by_name: dict[str, list[Path]] = {}
    for path in files:
        by_name.setdefault(path.name, []).append(path)
    folders = _top_folders(files)
    return [_stale(match.group(1), match.group(2), folders, by_name) for match in TOKEN.finditer(text)]


@pytest.mark.parametrize("text", [
    "memory/store/turn_rows.py", "`handlers/talk.py`", "docs/memory.md", "memory/rules/", "bot.py", "README.md",
    "turn_rows.py", "prefilter.py:could_match", "memory/text/prefilter.py:learn_patterns",
    "handlers/forget_commands.forget_button", "see handlers/forget_commands.", "prompts/extract_facts.md",
])
def test_what_is_taken_for_a_path_that_exists(text):
    assert _verdicts(text) == [None]


@pytest.mark.parametrize("text", [
    "memory/store/no_such_rows.py", "handlers/no_such.py", "docs/no-such.md", "memory/no_such/", "no_such_module.py",
    "memory/text/prefilter.py:no_such_function", "handlers/forget_commands.no_such_button", "prompts/no_such.txt",
    "rule_guards.py", "(`bench/README`)",
])
def test_what_is_taken_for_a_path_that_does_not_exist(text):
    verdicts = _verdicts(text)
    assert len(verdicts) == 1 and verdicts[0] is not None


@pytest.mark.parametrize("text", [
    "https://github.com/simonw/llm/blob/main/llm/embeddings.py", "../shared/data/locomo", ".venv/bin/python",
    "api/reminders/<id>", "GET api/memory", "Europe/Moscow", "RU/EN", "sendMessage", "tests/test_*.py",
    "bench/<name>.py", "memory/store/*_rows.py", "openai/_streaming.py", "index.html", "re.IGNORECASE", "3/4",
    "messages/s", "user@example.com", "voice/file_3.oga",
])
def test_what_is_not_taken_for_a_path(text):
    assert set(_verdicts(text)) <= {None}
