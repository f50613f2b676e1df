"""A cheap test that a pattern cannot match a text, so that the rules skip most of their regex passes.

Each pattern is read once for words that every match must contain: "went" in `\\bi went\\b`, one of
"moved to" or "переехал" in `(?:moved to|переехал)`. A text that holds none of them cannot match, and the
pattern is not run on it. Texts are compared case-folded the way the regex engine folds them, so a pattern
compiled with IGNORECASE is never skipped wrongly; where no such words can be told (`\\w+`, `.*`, a long list
of alternatives) the pattern always runs.

The reader below is our own, for the syntax of `re` (literals, escapes, classes, groups, alternatives,
look-arounds, quantifiers, scoped flags), shaped as the standard library's parser shapes its tree (a start that
all alternatives share taken out, alternatives of one character made a class, plain groups spliced in), so the
words are those that parser gave; that parser is private and changes between versions without notice, so it
is not imported. Anything the reader does not know (numbered back-references, conditionals, comments, verbose
mode, octal escapes) makes the pattern always run.

Nothing here changes what the rules find: `could_match` only says False where the pattern has no match
(tests/test_prefilter.py and tests/test_prefilter_property.py check this on every pattern of the rules, on
random patterns full of case traps, and the folding on every Unicode character).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import product
from types import ModuleType
from typing import Generic, TypeVar

# Looking for each word of a long list of alternatives (some 50 ns a word) still costs less than a regex pass
# over that alternation (5-25 µs for the rules' longest on a sentence): up to this many words, a pattern is
# skipped when none is there (issue 42: this took the rules from some 370 to 240 µs a message).
MAX_WORDS = 200
MAX_CLASS = 4  # a character class as small as [её] is spelled out; a larger one ends a run of letters
R = TypeVar("R")  # what a Shortlist holds: a pattern, or a row with one in it

# The regex engine folds case character by character (simple lowercase) and takes a few more for equal: the
# lowercase letters that share an uppercase ("ı" and "i" are both "I"). Each group is folded here to its lowest
# member. The groups come from the Unicode data of the Python in use, so they change, if ever, with a minor
# version; tests/test_prefilter_property.py asks the engine itself about every cased character, and fails
# if a pair it takes for equal folds apart here.
CASE_GROUPS = (
    "i\u0131",  # i, dotless ı
    "s\u017f",  # s, long ſ
    "\u00b5\u03bc",  # micro sign, mu
    "\u0345\u03b9\u1fbe",  # combining ypogegrammeni, iota, prosgegrammeni
    "\u0390\u1fd3",  # iota with dialytika and tonos, two spellings
    "\u03b0\u1fe3",  # upsilon with dialytika and tonos, two spellings
    "\u03b2\u03d0",  # beta, curled beta
    "\u03b5\u03f5",  # epsilon, lunate epsilon
    "\u03b8\u03d1",  # theta, script theta
    "\u03ba\u03f0",  # kappa, kappa symbol
    "\u03c0\u03d6",  # pi, omega pi
    "\u03c1\u03f1",  # rho, tailed rho
    "\u03c2\u03c3",  # final sigma, sigma
    "\u03c6\u03d5",  # phi, phi symbol
    "\u0432\u1c80",  # в, rounded ve
    "\u0434\u1c81",  # д, long-legged de
    "\u043e\u1c82",  # о, narrow o
    "\u0441\u1c83",  # с, wide es
    "\u0442\u1c84\u1c85",  # т, tall te, three-legged te
    "\u044a\u1c86",  # ъ, tall hard sign
    "\u0463\u1c87",  # ѣ, tall yat
    "\ua64b\u1c88",  # monograph uk, unblended uk
    "\u1e61\u1e9b",  # s with dot above, long s with dot above
    "\ufb05\ufb06",  # the two "st" ligatures
)
_TABLE = str.maketrans({member: min(group) for group in CASE_GROUPS for member in group if member != min(group)})


@lru_cache(maxsize=64)
def folded(text: str) -> str:
    """Return `text` case-folded as the regex engine compares it: two characters that IGNORECASE takes for the
    same fold to the same one here (the last few texts are cached: every rule reads the same sentences)."""
    if text.isascii():
        return text.lower()
    # "İ" is the one character whose str.lower() is two characters; the engine lowers it to "i".
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


class Shortlist(Generic[R]):
    """A fixed list of rows, each holding a pattern, asked about one text at a time: `possible(text)` returns, in
    their order, the rows whose pattern `could_match` the text.

    A rule that tries its patterns one after another would ask about each one; here the words of all of them are
    looked for once each (a word several patterns need, once), which costs a fifth of that for the rules' longer
    lists (issue 42). `pattern` picks the pattern out of a row (the row itself by default)."""

    def __init__(self, rows: Iterable[R], pattern: Callable[[R], re.Pattern[str]] | None = None) -> None:
        self.rows = tuple(rows)
        self._pattern = pattern
        self._index: tuple[tuple[int, ...], tuple[tuple[str, tuple[int, ...]], ...]] | None = None

    def possible(self, text: str) -> list[R]:
        """Return the rows whose pattern can match somewhere in `text`, in the order they were given."""
        always, words = self._index or self._build()
        last = _LAST  # read once: see could_match
        view = last[1] if last[0] is text else _remember(text)
        found = set(always)
        for word, rows in words:
            if word in view:
                found.update(rows)
        if not found:
            return []
        rows = self.rows
        return [rows[number] for number in sorted(found)]

    def pattern_of(self, row: R) -> re.Pattern[str]:
        """Return the pattern `row` holds."""
        return row if self._pattern is None else self._pattern(row)  # type: ignore[return-value]

    def _build(self) -> tuple[tuple[int, ...], tuple[tuple[str, tuple[int, ...]], ...]]:
        """Read the patterns' words (learned once, as could_match learns them) into: the rows that always run, and
        each word with the rows that need it."""
        always: list[int] = []
        needing: dict[str, list[int]] = {}
        for number, row in enumerate(self.rows):
            pattern = self.pattern_of(row)
            known = _KNOWN.get(id(pattern))
            words = known[1] if known is not None and known[0] is pattern else _learn(pattern)
            if words is None:
                always.append(number)
            for word in words or ():
                needing.setdefault(word, []).append(number)
        self._index = tuple(always), tuple((word, tuple(rows)) for word, rows in needing.items())
        return self._index


def learn_patterns(modules: Iterable[ModuleType]) -> int:
    """Read now the words of every pattern the modules hold at their top level (alone, or in a list, tuple, set or
    dict there), and build their shortlists, so that no message pays for a pattern's first use (about 0.3 ms each);
    return how many patterns."""
    found: dict[int, re.Pattern[str]] = {}
    shortlists: list[Shortlist] = []
    for module in modules:
        pending = list(vars(module).values())
        while pending:
            value = pending.pop()
            if isinstance(value, re.Pattern):
                found[id(value)] = value
            elif isinstance(value, Shortlist):
                shortlists.append(value)
            # Copied at once before they are looked through (in C, under one hold of the GIL): warm_up reads them in
            # a thread while the loop's thread may add to a module's cache, and a set or dict that changes size
            # during the loop's iteration raises.
            elif isinstance(value, (list, tuple, set, frozenset)) and len(value) < MAX_KNOWN:
                pending += [item for item in tuple(value) if isinstance(item, (re.Pattern, list, tuple))]
            elif isinstance(value, dict) and len(value) < MAX_KNOWN:
                pending += [item for item in tuple(value.values()) if isinstance(item, (re.Pattern, list, tuple))]
    for pattern in found.values():
        could_match(pattern, "")
    for shortlist in shortlists:
        shortlist.possible("")
    return len(found)


def needed(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Return folded words one of which every match of `pattern` contains, or None when none can be told."""
    if not isinstance(pattern.pattern, str) or pattern.flags & re.VERBOSE:
        return None
    try:
        items = parse(pattern.pattern)
    except Unsupported:
        return None
    _exact, need = _sequence(items)
    if not need:
        return None
    return tuple(sorted(word for word in need if not any(other != word and other in word for other in need)))


