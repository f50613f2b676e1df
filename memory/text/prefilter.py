"""A cheap test that a pattern cannot match a text, so that the rules skip most of their regex passes.

Built on RE2's FilteredRE2 (google-re2's `re2.Filter`): RE2's own parser reads each pattern once for the literal
strings ("atoms") its matches must contain, and one pass of RE2's set of all those atoms over a text tells which
patterns could match it; the others are not run. The patterns stay Python `re` patterns: RE2 only says which of
them to skip, and we keep no parser of regex syntax of our own.

Safety (`could_match` says False only where `re` finds no match) rests on four things, each checked by
tests/test_prefilter.py and tests/test_prefilter_property.py on every pattern of the rules, on random patterns full
of case and space traps, and on every cased Unicode character:

- the text is folded first, the way `re`'s IGNORECASE compares characters (`folded`), with the spaces that `re`'s
  `\\s` knows and RE2's does not read as " ", and RE2 compares the atoms case-insensitively;
- the copy RE2 reads has, for a listed piece RE2 cannot read or reads otherwise (`STAND_INS`: the look-arounds,
  possessive repeats and `[^\\W\\d_]` the patterns use), a stand-in that matches wherever it does, put only where
  `re` itself says the piece is syntax; so the copy matches at least where the pattern does;
- a pattern RE2 still cannot read (other look-arounds, back-references, atomic groups, `\\u` escapes) always runs;
- so does a pattern with a piece of syntax that RE2 reads, but differently from `re` (`_READ_OTHERWISE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from types import ModuleType
from typing import Generic, TypeVar

import re2

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
# The spaces `re`'s `\s` matches in a str pattern and RE2's `\s` (ASCII: tab, newline, form feed, return, space)
# does not: a text's are read as " ", so that RE2's reading of `\s` covers them. A pattern that names one of them
# itself (or a character near one, that a short range could take in) always runs: `_READ_OTHERWISE`.
OTHER_SPACES = (
    "\v\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_TABLE = str.maketrans({
    **{member: min(group) for group in CASE_GROUPS for member in group if member != min(group)},
    **{space: " " for space in OTHER_SPACES},
})

_ASCII_OTHER_SPACE = re.compile("[\v\x1c-\x1f]")


@lru_cache(maxsize=64)
def folded(text: str) -> str:
    """Return `text` as the prefilter reads it: case-folded as the regex engine compares it (two characters that
    IGNORECASE takes for the same fold to the same one), its other spaces as " " (the last few texts are cached:
    every rule reads the same sentences)."""
    if text.isascii():
        return text.lower() if _ASCII_OTHER_SPACE.search(text) is None else text.lower().translate(_TABLE)
    # "İ" is the one character whose str.lower() is two characters; the engine lowers it to "i".
    return text.replace("İ", "i").lower().translate(_TABLE)


# Pieces of `re` syntax that RE2 reads too, but otherwise; a pattern with one always runs:
#   "{,2}" and "{,}" are repeats to `re`, letters to RE2;
#   "\12" is a back-reference to `re`, an octal escape to RE2 ("\0".."\9", "\x", "\v": see OTHER_SPACES);
#   "[[:blank:]]" is a class of letters and a "]" to `re`, a POSIX class to RE2 (which looks for one at each "[:"
#   inside a class, up to the next ":]" anywhere after it: without a ":]" after it, "[:" is two characters);
#   "[^\S\n]" and its like: RE2's `\S`, `\D`, `\W` are ASCII, so a class that takes them out is small to RE2 and
#   its letters become atoms, where `re` takes in every Unicode space, digit or letter.
#   "[\t-\r]": a range from an escape could take in "\v", read as " " in the text.
_READ_OTHERWISE = re.compile(r"\{,|\\[0-9xv]|\[:.*:\]|\[\^.*\\[SDW]|\\[afnrt]-|-\\[afnrt]", re.DOTALL)
# Characters a pattern that names always runs: "İ" and "ı", which RE2 takes for equal to no other letter, where
# `re` takes both for "i" (tests/test_prefilter_property.py finds them among every cased character); the other
# spaces, and what a class of up to five characters (RE2 makes atoms of those) could take in with them in a range.
_NOT_READ_ALIKE = frozenset(
    "\u0130\u0131"
    + "".join(chr(code) for code in range(0x20))
    + "".join(chr(ord(space) + step) for space in OTHER_SPACES if not space.isascii() for step in range(-5, 6))
)


# Pieces of the project's patterns, exactly as they are written, that RE2 cannot read or reads otherwise, and what
# the copy RE2 reads for atoms has in their place: something that matches wherever they do, so that the copy
# matches at least where the pattern does (it is never run, only read for the strings its matches must hold).
#   - look-arounds (RE2 has none), each the patterns use that holds no other and is 40 characters at most: an
#     empty group matches wherever they do, and a quantifier after one stays on the group;
#   - "[^\W\d_]", a letter to `re`, only an ASCII one to RE2 (its `\W` is ASCII): all but the digits and "_";
#   - possessive repeats (RE2 has none): the greedy repeat matches wherever the possessive one does.
# A piece counts only where it is syntax, not escaped ("\(?!\w)") nor inside a class: `re` itself tells, as
# "()" in its place then makes one group more (`_stand_ins`). A pattern with a look-around not listed here is
# not read by RE2, and always runs; tests/test_prefilter_property.py puts these pieces into random patterns.
LOOKAROUNDS = (
    r"(?![\w'’-])", r"(?<![\w'’-])", r"(?![\w-])", r"(?=\s)", r"(?<![\[\w])", r"(?=\w)", r"(?<![^\W\d_]\s)", r"(?<!\w)",
    r"(?!\w)", r"(?![0-9]|[ -][0-9]|[.,:/][0-9])", r"(?!ьн)", r"(?!(?:меня|нас)\b)", r"(?!['’]s)", r"(?!\d)",
    r"(?<![\w-])", r"(?![0-9])", r"(?!\[[^\]\n]{0,30} hidden\])", r"(?<![\w+-])", r"(?<!\[)", r"(?=\s*(?:[.,;!?)]|$))",
    r"(?!['’])", r"(?<!i['’]d\s)", r"(?!i['’]d\s+say\b)", r"(?!\s+честно)", r"(?=an?\s)",
    r"(?=\w+\s+(?:down|to\s+sleep))", r"(?!\s+(?:в|во|на)\s)", r"(?!,\s*когда)", r"(?!,\s*when)", r"(?!\s+of)",
    r"(?=\s*(?:[,.!;)]|$))", r"(?<![\d:.])", r"(?![:.]?\d)", r"(?!\s+рожден)", r"(?<![\d.,:/$€£₽])", r"(?!\d|\.\d)",
    r"(?![:.]\d)", r"(?<=\d)", r"(?=\d)", r"(?!меня\b|нас\b)", r"(?!ing|ed)", '(?<![^\\s\\"\'`(<\\[:=,])',
    '(?![^\\s\\"\'`)>\\],;.!?])', r"(?=[\w\[])", r"(?<![0-9])", r"(?![A-Za-z0-9_-])", r"(?<![A-Za-z0-9])",
    r"(?![A-Za-z0-9])", r"(?<![\w+])", r"(?=\s+is\s+your\b)", r"(?=(?:[^\s0-9]*[0-9]){3})", r"(?<![\w+\-.,:/])",
    r"(?<![0-9] )", '(?<![^\\s(«\\"\'])', r"(?=[^\s\[]*[0-9A-Za-z!@#$%^&*_+=?~])", r"(?![^\s.,;!?])",
    r"(?=\s*(?:это|is)\b)", r"(?=[A-Z]*[0-9][A-Z]*[0-9])", r"(?!\w|[ -][0-9])", r"(?!000|666|9)", r"(?!00)",
    r"(?!0000)", r"(?=[^\s,;]*[0-9])", r"(?=[^\s,;]*[A-Za-z])", r"(?<![^\W\d_]{3}\s)", r"(?<![^\W\d_]{3},\s)",
    r"(?<!even\s)", r"(?<!даже\s)", r"(?<!from\s)", r"(?!\s+on)", r"(?<![\w@])",
)
POSSESSIVE = ("*+", "++", "?+", "{3,}+", "{4,}+", "{11,}+", "{1,128}+", "{2,64}+", "{4,64}+", "{20,200}+")
STAND_INS = {**dict.fromkeys(LOOKAROUNDS, "(?:)"), r"[^\W\d_]": r"[^\d_]",
             **{possessive: possessive[:-1] for possessive in POSSESSIVE}}
_STAND_IN = re.compile("|".join(re.escape(piece) for piece in sorted(STAND_INS, key=len, reverse=True)))


def _stand_ins(pattern: re.Pattern[str]) -> str:
    """Return `pattern`'s source with each piece of STAND_INS that is syntax there replaced by its stand-in."""
    source = pattern.pattern
    parts: list[str] = []
    start = 0
    for piece in _STAND_IN.finditer(source):
        try:  # "(" opens a group where the piece starts only if the piece is syntax there: the text before is alike
            syntax = re.compile(f"{source[:piece.start()]}(){source[piece.end():]}", pattern.flags).groups
        except (re.error, FutureWarning):  # a warning raised: only where the pattern itself warns
            continue
        if syntax == pattern.groups + 1:
            parts += [source[start:piece.start()], STAND_INS[piece.group()]]
            start = piece.end()
    return "".join(parts) + source[start:] if parts else source


