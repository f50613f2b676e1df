"""memory/text/prefilter.py: the words a pattern needs, and the promise that a skipped pass had no match."""

from __future__ import annotations

import _sre
import importlib
import pkgutil
import re
import types
from re import _casefix  # type: ignore[attr-defined]

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.text import prefilter
from memory.text.prefilter import Shortlist, could_match, first_match, folded, matches, needed, substitute
from tests.rules_golden import CORPORA, corpus_texts

fold = folded.__wrapped__  # uncached, for the sweeps over every character


def test_every_character_folds_to_one_character_as_the_regex_engine_lowers_it():
    # IGNORECASE matches c to a pattern's L when their simple lowercases are equal, or one of the few
    # extra pairs; folding must give both the same character, or a skipped pass could have matched.
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        assert len(fold(char)) == 1, hex(code)
        assert fold(char) == fold(chr(_sre.unicode_tolower(code))), hex(code)


def test_the_extra_case_groups_fold_together():
    for code, others in _casefix._EXTRA_CASES.items():
        assert {fold(chr(member)) for member in (code, *others)} == {fold(chr(code))}


@pytest.mark.parametrize("text", ["ΟΔΟΣ ΟΔΟΣ", "İstanbul İS", "ſun", "ᲀᲁᲂ", "Kelvin", "Straße", "ǅ", "ı"])
def test_folding_a_text_folds_each_character_alone(text):
    assert fold(text) == "".join(fold(char) for char in text)  # no context: "Σ" at a word's end included


@pytest.mark.parametrize("pattern, text", [
    (re.compile("is", re.I), "İS"),  # "İ" lowers to two characters in Python, to "i" in the regex engine
    (re.compile("is", re.I), "ıs"),  # dotless i
    (re.compile("sun", re.I), "ſun"),  # long s
    (re.compile("ков", re.I), "коᲀ"),  # the old Cyrillic rounded ve
    (re.compile("σοσ", re.I), "ΣΟΣ"),  # final sigma
    (re.compile("kelvin", re.I), "\u212aelvin"),  # the Kelvin sign
    (re.compile(r"(?i:дом)"), "ДОМ"),
    (re.compile(r"(?i)\bI went\b"), "i WENT home"),
    (re.compile("Went"), "Went"),
])
def test_a_pattern_is_never_skipped_where_it_matches(pattern, text):
    assert pattern.search(text)
    assert could_match(pattern, text)


@pytest.mark.parametrize("source, words", [
    (r"\bi went\b", ("i went",)),
    (r"(?:moved to|переехал)\s+(\w+)", ("moved to", "переехал")),
    (r"colou?r", ("color", "colour")),
    (r"[её]жик", ("ежик", "ёжик")),
    (r"(?<![\w-])love(?!\w)", ("love",)),
    (r"I'?M\s+(?:so\s+)?TIRED", ("tired",)),
    (r"(?:ab){2,}", ("ab",)),
    (r"(?:go|going|gone)\s+home", ("home",)),
])
def test_the_words_a_pattern_needs(source, words):
    assert needed(re.compile(source, re.I)) == words


@pytest.mark.parametrize("source", [r"\w+", r".*", r"(?:a|\d+)", r"(?:word)?", r"[a-z]{3}", r"x*", r"(\w)\1", ""])
def test_no_words_when_none_can_be_told(source):
    assert needed(re.compile(source)) is None
    assert could_match(re.compile(source), "")


def alternatives(count: int) -> str:
    return "|".join(f"{chr(0x4E00 + n)}word" for n in range(count))  # no common start, no case to fold


def test_a_very_long_list_of_alternatives_is_not_worth_looking_for():
    assert needed(re.compile(f"(?:{alternatives(prefilter.MAX_WORDS + 1)})")) is None


def test_a_long_list_of_alternatives_is_still_looked_for():
    """Some 50 ns a word against a regex pass of 5-25 µs over the rules' longest alternations (issue 42)."""
    pattern = re.compile(f"(?:{alternatives(150)})")
    assert len(needed(pattern)) == 150
    assert not could_match(pattern, "nothing of it here") and could_match(pattern, f"a {chr(0x4E00 + 149)}word")


