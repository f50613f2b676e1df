"""Two commands for a fresh machine with Python 3.11: `python3 dev.py run` and `python3 dev.py test`; and
`python3 dev.py check`, the linter and the type checker that CI runs after the tests.

Each makes .venv/ (once), installs the requirements (again only when they change) and runs.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
REQUIREMENTS = {"run": "requirements.txt", "test": "requirements-dev.txt", "check": "requirements-dev.txt"}
# What `check` runs, in .venv's Python, each with its settings in pyproject.toml: ruff, then mypy.
CHECKS = (("-m", "ruff", "check", "."), ("-m", "mypy"))
# The suite mostly waits (on bot processes, doubles, timers), so more workers than cores pay: measured on a
# 2-core machine, 4 workers beat 2 and 6 (docs in README's Quick start). Fewer never, more on a bigger machine.
MIN_WORKERS = 4


def requirement_files(path: Path) -> list[Path]:
    """Return `path` and every file it pulls in with `-r` / `--requirement`, each once: what pip will read."""
    found: list[Path] = []
    pending = [path.resolve()]
    while pending:
        current = pending.pop(0)
        if current in found:
            continue
        found.append(current)
        for line in current.read_text().splitlines():
            words = line.split("#", 1)[0].split()
            if len(words) == 2 and words[0] in ("-r", "--requirement"):
                pending.append((current.parent / words[1]).resolve())
            elif words and words[0].startswith("--requirement="):
                pending.append((current.parent / words[0].split("=", 1)[1]).resolve())
    return found


def ensure_environment(requirements: str) -> None:
    """Create the virtual environment and install `requirements` if they changed since last time."""
    if not PYTHON.exists():
        print("creating .venv …", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in requirement_files(ROOT / requirements))).hexdigest()
    stamp = VENV / f".installed-{requirements}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    print(f"installing {requirements} …", flush=True)
    subprocess.run([str(PYTHON), "-m", "pip", "install", "-q", "-r", str(ROOT / requirements)], check=True)
    stamp.write_text(digest)


def pytest_arguments(extra: list[str], cpus: int) -> list[str]:
    """Return pytest's arguments: `extra`, after pytest-xdist's workers unless `extra` chooses (-n, -p no:xdist)
    or asks for something xdist cannot do (a debugger)."""
    chosen = any(
        word in ("-n", "--numprocesses", "--pdb", "--trace", "no:xdist", "-pno:xdist")
        or word.startswith("--numprocesses=")
        or (word.startswith("-n") and word[2:].lstrip("=").isalnum())
        for word in extra
    )
    if chosen:
        return extra
    # worksteal: a worker that has run out takes tests another was given and has not begun, so the suite does not
    # end on one worker's queue behind a long test while the others idle (the order: tests/conftest.py).
    return ["-n", str(max(MIN_WORKERS, 2 * cpus)), "--dist", "worksteal", *extra]


def environment_for_tests(environ: dict[str, str]) -> dict[str, str]:
    """Return the environment the tests run in: `environ` with Python's bytecode cache on.

    The suite starts bot.py as a process about a hundred times, and each of pytest's workers imports the test
    modules with their asserts rewritten. With PYTHONDONTWRITEBYTECODE set, every one of them compiles the whole
    project again: 0.2 s of CPU a start, 9 % of the process tests' CPU (measured on 2 cores). __pycache__ is
    in .gitignore."""
    return {name: value for name, value in environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def run_checks(commands: list[list[str]]) -> int:
    """Return the exit code of the first of `commands` that failed, or 0; every one runs, so that one call shows
    both the linter's and the type checker's complaints."""
    failed = 0
    for command in commands:
        code = subprocess.run(command, cwd=ROOT).returncode
        failed = failed or code
    return failed


def main(argv: list[str]) -> int:
    """Run the bot, the tests (on parallel workers) or the checks inside .venv; extra arguments go to the bot or
    pytest."""
    if not argv or argv[0] not in REQUIREMENTS:
        print("usage: python3 dev.py run | test [pytest arguments] | check", file=sys.stderr)
        return 2
    command, extra = argv[0], argv[1:]
    ensure_environment(REQUIREMENTS[command])
    os.chdir(ROOT)
    if command == "check":
        return run_checks([[str(PYTHON), *check] for check in CHECKS])
    if command == "run":
        arguments = ["bot.py", *extra]
    else:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        arguments = ["-m", "pytest", *pytest_arguments(extra, cpus)]
    environ = dict(os.environ) if command == "run" else environment_for_tests(dict(os.environ))
    # Replace this process, so that signals (Ctrl-C, SIGTERM) reach the bot directly.
    os.execve(PYTHON, [str(PYTHON), *arguments], environ)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