def re2_source(pattern: re.Pattern[str]) -> str | None:
    """Return the pattern RE2 reads for `pattern`'s atoms (its source, with STAND_INS), or None when RE2 may not
    read it: RE2 would read its syntax otherwise than `re`."""
    if not isinstance(pattern.pattern, str) or pattern.flags & re.VERBOSE:
        return None
    source = _stand_ins(pattern) if _STAND_IN.search(pattern.pattern) else pattern.pattern
    if _READ_OTHERWISE.search(source) is not None or not _NOT_READ_ALIKE.isdisjoint(source):
        return None
    return source


def _options() -> re2.Options:
    options = re2.Options()
    options.case_sensitive = False  # atoms are compared folded anyway; this keeps every case of a letter in
    options.log_errors = False  # a pattern RE2 cannot read is expected (it always runs), not an error to print
    return options


_OPTIONS = _options()


@lru_cache(maxsize=64)
def _view(text: str) -> bytes | None:
    """Return the folded text as RE2 reads it (UTF-8), or None where it cannot be encoded (a lone surrogate)."""
    try:
        return folded(text).encode("utf-8")
    except UnicodeEncodeError:
        return None


class PatternFilter:
    """RE2's FilteredRE2 over a fixed list of patterns: `numbers` holds RE2's number for each (-1: it always runs),
    and `found(text)` the numbers of those that could match `text`.

    A pattern RE2 does not read always runs, and so does one it reads but finds no atoms in (FilteredRE2 would
    name it for every text: its "unfiltered" ones); the filter is built again without those. The answers for the
    last texts (MAX_KEPT to twice that) are kept: the rules ask about one sentence for pattern after pattern, and
    about a message's sentences in turn, rule after rule."""

    MAX_KEPT = 16

    def __init__(self, patterns: Iterable[re.Pattern[str]], shared: bool = False) -> None:
        self.patterns = tuple(patterns)
        self.shared = shared  # learn_patterns' filter of every pattern it found
        sources = [re2_source(pattern) for pattern in self.patterns]
        numbers, holder = self._hold(sources)
        unfiltered = set(holder.Match(b"", potential=True) or ()) if holder is not None else set()
        if unfiltered:  # RE2 found no atoms in these: they could match any text, and are left out of RE2's answers
            numbers, holder = self._hold([None if number in unfiltered else source
                                          for source, number in zip(sources, numbers, strict=True)])
        self.numbers = tuple(numbers)  # RE2's number for each pattern, -1 for one that always runs
        self._filter = holder
        self._held = frozenset(number for number in numbers if number >= 0)
        # Two generations, each swapped in whole (threads may ask at once): the newer is let go to the older when
        # it is full, so that the last MAX_KEPT texts are always kept.
        self._kept: dict[str, frozenset[int]] = {}
        self._older: dict[str, frozenset[int]] = {}

    @staticmethod
    def _hold(sources: list[str | None]) -> tuple[list[int], re2.Filter | None]:
        """Give RE2 the sources it can read; return its number for each (-1: not held), and the compiled filter."""
        holder = re2.Filter()
        numbers: list[int] = []
        for source in sources:
            number = -1
            if source is not None:
                try:
                    number = holder.Add(source, _OPTIONS)
                except re2.error:  # look-arounds not listed, back-references and the like: RE2 has none
                    pass
            numbers.append(number)
        if max(numbers, default=-1) < 0:
            return numbers, None  # FilteredRE2 must hold a pattern before it compiles
        holder.Compile()
        return numbers, holder

    def found(self, text: str) -> frozenset[int]:
        """Return RE2's numbers of the patterns it holds that could match somewhere in `text`."""
        found = self._kept.get(text)
        if found is None:
            found = self._older.get(text)
        if found is None:
            view = _view(text)
            if self._filter is None or view is None:
                found = self._held
            else:
                found = frozenset(self._filter.Match(view, potential=True) or ())
            kept = self._kept
            if len(kept) >= self.MAX_KEPT:
                self._older, self._kept = kept, {}
            self._kept[text] = found
        return found


