"""dev.py reinstalls when any requirements file an install reads has changed."""

from __future__ import annotations

from pathlib import Path

from dev import ROOT, requirement_files


def test_the_test_install_reads_all_three_requirements_files():
    assert requirement_files(ROOT / "requirements-dev.txt") == [
        ROOT / "requirements-dev.txt", ROOT / "requirements-local.txt", ROOT / "requirements.txt"
    ]


def test_nested_and_circular_includes_are_followed_once(tmp_path: Path):
    (tmp_path / "a.txt").write_text("-r b.txt\nnumpy==2.0  # a pin\n")
    (tmp_path / "b.txt").write_text("--requirement=c.txt\n# -r never.txt\n")
    (tmp_path / "c.txt").write_text("--requirement a.txt\n")
    assert [path.name for path in requirement_files(tmp_path / "a.txt")] == ["a.txt", "b.txt", "c.txt"]