# The reader. A pattern becomes a list of items, each a tuple whose first member says what it is:
#   ("literal", char)                         ("not literal", char)        ("any",)   ("category", "w")
#   ("at", "^")  an anchor or \b              ("assert", "=", items)       a look-ahead or look-behind
#   ("in", members)  a class: ("literal", c), ("range", low, high), ("category", "d"), ("negate",) first
#   ("group", number or None, flags, items)  ("atomic", items)          ("branch", [items, items, ...])
#   ("repeat", "greedy" | "lazy" | "possessive", low, high or None, items)   ("backref",)
# Items are compared for equality (a prefix that all alternatives share is taken out), as Python's parser does.


class Unsupported(Exception):
    """The pattern uses syntax the reader does not know (or is not valid): it always runs."""


_PLAIN = re.compile(r"[^\\[(){|*+?.^$]+")  # characters that stand for themselves
_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_FLAGS = re.compile(r"([aiLmsu]*)(?:-([ims]*))?([:)])")  # "x" (verbose) is left out: it changes the syntax
_NAME = re.compile(r"[^>)]*")
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}
_ESCAPES = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_CATEGORIES = frozenset("dDsSwW")
_ANCHORS = frozenset("AbBZ")


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.at = 0
        self.groups = 0

    def next(self) -> str:
        """Return the next character without taking it ("" at the end)."""
        return self.source[self.at:self.at + 1]

    def get(self) -> str:
        if self.at >= len(self.source):
            raise Unsupported("unexpected end")
        char = self.source[self.at]
        self.at += 1
        return char

    def take(self, text: str) -> bool:
        if self.source.startswith(text, self.at):
            self.at += len(text)
            return True
        return False