def could_match(pattern: re.Pattern[str], text: str) -> bool:
    """False only when `pattern` has no match anywhere in `text`."""
    known = _KNOWN.get(id(pattern))
    if known is None or known[0] is not pattern:
        if _coming.learning:
            return True  # learn_patterns is on its way in another thread: run the pattern, build nothing here
        known = _learn(pattern)
    number = known[2]
    return number < 0 or number in known[1].found(text)


# id(pattern) -> (pattern, the filter that holds it, RE2's number for it there or -1): a pattern's own hash reads
# its whole compiled program each time, and the rules ask about a few hundred patterns for every sentence. Holding
# the pattern keeps its id from being reused. learn_patterns puts the rules' patterns into one filter, asked once a
# text; a pattern met only later gets a filter of its own (correct, only slower), and those are let go when the
# table grows past its bound.
_KNOWN: dict[int, tuple[re.Pattern[str], PatternFilter, int]] = {}
MAX_KNOWN = 4096


def _learn(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], PatternFilter, int]:
    if len(_KNOWN) >= MAX_KNOWN:
        _KNOWN.clear()
    holder = PatternFilter([pattern])
    known = (pattern, holder, holder.numbers[0])
    _KNOWN[id(pattern)] = known
    return known


def always_runs(pattern: re.Pattern[str]) -> bool:
    """True when `pattern` is never skipped: RE2 does not read it, or finds no atoms its matches need."""
    return could_match(pattern, "")


