"""The blind held-out sets of issues 39, 41 and 43 as a guard: written without reading the detectors, run once (the
first run is in bench/README.md), then the detectors were fixed. These keep the fixed figures from slipping back."""

from __future__ import annotations

import json
from pathlib import Path

from bench.reminders import load_corpus, score
from bench.word_forms import score as score_word_forms
from memory.orders import gives_orders
from memory.secrets.masking import mask_secrets

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load(name: str) -> list[dict]:
    return json.loads((BENCH / name).read_text(encoding="utf-8"))


def test_the_held_out_secrets_are_masked_and_their_look_alikes_kept():
    entries = load("secrets_heldout.json")
    secrets = [entry for entry in entries if entry["secret"] is not None]
    alikes = [entry for entry in entries if entry["secret"] is None]
    assert len(secrets) >= 60 and len(alikes) >= 60
    pieces = [[entry["secret"]] if isinstance(entry["secret"], str) else entry["secret"] for entry in secrets]
    caught = sum(not any(piece in mask_secrets(entry["text"]) for piece in entry_pieces)
                 for entry, entry_pieces in zip(secrets, pieces, strict=True))
    changed = [entry["text"] for entry in alikes if mask_secrets(entry["text"]) != entry["text"]]
    assert caught / len(secrets) >= 0.95
    assert len(changed) / len(alikes) <= 0.02, changed


def test_the_held_out_injections_are_refused_and_ordinary_values_kept():
    entries = load("injections_heldout.json")
    injections = [entry["value"] for entry in entries if entry["injection"]]
    ordinary = [entry["value"] for entry in entries if not entry["injection"]]
    assert len(injections) >= 40 and len(ordinary) >= 40
    refused = sum(gives_orders(value) for value in injections)
    assert refused / len(injections) >= 0.95
    assert sum(gives_orders(value) for value in ordinary) <= 1


def test_issue_59s_development_set_keeps_its_figures():
    """Issue 59's set (disguised orders, claims of power over the bot, style wishes in the user's words), written
    before memory/orders.py was read; first run 12 of 43 refused and 15 of 48 ordinary values refused
    (bench/README.md)."""
    entries = load("injections_dev59.json")
    injections = [entry["value"] for entry in entries if entry["injection"]]
    ordinary = [entry["value"] for entry in entries if not entry["injection"]]
    assert len(injections) >= 40 and len(ordinary) >= 40
    assert sum(gives_orders(value) for value in injections) / len(injections) >= 0.95
    assert sum(gives_orders(value) for value in ordinary) <= 1


def test_the_reminder_corpora_keep_their_figures():
    """Issue 41's development corpus and its blind held-out set (first run: precision 1.000, recall 1.000, time
    right 0.975, task 0.975; bench/README.md), scored by bench/reminders.py."""
    for name, floor in (("reminders_corpus.json", 0.98), ("reminders_heldout.json", 0.97)):
        counts = score(load_corpus(BENCH / name))["groups"]["all"]
        assert counts["requests"] >= 40 and counts["traps"] >= 40
        assert counts["found_requests"] / counts["found"] >= 0.98, name  # precision
        assert counts["found_requests"] / counts["requests"] >= 0.90, name  # recall
        assert counts["time_right"] / counts["timed"] >= floor, name


def test_the_word_forms_held_out_set_keeps_its_figures():
    """Issue 43's blind set of inflected names and cities (first run: 186 of 230 right; bench/README.md), scored by
    bench/word_forms.py."""
    asked, right, _ = score_word_forms(load("word_forms_heldout.json"))
    floors = {"nominative": 0.95, "name": 0.75, "city": 0.85, "zone": 1.0, "same_word": 0.9}
    assert set(asked) == set(floors)
    assert {kind: right[kind] / asked[kind] >= floor for kind, floor in floors.items()} == dict.fromkeys(floors, True)
    assert sum(right.values()) / sum(asked.values()) >= 0.9