def parse(source: str) -> list[tuple]:
    """Return the items of a regex `source`; raise Unsupported on syntax the reader does not know."""
    reader = _Reader(source)
    items = _alternatives(reader)
    if reader.at != len(source):
        raise Unsupported("unbalanced parenthesis")
    return items


def _alternatives(reader: _Reader) -> list[tuple]:
    alternatives = [_items(reader)]
    while reader.take("|"):
        alternatives.append(_items(reader))
    if len(alternatives) == 1:
        return alternatives[0]
    items = []
    while all(alternatives) and all(other[0] == alternatives[0][0] for other in alternatives[1:]):
        items.append(alternatives[0][0])  # a prefix that every alternative starts with
        alternatives = [alternative[1:] for alternative in alternatives]
    members: list[tuple] = []
    for alternative in alternatives:  # alternatives of one character each make a class
        if len(alternative) != 1:
            break
        if alternative[0][0] == "literal":
            members.append(alternative[0])
        elif alternative[0][0] == "in" and alternative[0][1][0] != ("negate",):
            members.extend(alternative[0][1])
        else:
            break
    else:
        return [*items, ("in", tuple(dict.fromkeys(members)))]
    return [*items, ("branch", alternatives)]


def _items(reader: _Reader) -> list[tuple]:
    """Return the items up to the next "|" or ")" (not taken) or the end."""
    items: list[tuple] = []
    while True:
        char = reader.next()
        if char in ("", "|", ")"):
            # a group that neither captures nor sets flags is spliced into the sequence around it
            return [part for item in items
                    for part in (item[3] if item[0] == "group" and item[1] is None and not item[2] else [item])]
        plain = _PLAIN.match(reader.source, reader.at)
        if plain is not None:  # letters and the like, taken at once; a quantifier after them takes the last
            items += [("literal", char) for char in plain.group()]
            reader.at = plain.end()
            continue
        reader.at += 1
        if char == "{":
            quantifier = _QUANTIFIER.match(reader.source, reader.at - 1)
            if quantifier is None or quantifier.group() == "{}":
                items.append(("literal", "{"))
                continue
            reader.at = quantifier.end()
            low_text, comma, high_text = quantifier.groups()
            low = int(low_text) if low_text else 0
            high = (int(high_text) if high_text else None) if comma else low
            _repeat(reader, items, low, high)
        elif char in "*+?":
            _repeat(reader, items, 1 if char == "+" else 0, 1 if char == "?" else None)
        elif char == "(":
            _group(reader, items)
        elif char == "[":
            items.append(_class(reader))
        elif char == "\\":
            items.append(_escape(reader, in_class=False))
        elif char == ".":
            items.append(("any",))
        elif char in "^$":
            items.append(("at", char))
        else:
            items.append(("literal", char))


def _repeat(reader: _Reader, items: list[tuple], low: int, high: int | None) -> None:
    if not items or items[-1][0] in ("at", "repeat") or (high is not None and high < low):
        raise Unsupported("nothing to repeat")  # not valid: the pattern would not have compiled
    item = items.pop()
    inner = item[3] if item[0] == "group" and item[1] is None and not item[2] else [item]
    kind = "lazy" if reader.take("?") else "possessive" if reader.take("+") else "greedy"
    items.append(("repeat", kind, low, high, inner))


def _group(reader: _Reader, items: list[tuple]) -> None:
    """Read a group after its "(" and add it to `items` (global flags such as "(?i)" add nothing)."""
    if not reader.take("?"):
        reader.groups += 1
        number = reader.groups
        items.append(("group", number, "", _group_end(reader)))
    elif reader.take(":"):
        items.append(("group", None, "", _group_end(reader)))
    elif reader.take("P<"):
        _group_name(reader)
        reader.groups += 1
        number = reader.groups
        items.append(("group", number, "", _group_end(reader)))
    elif reader.take("P="):
        _group_name(reader, ")")
        items.append(("backref",))
    elif reader.next() in ("=", "!") or reader.take("<"):
        direction = reader.get()
        if direction not in "=!":
            raise Unsupported("unknown extension")
        items.append(("assert", direction, _group_end(reader)))
    elif reader.take(">"):
        items.append(("atomic", _group_end(reader)))
    else:  # flags, or what the reader does not know: a comment, a condition
        flags = _FLAGS.match(reader.source, reader.at)
        if flags is None or not (flags.group(1) or flags.group(2) is not None):
            raise Unsupported("unknown extension")
        reader.at = flags.end()
        if flags.group(3) == ":":
            items.append(("group", None, flags.group(1) + "-" + (flags.group(2) or ""), _group_end(reader)))