class Shortlist(Generic[R]):
    """A fixed list of rows, each holding a pattern, asked about one text at a time: `possible(text)` returns, in
    their order, the rows whose pattern `could_match` the text.

    A rule that tries its patterns one after another would ask about each one; here one pass of RE2's set over the
    text answers for all of them: the filter learn_patterns shares, where it holds every pattern of the list, or
    one of the list's own. `pattern` picks the pattern out of a row (the row itself by default)."""

    def __init__(self, rows: Iterable[R], pattern: Callable[[R], re.Pattern[str]] | None = None) -> None:
        self.rows = tuple(rows)
        self._pattern = pattern
        # The filter, and each row with RE2's number for its pattern there: one attribute, swapped in whole, as
        # learn_patterns may build it again in warm_up's thread while the loop's asks.
        self._numbered: tuple[PatternFilter, tuple[tuple[R, int], ...]] | None = None

    def possible(self, text: str) -> list[R]:
        """Return the rows whose pattern can match somewhere in `text`, in the order they were given."""
        if self._numbered is None and _coming.learning:
            return list(self.rows)  # as could_match: while learn_patterns is on its way, every row runs
        holder, numbered = self._numbered or self.build()
        found = holder.found(text)
        return [row for row, number in numbered if number < 0 or number in found]

    def pattern_of(self, row: R) -> re.Pattern[str]:
        """Return the pattern `row` holds."""
        if self._pattern is None:
            assert isinstance(row, re.Pattern)
            return row
        return self._pattern(row)

    def build(self) -> tuple[PatternFilter, tuple[tuple[R, int], ...]]:
        """Build the filter now, rather than on the first `possible`; return it with each row's number there.

        Built once: again only when learn_patterns has since put every pattern of the list into its shared filter
        (a second bot in one process, as in the tests, finds the filters its first one built)."""
        patterns = [self.pattern_of(row) for row in self.rows]
        known = [entry for pattern in patterns if (entry := _KNOWN.get(id(pattern))) and entry[0] is pattern]
        if known and len(known) == len(patterns) and len({id(entry[1]) for entry in known}) == 1:
            holder, numbers = known[0][1], tuple(entry[2] for entry in known)  # learn_patterns' shared filter
            if self._numbered is not None and self._numbered[0] is holder:
                return self._numbered
        elif self._numbered is not None:
            return self._numbered
        else:
            holder = PatternFilter(patterns)
            numbers = holder.numbers
        self._numbered = (holder, tuple(zip(self.rows, numbers, strict=True)))
        return self._numbered


