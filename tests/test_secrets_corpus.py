"""The secrets corpus (bench/secrets_corpus.json) as a test: every secret masked, every look-alike untouched."""

import json
from pathlib import Path

import pytest

from memory.secrets.masking import PLACEHOLDERS, mask_secrets

CORPUS = Path(__file__).resolve().parent.parent / "bench" / "secrets_corpus.json"
RECALL_FLOOR = 0.95  # measured 0.971 (167 of 172) on 2026-11-30
CHANGED_CEILING = 0.02  # measured 0.000 (0 of 184) on 2026-11-30
SECRET_KINDS = {"password", "pin", "cvv", "passport", "snils", "ssn", "code", "seed", "card", "iban", "key"}
LOOKALIKE_KINDS = {"phone", "date", "price", "order", "tracking", "address", "talk", "time", "other"}
# Secret statements the masker is known to leave in, and why. They still count against recall.
KNOWN_MISSES = {
    "my laptop password is the name of my dog plus 2015, so rex2015": "the password is spelled out later on",
    "Код для подтверждения перевода 33 41 — не то, вот правильный: 3341": "the code comes a clause after its name",
}
# Look-alikes the masker is known to change, and why. None at present.
KNOWN_CHANGED: dict[str, str] = {}


def corpus() -> list[dict]:
    """The labelled messages of bench/secrets_corpus.json."""
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def pieces(entry: dict) -> list[str]:
    """The substrings of a secret statement that must disappear."""
    return [entry["secret"]] if isinstance(entry["secret"], str) else entry["secret"]


def secrets() -> list[dict]:
    return [entry for entry in corpus() if entry["secret"] is not None]


def lookalikes() -> list[dict]:
    return [entry for entry in corpus() if entry["secret"] is None]


def caught(entry: dict) -> bool:
    masked = mask_secrets(entry["text"])
    return not any(piece in masked for piece in pieces(entry))


def test_the_corpus_is_large_bilingual_and_well_formed():
    for group, kinds in ((secrets(), SECRET_KINDS), (lookalikes(), LOOKALIKE_KINDS)):
        assert len(group) >= 100
        assert all(entry["kind"] in kinds for entry in group)
        for language in ("ru", "en"):
            assert sum(entry["lang"] == language for entry in group) >= 40
    assert all(piece and piece in entry["text"] for entry in secrets() for piece in pieces(entry))
    texts = [entry["text"] for entry in corpus()]
    assert len(texts) == len(set(texts))


@pytest.mark.parametrize(
    "entry", [e for e in secrets() if e["text"] not in KNOWN_MISSES], ids=lambda e: e["text"][:40]
)
def test_every_corpus_secret_is_masked(entry):
    masked = mask_secrets(entry["text"])
    assert not [piece for piece in pieces(entry) if piece in masked], masked
    assert any(placeholder in masked for placeholder in PLACEHOLDERS)


@pytest.mark.parametrize(
    "entry", [e for e in lookalikes() if e["text"] not in KNOWN_CHANGED], ids=lambda e: e["text"][:40]
)
def test_no_corpus_lookalike_is_changed(entry):
    assert mask_secrets(entry["text"]) == entry["text"]


def test_known_misses_are_in_the_corpus_and_still_missed():
    # A known miss that starts being caught should leave the list, so the list stays honest.
    by_text = {entry["text"]: entry for entry in corpus()}
    assert all(text in by_text and not caught(by_text[text]) for text in KNOWN_MISSES)
    assert all(text in by_text and mask_secrets(text) != text for text in KNOWN_CHANGED)


def test_corpus_recall_and_changed_share():
    recall = sum(caught(entry) for entry in secrets()) / len(secrets())
    changed = sum(mask_secrets(entry["text"]) != entry["text"] for entry in lookalikes()) / len(lookalikes())
    assert recall >= RECALL_FLOOR
    assert changed <= CHANGED_CEILING


def test_masking_the_corpus_twice_changes_nothing():
    for entry in corpus():
        once = mask_secrets(entry["text"])
        assert mask_secrets(once) == once
