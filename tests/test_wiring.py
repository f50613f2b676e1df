"""Wired once: every service is built with all it needs before the Application, and nothing is set on it after."""

from __future__ import annotations

import ast
import dataclasses
import types
import typing
from pathlib import Path

import pytest

from config import Config
from handlers.context import Services
from services.companion import CompanionSettings
from services.limits import LimitSettings
from tests.harness import make_config, running_bot

ROOT = Path(__file__).resolve().parent.parent
# Attributes set on another object, by design: a request's delivery record (what became of its sends, read back
# by the update processor) and the log records that the secret filter rewrites.
SET_BY_DESIGN = {
    ("handlers/error_handler.py", "delivery.postponed"),
    ("transport/sending.py", "delivery.postponed"),
    ("transport/logs.py", "record.msg"),
    ("transport/logs.py", "record.args"),
}


def optional(hint: object) -> bool:
    return isinstance(hint, types.UnionType) and type(None) in typing.get_args(hint)


def test_services_are_frozen_and_only_voice_may_be_missing():
    hints = typing.get_type_hints(Services)
    assert Services.__dataclass_params__.frozen
    # None: voice is off (TRANSCRIPTION_MODEL=), replies are text only (TTS_MODEL empty)
    assert [name for name, hint in hints.items() if optional(hint)] == ["listener", "spoken"]
    with pytest.raises(TypeError):
        Services()  # type: ignore[call-arg]  # every service is given; none is filled in later


def attributes_set_on_others(path: Path) -> list[str]:
    """Return `object.attribute` for each assignment in `path` to an attribute of anything but self or cls."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assign):
            targets = [item for target in node.targets for item in getattr(target, "elts", [target])]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            continue
        for target in targets:
            base = target
            while isinstance(base, ast.Attribute):
                base = base.value
            if target is not base and not (isinstance(base, ast.Name) and base.id in ("self", "cls")):
                found.append(ast.unparse(target))
    return found


def test_nothing_is_set_on_a_built_object_outside_its_own_methods():
    rooms = ("handlers", "transport", "services")
    paths = [ROOT / "bot.py", *(path for room in rooms for path in (ROOT / room).rglob("*.py"))]
    found = {(str(path.relative_to(ROOT)), target) for path in paths for target in attributes_set_on_others(path)}
    assert found == SET_BY_DESIGN


def test_attributes_set_on_others_finds_what_it_looks_for(tmp_path):
    source = tmp_path / "wiring.py"
    source.write_text("app.update_processor.inbox = inbox\nself.x = 1\nservices.store, y = a, b\nz.n += 1\n")
    assert attributes_set_on_others(source) == ["app.update_processor.inbox", "services.store", "z.n"]


def test_no_service_is_given_the_whole_config():
    """services/, memory/, llm/ and prompts/ are given Config.subset(...) settings, never Config itself."""
    importers = []
    for room in ("services", "memory", "llm", "prompts"):
        for path in (ROOT / room).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module == "config":
                    if "Config" in [alias.name for alias in node.names]:
                        importers.append(str(path.relative_to(ROOT)))
    assert importers == []


def test_a_subset_fills_nested_settings_from_the_same_config():
    config = Config(telegram_token="1:x", openai_api_key="k", history_limit=12, daily_message_limit=7,
                    admin_user_ids=frozenset({5}), timezone="Europe/Berlin")
    settings = config.subset(CompanionSettings)
    assert settings.history_limit == 12 and settings.timezone == "Europe/Berlin"
    assert settings.limits == LimitSettings(frozenset({5}), 7, config.daily_token_limit, config.daily_voice_seconds,
                                            "Europe/Berlin")
    assert dataclasses.is_dataclass(settings) and type(settings).__dataclass_params__.frozen


async def test_the_running_bot_holds_one_of_each_service_given_at_build(telegram, model, tmp_path):
    async with running_bot(make_config(telegram, model, tmp_path / "bot.db")) as app:
        services = app.bot_data
        assert isinstance(services, Services)
        assert app.bot._inbox is services.inbox and app.update_processor.inbox is services.inbox
        assert services.companion.forgetter is services.forgetter is services.keeper.forgetter
        assert services.companion.facts is services.memory_page.facts is services.keeper.facts  # one of each
        assert services.servers[0].client is services.model.client
        with pytest.raises(dataclasses.FrozenInstanceError):
            services.store = None  # type: ignore[misc]
