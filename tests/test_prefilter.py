"""memory/text/prefilter.py: what RE2's filter skips, and the promise that a skipped pass had no match."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.text import prefilter
from memory.text.prefilter import (
    OTHER_SPACES,
    PatternFilter,
    Shortlist,
    always_runs,
    could_match,
    first_match,
    folded,
    matches,
    substitute,
)
from tests.rules_golden import CORPORA, corpus_texts

fold = folded.__wrapped__  # uncached, for the sweeps over every character


def test_every_character_folds_to_one_character_as_the_regex_engine_lowers_it():
    # IGNORECASE matches c to a pattern's L when their simple lowercases are equal, or one of the few extra
    # pairs; folding must give both the same character, or a skipped pass could have matched (the engine itself
    # is asked about every pair in tests/test_prefilter_property.py).
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        assert len(fold(char)) == 1, hex(code)
        lower = char.lower()
        if len(lower) == 1:
            assert fold(char) == fold(lower), hex(code)


def test_the_spaces_re_knows_and_re2_does_not_are_read_as_spaces():
    spaces = [chr(code) for code in range(sys.maxunicode + 1)
              if not 0xD800 <= code <= 0xDFFF and re.match(r"\s", chr(code))]
    assert sorted(set(spaces) - set("\t\n\f\r ")) == sorted(OTHER_SPACES)
    assert {fold(space) for space in OTHER_SPACES} == {" "}


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


@pytest.mark.parametrize("source, matching, skipped", [
    (r"\bi went\b", "So I WENT there", "I want to go"),
    (r"\bIsland\b", "ıSLAND", "isle"),  # "ı" in the text is folded to "i"
    (r"(?:moved to|переехал)\s+(\w+)", "Я ПЕРЕЕХАЛ в Казань", "we moved in"),
    (r"colou?r", "my favourite COLOUR", "a col or two"),
    (r"[её]жик", "ЁЖИК в тумане", "жижик"),
    (r"I'?M\s+(?:so\s+)?TIRED", "im so tired", "I am so very tried"),
    (r"(?:abc){2,}", "abcabc", "a b c"),
    (r"(?:go|going|gone)\s+home", "gone home", "go hom"),
])
def test_a_pattern_is_skipped_only_on_texts_without_its_atoms(source, matching, skipped):
    pattern = re.compile(source, re.I)
    assert pattern.search(matching) and could_match(pattern, matching)
    assert not pattern.search(skipped) and not could_match(pattern, skipped)


@pytest.mark.parametrize("source", [
    r"\w+", r".*", r"(?:a|\d+)", r"(?:word)?", r"[a-z]{3}", r"x*", r"(\w)\1", "",
    r"(?<![\w#])love(?!\w)",  # a look-around not in prefilter.LOOKAROUNDS: RE2 has none
    r"a{,2}bcd", r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10",  # read otherwise by RE2: a repeat, a back-reference
    r"word[^\S\n]word", "a\xa0b", r"[\t-\r]xyz",  # RE2's classes are ASCII
    r"x[a[:alpha:]]yzw",  # "[:" with a ":]" after it: a POSIX class to RE2
    r"(?i:İzmir)", r"ıyı",  # RE2 takes these for equal to no other letter
])
def test_what_cannot_be_told_always_runs(source):
    assert always_runs(re.compile(source))
    assert could_match(re.compile(source), "")


@pytest.mark.parametrize("source, text, skipped", [
    (r"(?<![\w-])love(?!\w)", "I love it", "I like it"),  # listed look-arounds: the copy RE2 reads has none
    (r"(?<![^\W\d_]\s)[^\W\d_]+ists?\b", "pianists", "pianos"),  # and "[^\W\d_]" is any letter
    (r"a\\[^\W\d_]+love", "a\\ślove", "a\\ś"),  # after an escaped backslash the class is syntax
    (r"\d{4,64}+\s*(?:is|=)*+\s*the pin", "1234 = the PIN", "1234 = the pan"),  # possessive: greedy
    (r"[:=]\s*secret", "key: SECRET", "key: none"),  # "[:" without ":]" after it: two characters
])
def test_the_listed_pieces_are_read_with_their_stand_ins(source, text, skipped):
    pattern = re.compile(source, re.I)
    assert not always_runs(pattern)
    assert pattern.search(text) and could_match(pattern, text)
    assert not pattern.search(skipped) and not could_match(pattern, skipped)


@pytest.mark.parametrize("piece", prefilter.LOOKAROUNDS)
def test_each_listed_look_around_is_one_whole_look_around_holding_no_other(piece):
    assert re.match(r"\(\?<?[=!]", piece)
    re.compile(piece)
    assert not any(_compiles(piece[:end]) for end in range(1, len(piece)))  # its first "(" closes at its end
    assert not re.search(r"\(\?<?[=!]", piece[1:])


def _compiles(source: str) -> bool:
    try:
        re.compile(source)
    except re.error:
        return False
    return True


@pytest.mark.parametrize("source, text", [
    (r"(x\(?!\w)love", "x!alove"),  # an escaped "(": no look-around
    (r"[(?!\w)]:love", "?:love"),  # inside a class: characters
    (r"[a[^\W\d_]+love", "__love"),  # so here ("[" in a class is a character)
])
def test_pieces_that_are_no_syntax_keep_their_place(source, text):
    pattern = re.compile(source)
    assert prefilter.re2_source(pattern) in (source, None)  # as written, or not read at all
    assert pattern.search(text) and could_match(pattern, text)


def alternatives(count: int) -> str:
    return "|".join(f"{chr(0x4E00 + n)}word" for n in range(count))  # no common start, no case to fold


@pytest.mark.parametrize("count", [3, 16, 150])
def test_a_list_of_alternatives_is_skipped_or_run_but_never_skipped_wrongly(count):
    pattern = re.compile(f"(?:{alternatives(count)})")
    for text in (f"a {chr(0x4E00 + count - 1)}word", f"{chr(0x4E00)}WORD"):
        assert could_match(pattern, text)
    assert could_match(pattern, "nothing of it here") == always_runs(pattern)
    assert not always_runs(re.compile(f"(?:{alternatives(3)})"))


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
    other = re.compile("beta")
    prefilter._KNOWN[id(first)] = (other, PatternFilter([other]), 0)  # as if another pattern had had this id
    assert not could_match(first, "beta")  # the entry is not this pattern's: it is read afresh


def test_learning_a_modules_patterns_reads_each_once_wherever_it_sits(monkeypatch):
    module = types.ModuleType("rules_for_the_test")
    alone, in_list, in_dict = re.compile(r"\bowl\b"), re.compile(r"\bwren\b"), re.compile(r"\bheron\b")
    module.ALONE, module.TABLE, module.BY_NAME = alone, [(in_list, "x"), ("y", alone)], {"a": in_dict}
    module.WORDS = {"owl", "wren"}
    assert prefilter.learn_patterns([module]) == 3
    monkeypatch.setattr(prefilter, "PatternFilter", lambda patterns: pytest.fail("read again"))
    assert not could_match(alone, "a crow") and not could_match(in_list, "a crow") and could_match(in_dict, "a heron")


# Random patterns over a small alphabet full of case traps, against random texts over the same alphabet:
# wherever the regex engine finds a match, the prefilter must not have said there is none.
ALPHABET = "aAbiIİısSſσςΣвВᲀkK\u212a -\xa0\u2009\t"
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
        children.map(lambda part: f"{part}[^\\S\\n]{part}"),
        children.map(lambda part: f"(?:{part}){{,2}}"),
        st.lists(st.sampled_from(list(ALPHABET)), min_size=1, max_size=4).map(
            lambda chars: "[" + "".join(re.escape(c) for c in chars) + "]"),
    )


REGEX = st.recursive(st.one_of(LITERAL, st.sampled_from([r"\b", r"\w", ".", r"\s", r"[\s,]", r"\xa0"])), _regex,
                     max_leaves=12)


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
    assert sum(not always_runs(pattern) for pattern in patterns.values()) > len(patterns) * 2 // 5
    texts = [text for name in CORPORA for text in corpus_texts(name)]
    skipped = 0
    for pattern in patterns.values():
        for text in texts:
            if not could_match(pattern, text):
                skipped += 1
                assert not pattern.search(text), (pattern.pattern, text)
    assert skipped > len(patterns) * len(texts) // 3  # it does skip: most passes find nothing to do


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
    rows = [("went", went), ("any", anything), ("walked", walked), ("went again", went)]  # atoms: 3 letters or more
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
    monkeypatch.setattr(prefilter, "PatternFilter", lambda patterns: pytest.fail("read again"))
    assert module.TRIGGERS.possible("a kestrel") == list(module.TRIGGERS.rows)


def test_learning_again_builds_nothing_unless_a_pattern_is_new(monkeypatch):
    # A second bot in one process (the tests start hundreds) finds the filters the first one's warm-up built.
    module = types.ModuleType("rules_for_the_test")
    module.ALONE, module.TRIGGERS = re.compile(r"\bsnipe\b"), Shortlist([re.compile(r"\bcurlew\b")])
    own = Shortlist([re.compile(r"\bgodwit\b")])  # a table learn_patterns does not see
    prefilter.learn_patterns([module])
    built = own.build(), module.TRIGGERS.build()
    with monkeypatch.context() as again:
        again.setattr(prefilter, "PatternFilter", lambda *args, **kwargs: pytest.fail("built again"))
        assert prefilter.learn_patterns([module]) == 2
        assert (own.build(), module.TRIGGERS.build()) == built
        assert not could_match(module.ALONE, "a crow")
        assert module.TRIGGERS.possible("a curlew") == [module.TRIGGERS.rows[0]]
    module.NEW = re.compile(r"\bstint\b")
    prefilter.learn_patterns([module])  # one pattern more: the shared filter is built again, with all three
    assert module.TRIGGERS.build()[0] is not built[1][0] and not could_match(module.NEW, "a crow")
    assert could_match(module.NEW, "a stint") and module.TRIGGERS.possible("a curlew") == [module.TRIGGERS.rows[0]]


def test_while_learning_is_expected_nothing_is_built_on_the_asking_thread_and_every_pattern_runs(monkeypatch):
    # bot.py's warm-up learns the patterns in a thread; a first message meanwhile must not build RE2's filters
    # on the event loop (it held the loop for up to a second): it runs the patterns unfiltered instead.
    module = types.ModuleType("rules_for_the_test")
    module.ALONE, module.TRIGGERS = re.compile(r"\bplover\b"), Shortlist([re.compile(r"\bdunlin\b")])
    later = Shortlist([re.compile(r"\bruff\b")])  # one learn_patterns does not see, as a table built in a function
    monkeypatch.setattr(prefilter._coming, "learning", False)
    prefilter.expect_learning()
    with monkeypatch.context() as building:
        building.setattr(prefilter, "PatternFilter", lambda patterns: pytest.fail("built while learning"))
        assert could_match(module.ALONE, "a crow")  # not known yet: it runs
        assert module.TRIGGERS.possible("a crow") == list(module.TRIGGERS.rows)
        assert later.possible("a crow") == list(later.rows)
    assert prefilter.learn_patterns([module]) == 2
    assert not prefilter._coming.learning
    assert not could_match(module.ALONE, "a crow") and module.TRIGGERS.possible("a crow") == []
    assert later.possible("a crow") == [] and later.possible("a ruff") == list(later.rows)  # built when first asked


def test_learning_that_fails_still_ends_the_wait(monkeypatch):
    monkeypatch.setattr(prefilter._coming, "learning", False)
    prefilter.expect_learning()
    with pytest.raises(TypeError):
        prefilter.learn_patterns([object()])  # not a module: vars() refuses it
    assert not prefilter._coming.learning