class _Coming:
    """Whether learn_patterns is on its way in another thread (`expect_learning`)."""

    learning = False


_coming = _Coming()


def expect_learning() -> None:
    """Say that learn_patterns is about to run in another thread (bot.py's warm-up). Until it ends, a pattern or
    shortlist it has not learned yet simply runs, unfiltered (about 2 ms of CPU a message), instead of building
    RE2's filters on the asking thread: a first message right after a start would otherwise hold the event loop
    for the better part of a second, fighting the warm-up thread for the GIL."""
    _coming.learning = True


def learn_patterns(modules: Iterable[ModuleType]) -> int:
    """Put every pattern the modules hold at their top level (alone, or in a list, tuple, set or dict there) into one
    filter, and build their shortlists, so that a message pays one pass of RE2 a text for all of them and nothing
    for a first use; return how many patterns."""
    try:
        return _learn_all(modules)
    finally:
        _coming.learning = False


def _learn_all(modules: Iterable[ModuleType]) -> int:
    found: dict[int, re.Pattern[str]] = {}
    shortlists: list[Shortlist[object]] = []
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
    for shortlist in shortlists:  # theirs go into the shared filter too
        found.update((id(pattern), pattern) for pattern in map(shortlist.pattern_of, shortlist.rows))
    patterns = [pattern for pattern in found.values() if isinstance(pattern.pattern, str)]
    if not all(_learnt(pattern) for pattern in patterns):  # else a warm-up before this one learnt them all
        shared = PatternFilter(patterns, shared=True)
        for pattern, number in zip(patterns, shared.numbers, strict=True):
            _KNOWN[id(pattern)] = (pattern, shared, number)
    for shortlist in shortlists:
        shortlist.build()
    return len(found)


def _learnt(pattern: re.Pattern[str]) -> bool:
    """True when `pattern` is in a filter learn_patterns shared (not one of its own, built on a first use)."""
    entry = _KNOWN.get(id(pattern))
    return entry is not None and entry[0] is pattern and entry[1].shared


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
