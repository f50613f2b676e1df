"""Config's fields are the one source of every setting: the loader, the README's table and .env.example follow them."""

import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from config import (
    TABLE_END,
    TABLE_START,
    TOKEN_PATTERN,
    ConfigError,
    env_example,
    load_config,
    settings,
    with_settings_table,
    write_sources,
)

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456:ABCdefGHIjkl-mno_pqr"
BASE = {"TELEGRAM_BOT_TOKEN": TOKEN, "OPENAI_API_KEY": "sk-abc"}
STALE = "run `python -m config` to write it from config.py's fields"


class Recording(Mapping[str, str]):
    """An environment that notes every variable asked for."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env, self.asked = env, set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        return self.env[name]

    def __contains__(self, name: object) -> bool:
        self.asked.add(name)
        return name in self.env

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("the loader asks for its variables by name; it does not list the environment")

    def __len__(self) -> int:
        return len(self.env)


def names_in_table(readme: str) -> list[str]:
    table = readme.split(TABLE_START)[1].split(TABLE_END)[0]
    return re.findall(r"^\| `([A-Z_]+)` \|", table, flags=re.M)


def names_in_example(example: str) -> list[str]:
    return re.findall(r"^(?:# )?([A-Z_]+)=", example, flags=re.M)


def test_the_readme_table_is_written_from_config():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_settings_table(readme) == readme, STALE


def test_env_example_is_written_from_config():
    assert (ROOT / ".env.example").read_text(encoding="utf-8") == env_example(), STALE


def test_the_table_and_the_example_name_every_setting_once_in_configs_order():
    names = [item.env for item in settings()]
    assert len(names) == len(set(names))
    assert names_in_table((ROOT / "README.md").read_text(encoding="utf-8")) == names
    assert names_in_example((ROOT / ".env.example").read_text(encoding="utf-8")) == names


def test_the_loader_reads_exactly_the_settings():
    env = Recording(BASE)
    load_config(env)
    assert env.asked == {item.env for item in settings()}


def test_the_example_holds_no_secret():
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    secrets = [item.env for item in settings() if item.secret]
    assert {"TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "WEBHOOK_SECRET", "DATABASE_URL"} <= set(secrets)
    for name in secrets:
        assert re.search(rf"^(# )?{name}=$", example, flags=re.M), name
    values = re.findall(r"^(?:# )?[A-Z_]+=(.*)$", example, flags=re.M)
    assert not [value for value in values if TOKEN_PATTERN.match(value) or value.startswith("sk-")]


def test_the_required_settings_are_the_uncommented_lines():
    required = [item.env for item in settings() if item.required]
    assert required == ["TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY"]
    assert re.findall(r"^([A-Z_]+)=", env_example(), flags=re.M) == required


def test_each_meaning_is_one_line_and_each_default_is_said():
    for item in settings():
        assert item.meaning and "\n" not in item.meaning, item.env
        assert item.default is not None or item.shown, f"{item.env}: unset is None; the README must say what that means"


@pytest.mark.parametrize("item", [item for item in settings() if item.parse.low is not None], ids=lambda item: item.env)
def test_a_number_is_taken_at_its_bounds_and_refused_past_them(item):
    def text(value: float) -> str:
        return str(value) if isinstance(value, int) else f"{value:g}"

    low, high = item.parse.low, item.parse.high
    for edge in (low, high):
        load_config(BASE | {item.env: text(edge)})
    for past in (low - 1, high + 1):
        with pytest.raises(ConfigError, match=item.env):
            load_config(BASE | {item.env: text(past)})


def test_python_m_config_rewrites_both_files(tmp_path):
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    start = readme.index(TABLE_START) + len(TABLE_START)
    (tmp_path / "README.md").write_text(readme[:start] + "| stale |\n" + readme[readme.index(TABLE_END):])
    (tmp_path / ".env.example").write_text("STALE=1\n")
    assert write_sources(tmp_path) == [tmp_path / "README.md", tmp_path / ".env.example"]
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == readme
    assert (tmp_path / ".env.example").read_text(encoding="utf-8") == env_example()
    assert write_sources(tmp_path) == []


def test_a_readme_without_its_markers_is_refused():
    with pytest.raises(ValueError, match="markers"):
        with_settings_table("# README\n| name | default |\n")