def test_the_helpers_answer_as_the_pattern_does():
    pattern = re.compile(r"\bcat(s)?\b", re.I)
    assert [m.group() for m in matches(pattern, "Cats and a cat")] == ["Cats", "cat"]
    assert list(matches(pattern, "a dog")) == []
    assert first_match(pattern, "a CAT").group() == "CAT"
    assert first_match(pattern, "a dog") is None
    assert substitute(pattern, "pet", "cat, cats") == "pet, pet"
    assert substitute(pattern, "pet", "dog") == "dog"


def test_a_pattern_compiled_again_at_the_same_address_is_read_again():
    first = re.compile("alpha")
    assert not could_match(first, "beta")
    prefilter._KNOWN[id(first)] = (re.compile("other"), ("beta",))  # as if another pattern had had this id
    assert not could_match(first, "beta")  # the entry is not this pattern's: it is read afresh


def test_learning_a_modules_patterns_reads_each_once_wherever_it_sits(monkeypatch):
    module = types.ModuleType("rules_for_the_test")
    alone, in_list, in_dict = re.compile(r"\bowl\b"), re.compile(r"\bwren\b"), re.compile(r"\bheron\b")
    module.ALONE, module.TABLE, module.BY_NAME = alone, [(in_list, "x"), ("y", alone)], {"a": in_dict}
    module.WORDS = {"owl", "wren"}
    assert prefilter.learn_patterns([module]) == 3
    monkeypatch.setattr(prefilter, "needed", lambda pattern: pytest.fail("read again"))
    assert not could_match(alone, "a crow") and not could_match(in_list, "a crow") and could_match(in_dict, "a heron")


# Random patterns over a small alphabet full of case traps, against random texts over the same alphabet:
# wherever the regex engine finds a match, the prefilter must not have said there is none.
ALPHABET = "aAbiIİısSſσςΣвВᲀkK\u212a -"
LITERAL = st.sampled_from([re.escape(char) for char in ALPHABET])


def _regex(children):
    return st.one_of(
        st.lists(children, min_size=1, max_size=4).map("".join),
        st.lists(children, min_size=2, max_size=3).map(lambda parts: "(?:" + "|".join(parts) + ")"),
        children.map(lambda part: f"(?:{part})?"),
        children.map(lambda part: f"(?:{part})+"),
        children.map(lambda part: f"(?:{part}){{2}}"),
        children.map(lambda part: f"(?:{part}){{0,2}}"),
        children.map(lambda part: f"(?i:{part})"),
        children.map(lambda part: f"(?<!a){part}(?=\\s|$)"),
        st.lists(st.sampled_from(list(ALPHABET)), min_size=1, max_size=4).map(
            lambda chars: "[" + "".join(re.escape(c) for c in chars) + "]"),
    )


REGEX = st.recursive(st.one_of(LITERAL, st.sampled_from([r"\b", r"\w", ".", r"\s"])), _regex, max_leaves=12)


@settings(max_examples=3000, deadline=None)
@given(source=REGEX, flags=st.sampled_from([0, re.I]), text=st.text(alphabet=ALPHABET, max_size=12))
def test_random_patterns_are_never_skipped_where_they_match(source, flags, text):
    pattern = re.compile(source, flags)
    if pattern.search(text):
        assert could_match(pattern, text), (source, flags, text)


def _patterns_of_the_rules() -> dict[int, re.Pattern[str]]:
    found: dict[int, re.Pattern[str]] = {}

    def collect(value: object) -> None:
        if isinstance(value, re.Pattern):
            found[id(value)] = value
        elif isinstance(value, (tuple, list)):
            for item in value:
                collect(item)
        elif isinstance(value, Shortlist):
            collect(value.rows)

    for name in ("memory.rules", "memory.style", "memory.time", "memory.secrets"):
        package = importlib.import_module(name)
        for module in pkgutil.iter_modules(package.__path__):
            for value in vars(importlib.import_module(f"{name}.{module.name}")).values():
                collect(value)
    return found


