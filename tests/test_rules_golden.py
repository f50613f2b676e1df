"""The rules say byte for byte what they said: on every message of the corpora, and on LoCoMo's turns where the
data is here (tests/rules_golden.py; rewrite the record with `.venv/bin/python -m tests.rules_golden` only
when a change of output is meant)."""

from __future__ import annotations

import json

import pytest

from tests.rules_golden import CORPORA, RECORD, corpus_texts, digest, locomo_turns, said

KEPT = json.loads(RECORD.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", CORPORA)
def test_the_rules_say_the_same_of_every_corpus_message(name):
    texts, kept = corpus_texts(name), KEPT[name]
    assert len(texts) == len(kept), f"bench/{name}.json changed: rewrite the record if that was meant"
    changed = [(text, was, now) for text, was in zip(texts, kept, strict=True) if (now := said(text)) != was]
    assert not changed, f"{len(changed)} of {len(texts)} messages now say otherwise, e.g. {changed[0]}"


def test_the_rules_say_the_same_of_every_locomo_turn():
    turns = locomo_turns()
    if not turns:
        pytest.skip("LoCoMo is not on this machine (../shared/data/locomo)")
    kept = KEPT["locomo"]
    assert len(turns) == len(kept) == 2760
    changed = [turn for turn, text in turns if digest(said(text)) != kept[turn]]
    assert not changed, f"{len(changed)} of {len(turns)} turns now say otherwise, e.g. {changed[:5]}"


def test_a_changed_answer_would_be_seen():
    text = corpus_texts("extraction_corpus")[0]
    assert said(text) == KEPT["extraction_corpus"][0]
    assert said(text + " I live in Berlin.") != KEPT["extraction_corpus"][0]
