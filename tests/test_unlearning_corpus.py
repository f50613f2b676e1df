"""The unlearning corpus (bench/unlearning_corpus.json) as a test: the change rules, scored the way
bench/unlearning.py scores them, keep their precision and plain recall per kind, and no trap changes anything.
The rules only: the bench's hybrid section starts a network double and is left to the bench."""

from collections import Counter

import pytest

from bench.unlearning import CORPUS, load, rules_predict, score
from bench.unlearning import KINDS as KIND_OF_OP

KINDS = ("ending", "correction", "forget")
TRAPS = ("other_person", "hypothetical", "fear", "illness", "quote", "joke", "negated_question", "past_event",
         "still_true", "mention", "plan", "never_mind")
PRECISION_FLOOR = 0.98  # measured 1.000 for each kind on 2026-12-01
PLAIN_RECALL_FLOOR = 0.8  # measured 1.000 (ending), 0.960 (correction), 1.000 (forget) on 2026-12-01


@pytest.fixture(scope="module")
def corpus() -> dict:
    return load(CORPUS)


@pytest.fixture(scope="module")
def scored(corpus) -> dict:
    return score(corpus, rules_predict)


def traps(corpus: dict) -> list[dict]:
    return [message for message in corpus["messages"] if message["kind"] == "trap"]


def test_the_corpus_has_every_kind_and_traps(corpus):
    kinds = Counter(message["kind"] for message in corpus["messages"])
    assert all(kinds[kind] >= 20 for kind in KINDS), kinds
    assert kinds["trap"] >= 100, kinds
    assert {message["lang"] for message in corpus["messages"]} == {"ru", "en"}


@pytest.mark.parametrize("kind", KINDS)
def test_precision(scored, kind):
    counts = scored["counts"][kind]
    alarms = [(text, op) for text, op in scored["alarms"] if op["op"] in kind_ops(kind)]
    assert counts["predicted"] > 0
    assert counts["correct"] / counts["predicted"] >= PRECISION_FLOOR, alarms


@pytest.mark.parametrize("kind", KINDS)
def test_plain_recall(scored, kind):
    counts = scored["counts"][kind]
    misses = [(text, label) for text, label in scored["misses"] if label["op"] in kind_ops(kind)]
    assert counts["plain expected"] > 0
    assert counts["plain correct"] / counts["plain expected"] >= PLAIN_RECALL_FLOOR, misses


def kind_ops(kind: str) -> set[str]:
    """The operations scored under `kind` ("forget": forget, forget_this, forget_all, ask, forget_nothing)."""
    return {op for op, scored_as in KIND_OF_OP.items() if scored_as == kind}


def test_traps_are_labelled_with_nothing(corpus):
    assert all(message["expect"] == [] for message in traps(corpus))


@pytest.mark.parametrize("trap", TRAPS)
def test_no_trap_changes_anything(corpus, trap):
    messages = [message for message in traps(corpus) if message["trap"] == trap]
    assert messages, f"no {trap} trap in the corpus"
    fired = {message["text"]: rules_predict(corpus, message) for message in messages}
    assert {text: ops for text, ops in fired.items() if ops} == {}


def test_every_trap_kind_is_tested(corpus):
    assert {message["trap"] for message in traps(corpus)} == set(TRAPS)
