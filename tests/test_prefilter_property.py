"""memory/text/prefilter.py against the regex engine itself, asked only through the public `re` API.

The prefilter may skip a pattern only where the pattern has no match. Its two parts are checked where they
could go wrong: the case folding (every pair of characters the engine takes for equal under IGNORECASE must
fold to one character, whatever the Unicode version of the Python that runs this, and RE2's filter must find a
pattern's letter in the folded text of each character the engine takes for equal to it), and RE2's reading of
the patterns (texts made to match each pattern of the project, and of random patterns in all of `re`'s syntax,
are never skipped, also after each character is swapped for one the engine takes for equal: "ſ" for
"s", the Kelvin sign for "k", "ı" or "İ" for "i", "Ё" for "ё", "ᲀ" for "в").
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from functools import lru_cache
from pathlib import Path
from random import Random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memory
from memory.text import prefilter
from memory.text.prefilter import Shortlist, always_runs, could_match, folded
from tests.rules_golden import CORPORA, corpus_texts

fold = folded.__wrapped__  # uncached


def _cased() -> str:
    """Return every character with a case mapping, and every single character such a mapping gives."""
    chars: set[str] = set()
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF or (char.lower() == char and char.upper() == char):
            continue
        chars.add(char)
        chars.update(image for image in (char.lower(), char.upper()) if len(image) == 1)
    return "".join(sorted(chars))


# A character without a case mapping of its own is equal under IGNORECASE only to the characters that lower
# to it, and those are here: so asking the engine about these characters asks it about every pair there is.
CASED = _cased()


@lru_cache(maxsize=None)
def engine_equals(char: str) -> str:
    """Return the characters the regex engine takes for equal to `char` under IGNORECASE (itself included)."""
    if char not in CASED_SET:
        return char
    return "".join(sorted(set(re.findall(re.escape(char), CASED, re.IGNORECASE)) | {char}))


CASED_SET = frozenset(CASED)


def test_the_characters_the_engine_takes_for_equal_fold_to_one():
    assert len(CASED) > 2500
    for char in CASED:
        assert {fold(other) for other in engine_equals(char)} == {fold(char)}, (char, engine_equals(char))


def test_re2_finds_each_cased_character_in_the_folded_text_of_each_the_engine_takes_for_equal():
    """RE2 compares the atoms case-insensitively in its own way (Unicode's case folding); the fold must leave it
    nothing to miss: a one-letter pattern is never skipped on a character the engine takes for equal to it."""
    unread = 0
    for char in CASED:  # three of it: RE2's filter takes no atom shorter than three characters
        pattern = re.compile(re.escape(char) * 3, re.IGNORECASE)
        unread += always_runs(pattern)  # "İ" and "ı" (RE2 takes them for equal to no other), a few more
        for other in engine_equals(char):
            assert could_match(pattern, other * 3), (char, other)
    assert unread < len(CASED) // 50


@pytest.mark.parametrize("group", ["sSſ", "kK\u212a", "iIİı", "ёЁ", "еЕ", "вВᲀ", "σςΣ", "µμΜ", "ﬅﬆ"])
def test_the_case_traps_are_one_character_each_to_the_engine_and_to_the_fold(group):
    assert set(engine_equals(group[0])) >= set(group)
    assert len({fold(char) for char in group}) == 1
    assert fold("е") != fold("ё")  # different letters to the engine: folding them together would only cost


def test_the_prefilter_imports_no_private_module():
    tree = ast.parse(Path(prefilter.__file__).read_text(encoding="utf-8"))
    names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    names += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    names += [f"{node.module}.{alias.name}" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
              for alias in node.names]
    assert names
    private = [name for name in names if name != "__future__"
               and any(part.startswith("_") for part in name.split(".")) and not name.startswith("__future__.")]
    assert private == []


def _patterns_of_the_project() -> list[re.Pattern[str]]:
    """Return every compiled pattern held by a module of memory/ (in a constant, a tuple, a list or a dict)."""
    found: dict[int, re.Pattern[str]] = {}

    def collect(value: object, depth: int = 0) -> None:
        if isinstance(value, re.Pattern):
            found[id(value)] = value
        elif isinstance(value, (tuple, list, set, frozenset)) and depth < 3:
            for item in value:
                collect(item, depth + 1)
        elif isinstance(value, dict) and depth < 3:
            for item in (*value.keys(), *value.values()):
                collect(item, depth + 1)
        elif isinstance(value, Shortlist):
            collect(value.rows, depth)

    for module in pkgutil.walk_packages(memory.__path__, "memory."):
        for value in vars(importlib.import_module(module.name)).values():
            collect(value)
    return sorted((pattern for pattern in found.values() if isinstance(pattern.pattern, str)),
                  key=lambda pattern: (pattern.pattern, pattern.flags))


PATTERNS = _patterns_of_the_project()


def test_re2_reads_most_patterns_of_the_project():
    """Those it does not read (look-arounds, mostly) or finds no atoms in always run: safe, but never skipped."""
    assert len(PATTERNS) > 400
    assert sum(not always_runs(pattern) for pattern in PATTERNS) > len(PATTERNS) * 2 // 5


def case_traps(text: str, random: Random) -> str:
    """Return `text` with each character, maybe, swapped for one the engine takes for equal."""
    return "".join(random.choice(engine_equals(char)) for char in text)


SLOW = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]


def _check_texts_made_to_match(pattern: re.Pattern[str]) -> None:
    @settings(max_examples=2, deadline=None, database=None, suppress_health_check=SLOW)
    @given(text=st.from_regex(pattern), random=st.randoms(use_true_random=False))
    def check(text, random):
        assert pattern.search(text)
        assert could_match(pattern, text), (pattern.pattern, text)
        swapped = case_traps(text, random)
        if pattern.search(swapped):
            assert could_match(pattern, swapped), (pattern.pattern, swapped)

    check()


def test_texts_made_to_match_each_pattern_of_the_project_are_never_skipped():
    for pattern in PATTERNS:  # a few texts for each: from_regex is slow on the long lists of alternatives
        _check_texts_made_to_match(pattern)


def _swapped(text: str, seed: int) -> str:
    return case_traps(text, Random(seed))


def test_no_pattern_of_the_project_is_skipped_on_a_corpus_message_in_other_cases():
    texts = [text for name in CORPORA for text in corpus_texts(name)]
    variants = {variant for text in texts for variant in (text.upper(), _swapped(text, 1), _swapped(text, 2))}
    searched = 0
    for pattern in PATTERNS:
        if not pattern.flags & re.IGNORECASE:
            continue
        for text in variants:
            if not could_match(pattern, text):
                searched += 1
                assert not pattern.search(text), (pattern.pattern, text)
    assert searched > 100_000


# Random patterns in all of `re`'s syntax, over letters that are case traps and spaces RE2's `\s` does not know.
TRAPS = "aAbsSſkK\u212aiIİıеЕёЁвВᲀσςΣ -\xa0\u2009\v"
ESCAPED = st.sampled_from([
    r"\x41", r"\u0451", r"\u212a", r"\U0000017f", r"\N{LATIN SMALL LETTER DOTLESS I}",
    r"\N{CYRILLIC CAPITAL LETTER IO}", r"\.", r"\-", r"\]", r"\{", r"\ ", r"\t", r"\xa0", r"\v", r"\013",
])
LETTER = st.one_of(st.sampled_from([re.escape(char) for char in TRAPS]), ESCAPED)
CLASS_MEMBER = st.one_of(
    LETTER,
    st.sampled_from(["a-c", "A-C", "а-г", "е-ё", "i-k", "r-t", r"\w", r"\d", r"\s", r"\b", "-",
                     "[:", ":]", "[:alpha:]"]),  # RE2's POSIX classes
)
CLASS = st.tuples(st.booleans(), st.booleans(), st.lists(CLASS_MEMBER, min_size=1, max_size=3)).map(
    lambda parts: "[" + ("^" if parts[0] else "") + ("]" if parts[1] else "") + "".join(parts[2]) + "]")
QUANTIFIER = st.sampled_from(["*", "+", "?", "{2}", "{1,2}", "{,2}", "{2,}", "{0}", "{1}", "{0,1}"])
GREED = st.sampled_from(["", "?", "+"])
# The pieces the copy RE2 reads has stand-ins for, as syntax, escaped, and inside a class.
PIECE = st.sampled_from(sorted(prefilter.STAND_INS))
PLACED = st.one_of(PIECE, PIECE.map(lambda piece: "\\" + piece), PIECE.map(lambda piece: f"[{piece}]"),
                   PIECE.map(lambda piece: f"[a{piece}]"), PIECE.map(lambda piece: "\\\\" + piece))
ATOM = st.one_of(LETTER, CLASS, PLACED, st.sampled_from([r"\b", r"\B", r"\w", r"\W", r"\s", r"\d", ".", "^", "$",
                                                         "{", "}", "a{", "{}", "{x}", "{,}", "]", "a{,2}"]))


def _compound(children):
    return st.one_of(
        st.lists(children, min_size=1, max_size=4).map("".join),
        st.lists(children, min_size=2, max_size=4).map(lambda parts: "(?:" + "|".join(parts) + ")"),
        st.lists(children, min_size=2, max_size=3).map(lambda parts: "(" + "|".join(parts) + ")"),
        st.tuples(children, st.lists(children, min_size=2, max_size=3)).map(  # alternatives with a common start
            lambda parts: "(?:" + "|".join(parts[0] + rest for rest in parts[1]) + ")"),
        st.tuples(children, QUANTIFIER, GREED).map(lambda parts: f"(?:{parts[0]}){parts[1]}{parts[2]}"),
        st.tuples(children, QUANTIFIER).map(lambda parts: f"(?P<name>{parts[0]}){parts[1]}"),
        st.tuples(st.sampled_from(["=", "!", "<=", "<!"]), children).map(lambda parts: f"(?{parts[0]}{parts[1]})"),
        st.tuples(st.sampled_from(["i", "-i", "s", "a", "m"]), children).map(lambda parts: f"(?{parts[0]}:{parts[1]})"),
        children.map(lambda part: f"(?>{part})"),
    )


REGEX = st.recursive(ATOM, _compound, max_leaves=10)


def _compiled(source: str, flags: int) -> re.Pattern[str] | None:
    try:
        return re.compile(source, flags)
    except (re.error, OverflowError, FutureWarning):  # "[]--]" warns of set operations to come: none of ours
        return None


@settings(max_examples=1500, deadline=None, suppress_health_check=SLOW)
@given(data=st.data(), source=REGEX, flags=st.sampled_from([0, re.IGNORECASE]))
def test_random_patterns_are_never_skipped_on_texts_made_to_match_them(data, source, flags):
    pattern = _compiled(source, flags)
    if pattern is None:
        return  # "(?:a^)*" and the like: not a pattern at all
    text = data.draw(st.one_of(st.from_regex(pattern), st.text(alphabet=TRAPS, max_size=10)))
    for candidate in (text, case_traps(text, data.draw(st.randoms(use_true_random=False)))):
        if pattern.search(candidate):
            assert could_match(pattern, candidate), (source, flags, candidate)


@pytest.mark.parametrize("source", [
    r"(a)\1x", r"(?#note)word", r"word(?#note)*", r"(a)?(?(1)b|c)word", r"\0word", r"\101word",
    r"(?x) w o r d", r"(?x:w o r d)", r"(?s-x:word)",
])
def test_what_re2_does_not_read_as_re_does_always_runs(source):
    pattern = re.compile(source)
    assert always_runs(pattern)
    assert could_match(pattern, "nothing alike")


def test_verbose_patterns_always_run():
    pattern = re.compile("w o r d  # a comment", re.VERBOSE)
    assert always_runs(pattern)
    assert could_match(pattern, "word")


@pytest.mark.parametrize("source, text", [
    (r"a{,2}bcd", "bcd"),  # a quantifier with no lower bound: letters to RE2
    (r"ab{x}", "ab{x}"),  # braces that are no quantifier stand for themselves
    (r"ab{}c", "ab{}c"),
    (r"a{,}bc", "bc"),  # "{,}" is "*"
    (r"x[]a]y", "x]y"),  # "]" first in a class is a member
    (r"x[a-]y", "x-y"),  # so is "-" last
    (r"x[\b]y", "x\by"),  # in a class, "\b" is a backspace
    (r"\N{CYRILLIC CAPITAL LETTER IO}лка", "Ёлка"),
    (r"\x4b\u0430\U0000043f", "Kап"),
    (r"(?i)(?:ab|ac|ad)", "AD"),
    (r"(?-i:Word)s", "Words"),
    (r"(?P<n>ab)(?P=n)", "abab"),
    (r"(?<=\bmy )cat(?=s?\b)", "my cats"),
    (r"word[^\S\n]word", "word\xa0word"),  # RE2's \S is ASCII
    (r"x\sy", "x\u2003y"),  # and so is its \s: the text's other spaces are read as " "
    (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10", "abcdefghijj"),  # an octal escape to RE2
])
def test_the_corners_of_the_syntax_are_never_skipped_where_they_match(source, text):
    pattern = re.compile(source, re.IGNORECASE)
    assert pattern.search(text)
    assert could_match(pattern, text)
