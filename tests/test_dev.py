"""dev.py reinstalls when any requirements file an install reads has changed, and runs the tests in parallel."""

from __future__ import annotations

from pathlib import Path

import pytest

from dev import MIN_WORKERS, ROOT, environment_for_tests, pytest_arguments, requirement_files


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
    assert pytest_arguments([], cpus=2) == ["-n", str(MIN_WORKERS)]
    assert pytest_arguments(["-k", "store", "-x"], cpus=8) == ["-n", "16", "-k", "store", "-x"]


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
