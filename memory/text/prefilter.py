"""A cheap test that a pattern cannot match a text, so that the rules skip most of their regex passes.

Each pattern is read once (Python's own regex parser) for words that every match must contain: "went" in
`\\bi went\\b`, one of "moved to" or "переехал" in `(?:moved to|переехал)`. A text that holds none of them
cannot match, and the pattern is not run on it. Texts are compared case-folded the way the regex engine
folds them, so a pattern compiled with IGNORECASE is never skipped wrongly; where no such words can be told
(`\\w+`, `.*`, a long list of alternatives) the pattern always runs.

Nothing here changes what the rules find: `could_match` only says False where the pattern has no match
(tests/test_prefilter.py checks this on every pattern of the rules, and on random patterns full of case traps).
It reads the regex parser of Python 3.11's `re` package, which has no public equivalent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import product
from re import _casefix, _parser  # type: ignore[attr-defined]  # the standard library's own regex parser
from re._constants import (  # type: ignore[attr-defined]
    ASSERT,
    ASSERT_NOT,
    AT,
    ATOMIC_GROUP,
    BRANCH,
    IN,
    LITERAL,
    MAX_REPEAT,
    MIN_REPEAT,
    POSSESSIVE_REPEAT,
    RANGE,
    SUBPATTERN,
)

MAX_WORDS = 12  # a longer list of alternatives costs more to look for than the regex pass it would save
MAX_CLASS = 4  # a character class as small as [её] is spelled out; a larger one ends a run of letters

# The regex engine folds case character by character (simple lowercase) and treats a few more as equal
# ("ı" and "i", "ſ" and "s", "ς" and "σ", the old Cyrillic "ᲀ" and "в"); each such group is folded here to
# its lowest member. "İ" is the one character whose str.lower() is two characters, so it is folded first.
_EXTRA = {chr(member): chr(min(code, *others)) for code, others in _casefix._EXTRA_CASES.items()
          for member in (code, *others)}
_TABLE = str.maketrans({key: value for key, value in _EXTRA.items() if key != value})


@lru_cache(maxsize=64)
def folded(text: str) -> str:
    """Return `text` case-folded as the regex engine compares it: two characters that IGNORECASE takes for the
    same fold to the same one here (the last few texts are cached: every rule reads the same sentences)."""
    if text.isascii():
        return text.lower()
    return text.replace("İ", "i").lower().translate(_TABLE)


def could_match(pattern: re.Pattern[str], text: str) -> bool:
    """False only when `pattern` has no match anywhere in `text`."""
    known = _KNOWN.get(id(pattern))
    words = known[1] if known is not None and known[0] is pattern else _learn(pattern)
    if words is None:
        return True
    last = _LAST
    view = last[1] if last[0] is text else _remember(text)
    for word in words:
        if word in view:
            return True
    return False


# The text asked about last, and its folded view: the rules ask about one sentence for pattern after pattern, and
# the identity test costs less than folded's cache. One tuple, replaced whole, so that a thread never reads half.
_LAST: tuple[str, str] = ("", "")


def _remember(text: str) -> str:
    global _LAST
    view = folded(text)
    _LAST = (text, view)
    return view


# id(pattern) -> (pattern, its words): a pattern's own hash reads its whole compiled program each time, and
# the rules ask about a few hundred patterns for every sentence. Holding the pattern keeps its id from being
# reused; patterns compiled on the fly (a few) are let go when the table grows past its bound.
_KNOWN: dict[int, tuple[re.Pattern[str], tuple[str, ...] | None]] = {}
MAX_KNOWN = 4096


def _learn(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    if len(_KNOWN) >= MAX_KNOWN:
        _KNOWN.clear()
    words = needed(pattern)
    _KNOWN[id(pattern)] = (pattern, words)
    return words


def needed(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Return folded words one of which every match of `pattern` contains, or None when none can be told."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        _exact, need = _sequence(_parser.parse(pattern.pattern, pattern.flags))
    except (re.error, TypeError, ValueError):  # a parser of another Python version: always run the pattern
        return None
    if not need:
        return None
    return tuple(sorted(word for word in need if not any(other != word and other in word for other in need)))


Words = frozenset  # of folded strings


def _sequence(items) -> tuple[Words | None, Words | None]:
    """Return (the strings a sequence can match exactly when that is a short list, else None;
    the best words one of which every match of it contains, else None)."""
    run: Words = frozenset({""})
    whole: Words | None = run
    candidates: list[Words] = []
    for op, av in items:
        exact, need = _item(op, av)
        if exact is not None and len(run) * len(exact) <= MAX_WORDS:
            run = frozenset(a + b for a, b in product(run, exact))
            continue
        candidates.append(run)
        whole = None
        if exact is not None:
            run = exact
        else:
            run = frozenset({""})
            if need:
                candidates.append(need)
    candidates.append(run)
    return (run if whole is not None else None), _best(candidates)


def _item(op, av) -> tuple[Words | None, Words | None]:
    """Return (exact strings, needed words) of one parsed item."""
    if op is LITERAL:
        one = frozenset({folded(chr(av))})
        return one, one
    if op in (AT, ASSERT, ASSERT_NOT):  # zero width: what is on either side of it stays side by side
        return frozenset({""}), None
    if op is IN:
        chars = _class(av)
        return chars, chars
    if op is SUBPATTERN:
        return _sequence(av[-1])
    if op is ATOMIC_GROUP:
        return _sequence(av)
    if op is BRANCH:
        return _branch(av[1])
    if op in (MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT):
        low, high, inner = av
        exact, need = _sequence(inner)
        if low == high == 1:
            return exact, need
        if low == 0 and high == 1 and exact is not None:
            return exact | {""}, None
        return None, need if low >= 1 else None
    return None, None  # any character, a negated or large class, a back-reference, a condition


def _class(members) -> Words | None:
    """Return the folded characters a character class matches, when it is a short list of them."""
    chars: set[str] = set()
    for op, av in members:
        if op is LITERAL:
            chars.add(folded(chr(av)))
        elif op is RANGE and av[1] - av[0] < MAX_CLASS:
            chars |= {folded(chr(code)) for code in range(av[0], av[1] + 1)}
        else:
            return None
    return frozenset(chars) if len(chars) <= MAX_CLASS else None


def _branch(alternatives) -> tuple[Words | None, Words | None]:
    exact: set[str] | None = set()
    need: set[str] | None = set()
    for alternative in alternatives:
        one_exact, one_need = _sequence(alternative)
        exact = exact | one_exact if exact is not None and one_exact is not None else None
        if need is not None:
            words = one_need if one_need else one_exact if one_exact and "" not in one_exact else None
            need = need | words if words else None
    exact_words = frozenset(exact) if exact is not None and len(exact) <= MAX_WORDS else None
    need_words = frozenset(need) if need and len(need) <= MAX_WORDS else None
    return exact_words, need_words


def _best(candidates: list[Words]) -> Words | None:
    """Return the candidate that rules out most texts for least work: longest shortest word, fewest words."""
    usable = [words for words in candidates if words and "" not in words and len(words) <= MAX_WORDS]
    if not usable:
        return None
    return max(usable, key=lambda words: (min(3, min(map(len, words))), -len(words), min(map(len, words))))


_NO_MATCHES: Iterator[re.Match[str]] = iter(())  # spent already: the same one serves every skipped pass


def matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Return `pattern.finditer(text)`, or nothing at once when `text` cannot hold a match."""
    return pattern.finditer(text) if could_match(pattern, text) else _NO_MATCHES


def first_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """Return `pattern.search(text)`, or None at once when `text` cannot hold a match."""
    return pattern.search(text) if could_match(pattern, text) else None


def substitute(pattern: re.Pattern[str], replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
    """Return `pattern.sub(replacement, text)`, or `text` at once when it cannot hold a match."""
    return pattern.sub(replacement, text) if could_match(pattern, text) else text