def _group_name(reader: _Reader, end: str = ">") -> None:
    name = _NAME.match(reader.source, reader.at).group()
    reader.at += len(name)
    if not name or not reader.take(end):
        raise Unsupported("bad group name")


def _group_end(reader: _Reader) -> list[tuple]:
    items = _alternatives(reader)
    if not reader.take(")"):
        raise Unsupported("missing )")
    return items


def _class(reader: _Reader) -> tuple:
    """Read a character class after its "["."""
    negate = reader.take("^")
    members: list[tuple] = []
    while True:
        char = reader.get()
        if char == "]" and members:
            break
        first = _escape(reader, in_class=True) if char == "\\" else ("literal", char)
        if not reader.take("-"):
            members.append(first)
            continue
        char = reader.get()
        if char == "]":
            members += [first, ("literal", "-")]
            break
        last = _escape(reader, in_class=True) if char == "\\" else ("literal", char)
        if first[0] != "literal" or last[0] != "literal" or last[1] < first[1]:
            raise Unsupported("bad character range")
        members.append(("range", ord(first[1]), ord(last[1])))
    if len(members) == 1 and members[0][0] == "literal":
        return ("not literal", members[0][1]) if negate else members[0]
    return ("in", (("negate",), *members) if negate else tuple(members))


def _escape(reader: _Reader, in_class: bool) -> tuple:
    """Read what follows a backslash."""
    char = reader.get()
    if char in _CATEGORIES:
        return ("category", char)
    if char in _ANCHORS and not in_class:
        return ("at", char)
    if char == "b":  # in a class, a backspace
        return ("literal", "\b")
    if char in _ESCAPES:
        return ("literal", _ESCAPES[char])
    if char in _HEX_LENGTH:
        digits = reader.source[reader.at:reader.at + _HEX_LENGTH[char]]
        if len(digits) != _HEX_LENGTH[char] or not _HEX_DIGITS.issuperset(digits) or int(digits, 16) > 0x10FFFF:
            raise Unsupported("bad escape")
        reader.at += len(digits)
        return ("literal", chr(int(digits, 16)))
    if char == "N":
        if not reader.take("{"):
            raise Unsupported("missing {")
        end = reader.source.find("}", reader.at)
        if end < 0:
            raise Unsupported("missing }")
        try:
            named = unicodedata.lookup(reader.source[reader.at:end])
        except KeyError:
            raise Unsupported("undefined character name") from None
        reader.at = end + 1
        return ("literal", named)
    if char.isascii() and char.isalnum():
        raise Unsupported("a back-reference, an octal escape, or not valid")
    return ("literal", char)


# What the items say: for each, (the strings it can match exactly when that is a short list, else None; the
# words one of which every match of it contains, else None). Words are folded strings.
Words = frozenset


def _sequence(items: list[tuple]) -> tuple[Words | None, Words | None]:
    """Return (the strings a sequence can match exactly when that is a short list, else None;
    the best words one of which every match of it contains, else None)."""
    run: Words = frozenset({""})
    whole: Words | None = run
    candidates: list[Words] = []
    for item in items:
        exact, need = _item(item)
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


def _item(item: tuple) -> tuple[Words | None, Words | None]:
    """Return (exact strings, needed words) of one item."""
    kind = item[0]
    if kind == "literal":
        one = frozenset({_fold(item[1])})
        return one, one
    if kind in ("at", "assert"):  # zero width: what is on either side of it stays side by side
        return frozenset({""}), None
    if kind == "in":
        chars = _class_chars(item[1])
        return chars, chars
    if kind == "group":
        return _sequence(item[3])
    if kind == "atomic":
        return _sequence(item[1])
    if kind == "branch":
        return _branch(item[1])
    if kind == "repeat":
        _kind, low, high, inner = item[1:]
        exact, need = _sequence(inner)
        if low == high == 1:
            return exact, need
        if low == 0 and high == 1 and exact is not None:
            return exact | {""}, None
        return None, need if low >= 1 else None
    return None, None  # any character, a negated character, a category, a back-reference


def _fold(char: str) -> str:
    return folded.__wrapped__(char)


def _class_chars(members: tuple) -> Words | None:
    """Return the folded characters a character class matches, when it is a short list of them."""
    chars: set[str] = set()
    for member in members:
        if member[0] == "literal":
            chars.add(_fold(member[1]))
        elif member[0] == "range" and member[2] - member[1] < MAX_CLASS:
            chars |= {_fold(chr(code)) for code in range(member[1], member[2] + 1)}
        else:
            return None  # a negated class, a category, a long range
    return frozenset(chars) if len(chars) <= MAX_CLASS else None


def _branch(alternatives: list[list[tuple]]) -> tuple[Words | None, Words | None]:
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