def test_no_pattern_of_the_rules_is_skipped_on_a_corpus_message_it_matches():
    patterns = _patterns_of_the_rules()
    assert len(patterns) > 300
    assert sum(needed(pattern) is not None for pattern in patterns.values()) > len(patterns) * 2 // 3
    texts = [text for name in CORPORA for text in corpus_texts(name)]
    skipped = 0
    for pattern in patterns.values():
        for text in texts:
            if not could_match(pattern, text):
                skipped += 1
                assert not pattern.search(text), (pattern.pattern, text)
    assert skipped > len(patterns) * len(texts) // 2  # it does skip: most passes find nothing to do


def test_texts_asked_about_in_turn_each_get_their_own_answer():
    went, stayed = re.compile(r"\bwent\b", re.I), re.compile(r"\bstayed\b", re.I)
    first, second = "I WENT out", "I stayed in"
    for _ in range(3):  # the last text's view is kept: it must never answer for another
        assert could_match(went, first) and not could_match(stayed, first)
        assert could_match(stayed, second) and not could_match(went, second)
    assert could_match(went, "".join(["i ", "went"]))  # a new text equal to none asked about: folded afresh
    assert not could_match(went, "".join(["i ", "want"]))


def test_a_shortlist_gives_the_rows_whose_pattern_could_match_in_their_order():
    went, walked = re.compile(r"\bi went\b", re.I), re.compile(r"\b(?:walked|went)\b", re.I)
    anything = re.compile(r"\w+")  # no words can be told: it always runs
    rows = [("went", went), ("any", anything), ("walked", walked), ("went again", went)]
    shortlist = Shortlist(rows, lambda row: row[1])
    assert [name for name, _ in shortlist.possible("And then I WENT home")] == ["went", "any", "walked", "went again"]
    assert [name for name, _ in shortlist.possible("we walked")] == ["any", "walked"]
    assert [name for name, _ in shortlist.possible("")] == ["any"]
    assert Shortlist([went]).possible("nothing here") == []
    assert Shortlist([]).possible("i went") == []


def test_a_shortlist_answers_each_text_as_could_match_does_in_turn():
    went, stayed = re.compile(r"\bwent\b", re.I), re.compile(r"\bstayed\b", re.I)
    shortlist = Shortlist([went, stayed])
    for _ in range(2):  # asked in turn with could_match about other texts: the kept view never answers for another
        assert shortlist.possible("I WENT out") == [went]
        assert could_match(stayed, "I stayed in")
        assert shortlist.possible("".join(["i ", "stayed"])) == [stayed]


def _shortlists_of_the_project() -> list[Shortlist]:
    from memory.style import candidates

    found = [candidates._complete_table(), candidates._phrase_table()]  # built on first use
    for name in ("memory.rules", "memory.style", "memory.time", "memory.secrets", "memory.reminders"):
        package = importlib.import_module(name)
        for module in pkgutil.iter_modules(package.__path__):
            found += [value for value in vars(importlib.import_module(f"{name}.{module.name}")).values()
                      if isinstance(value, Shortlist)]
    return found


def test_every_shortlist_of_the_project_gives_what_asking_each_pattern_gives_on_the_corpora():
    shortlists = _shortlists_of_the_project()
    assert len(shortlists) >= 12
    texts = [text for name in CORPORA for text in corpus_texts(name)]
    texts += [text.upper() for text in texts]
    for shortlist in shortlists:
        for text in texts:
            expected = [row for row in shortlist.rows if could_match(shortlist.pattern_of(row), text)]
            assert shortlist.possible(text) == expected, text


def test_learning_a_modules_patterns_builds_its_shortlists(monkeypatch):
    module = types.ModuleType("rules_for_the_test")
    module.TRIGGERS = Shortlist([re.compile(r"\bkestrel\b")])
    prefilter.learn_patterns([module])
    monkeypatch.setattr(prefilter, "needed", lambda pattern: pytest.fail("read again"))
    assert module.TRIGGERS.possible("a kestrel") == list(module.TRIGGERS.rows)
