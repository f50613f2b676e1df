"""dev.py reinstalls when any requirements file an install reads has changed, and runs the tests in parallel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dev import (
    CHECKS,
    MIN_WORKERS,
    REQUIREMENTS,
    ROOT,
    environment_for_tests,
    main,
    pytest_arguments,
    requirement_files,
    run_checks,
)


def test_the_test_install_reads_all_three_requirements_files():
    assert requirement_files(ROOT / "requirements-dev.txt") == [
        ROOT / "requirements-dev.txt", ROOT / "requirements-local.txt", ROOT / "requirements.txt"
    ]


def test_nested_and_circular_includes_are_followed_once(tmp_path: Path):
    (tmp_path / "a.txt").write_text("-r b.txt\nnumpy==2.0  # a pin\n")
    (tmp_path / "b.txt").write_text("--requirement=c.txt\n# -r never.txt\n")
    (tmp_path / "c.txt").write_text("--requirement a.txt\n")
    assert [path.name for path in requirement_files(tmp_path / "a.txt")] == ["a.txt", "b.txt", "c.txt"]


def test_the_tests_run_on_workers_at_least_the_floor_and_two_a_core_with_the_users_arguments_after():
    assert pytest_arguments([], cpus=2) == ["-n", str(MIN_WORKERS), "--dist", "worksteal"]
    assert pytest_arguments(["-k", "store", "-x"], cpus=8) == ["-n", "16", "--dist", "worksteal", "-k", "store", "-x"]


@pytest.mark.parametrize("chosen", [
    ["-n", "2"], ["-n2"], ["-nauto"], ["--numprocesses", "3"], ["--numprocesses=0"], ["-p", "no:xdist"],
    ["-pno:xdist"], ["tests/test_store.py", "--pdb"], ["--trace"],
])
def test_arguments_that_choose_the_workers_or_a_debugger_are_passed_as_they_are(chosen):
    assert pytest_arguments(chosen, cpus=2) == chosen


def test_a_test_named_like_an_option_is_not_taken_for_one():
    assert pytest_arguments(["tests/test_notes.py"], cpus=1)[:2] == ["-n", str(MIN_WORKERS)]


def test_the_tests_run_with_the_bytecode_cache_on_and_every_other_variable_kept():
    environ = {"PYTHONDONTWRITEBYTECODE": "1", "CI": "true", "PATH": "/usr/bin"}
    assert environment_for_tests(environ) == {"CI": "true", "PATH": "/usr/bin"}
    assert environment_for_tests({"PATH": "/bin"}) == {"PATH": "/bin"}


def test_the_checks_are_the_linter_then_the_type_checker_in_the_test_environment():
    assert [check[:2] for check in CHECKS] == [("-m", "ruff"), ("-m", "mypy")]
    assert REQUIREMENTS["check"] == REQUIREMENTS["test"]


def test_every_check_runs_and_the_first_failure_is_the_exit_code(tmp_path: Path):
    ran = tmp_path / "ran"
    commands = [
        [sys.executable, "-c", "raise SystemExit(3)"],
        [sys.executable, "-c", f"open({str(ran)!r}, 'w').close(); raise SystemExit(4)"],
    ]
    assert run_checks(commands) == 3
    assert ran.exists()
    assert run_checks([[sys.executable, "-c", "pass"]]) == 0


def test_ci_runs_the_checks_after_the_tests():
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert lines.index("python3 dev.py check") > lines.index("python3 dev.py test")


def test_a_command_dev_py_does_not_know_is_refused_with_its_usage(capsys):
    assert main(["lint"]) == 2
    assert "run | test [pytest arguments] | check" in capsys.readouterr().err
