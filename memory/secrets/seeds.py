"""Seed phrases found by the official BIP-39 word lists: 12 to 24 listed words in a row, with or without a name
before them, or at least two after a name that labels them ("сид-фраза моего кошелька: apple river ...").

The lists come from the `mnemonic` package (0.21), which ships English, Spanish, French, Italian, Czech,
Portuguese, Japanese, Korean and both Chinese lists (the official ones) and Russian and Turkish. The lists
written with spaces between words are used; a run counts only when all its words are from one list.
A sentence that merely holds a few listed words ("we planted 12 seeds") stays: prose breaks a run within a
few words with "the", "is", "my", which no list holds.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from importlib.resources import files

from memory.secrets.placeholders import SEED
from memory.text.prefilter import matches

LANGUAGES = ("english", "spanish", "french", "italian", "czech", "portuguese", "russian", "turkish")
MIN_RUN = 12  # the shortest seed phrase
NUMBERING = r"(?:[0-9]{1,2}[.)][^\S\n]*)"
LETTERS = r"[^\W\d_]{3,}+(?![\w-])"
# Twelve or more words of 3+ letters in a row, optionally numbered ("1. legal 2. winner") or comma-separated;
# which of them are listed is checked after. A run starts only where no such word stands just before it
# (a start there would have been tried already and taken or found too short), so each word is read once.
WORD_RUN = re.compile(
    rf"(?<![\w-])(?<![^\W\d_]{{3}}\s)(?<![^\W\d_]{{3}},\s)"
    rf"{NUMBERING}?{LETTERS}(?:(?:[^\S\n]*,)?\s+{NUMBERING}?{LETTERS}){{{MIN_RUN - 1},}}+"
)
WORD = re.compile(r"[^\W\d_]+")
SEED_NAME = re.compile(
    r"(?<![\[\w])(?:(?:secret\s+)?recovery\s+(?:phrase|words)|backup\s+phrase|seed(?:\s+(?:phrase|words))?"
    r"|mnemonic(?:\s+phrase)?|(?:сид|seed)[\s-]?фраз\w*|мнемони\w*(?:\s+фраз\w*)?|фраз\w*\s+восстановления"
    r"|секретн\w*\s+фраз\w*)(?!\w)",
    re.IGNORECASE,
)
# A name that labels what follows ("сид-фраза моего кошелька: …", "seed =", "мнемоника — …"): up to three words,
# then a colon, an equals sign or a dash. What it labels is the run of listed words up to the end of the clause,
# however many there are (at least LABELLED_MIN), numbered or comma-separated.
SEED_LABEL = re.compile(r"(?:[^\S\n]+[^\W\d_]+){0,3}?[^\S\n]*(?:[:=—–]|-(?=\s))\s*")
LATIN = r"[a-zA-Z\u00c0-\u024f]{3,10}"
CYRILLIC = r"[а-яёА-ЯЁ]{3,10}"
# One script per run, so that "bread cactus galaxy, остальное потом" ends its clause at "galaxy".
SEED_LABELLED = re.compile(
    "|".join(
        rf"(?:[0-9]{{1,2}}[.)]\s*)?{script}(?:(?:\s*,)?\s+(?:[0-9]{{1,2}}[.)]\s*)?{script})*+(?![\w-])"
        r"(?=\s*(?:[.,;!?)]|$))"
        for script in (LATIN, CYRILLIC)
    )
)
# The name of a seed phrase is made of listed words ("seed", "phrase"); before a run they are not part of it.
NAME_WORDS = frozenset("seed phrase words recovery backup secret mnemonic".split())
LABELLED_MIN = 2  # one word after a label is more often talk ("seed phrase: lost"), and no secret alone


@cache
def word_lists() -> tuple[frozenset[str], ...]:
    """Return the BIP-39 word lists written with spaces, each as a set of lower-case NFC words."""
    folder = files("mnemonic") / "wordlist"
    return tuple(
        frozenset(unicodedata.normalize("NFC", word) for word in (folder / f"{name}.txt").read_text("utf-8").split())
        for name in LANGUAGES
    )


@cache
def any_list() -> frozenset[str]:
    """Return the words of all the lists in one set: most runs of prose fail this one look-up per word."""
    return frozenset().union(*word_lists())


def list_bits(word: str) -> int:
    """Return a bit mask of the BIP-39 word lists that hold `word` (any case): bit i for LANGUAGES[i]."""
    folded = word.lower() if word.isascii() else unicodedata.normalize("NFC", word.lower())
    return sum(1 << index for index, listed in enumerate(word_lists()) if folded in listed)


def listed_words(words: list[str]) -> bool:
    """True when every word (any case) is in one and the same BIP-39 word list."""
    common = -1
    for word in words:
        common &= list_bits(word)
    return bool(words) and common != 0


def mask_seed_phrases(text: str) -> str:
    """Return `text` with every run of 12+ listed words, and every labelled run of 2+, replaced."""
    text = _mask_labelled(text)
    if not _may_hold_run(text):
        return text
    pieces, done = [], 0
    for match in matches(WORD_RUN, text):
        for start, end in _listed_runs(match):
            pieces += [text[done:start], SEED]
            done = end
    return "".join(pieces) + text[done:] if pieces else text


def _may_hold_run(text: str) -> bool:
    """False when no 12 words in a row of `text` are listed: a split and set look-ups cost less than the regex."""
    listed = any_list()
    count = 0
    for token in text.lower().split():
        word = token.lstrip("0123456789.)").strip(",.;:!?()\"'")
        if not word:
            continue  # "1." numbering a word
        if word in listed:
            count += 1
            if count >= MIN_RUN:
                return True
        else:
            count = 0
    return False


def _listed_runs(match: re.Match[str]) -> list[tuple[int, int]]:
    """Return the spans of the runs of 12+ words of one list inside a run of short words, merged."""
    text = match.string
    words = list(WORD.finditer(text, match.start(), match.end()))
    listed = any_list()
    flags = [word.group().lower() in listed or not word.group().isascii() for word in words]
    if not any(all(flags[start : start + MIN_RUN]) for start in range(len(words) - MIN_RUN + 1)):
        return []
    bits = [list_bits(word.group()) for word in words]
    # A run keeps one way of separating its words: "…thank yellow, please keep it" ends at "yellow".
    commas = [False] + ["," in text[a.end() : b.start()] for a, b in zip(words, words[1:], strict=False)]
    spans: list[tuple[int, int]] = []
    for index in range(len(LANGUAGES)):
        first = 0
        while first < len(words):
            while first < len(words) and words[first].group().lower() in NAME_WORDS:
                first += 1
            if first == len(words):
                break
            last = first + 1 if bits[first] >> index & 1 else first
            style = commas[last] if last < len(words) else False
            while last < len(words) and bits[last] >> index & 1 and commas[last] == style:
                last += 1
            if last - first >= MIN_RUN:
                spans.append((words[first].start(), words[last - 1].end()))
            first = max(last, first + 1)
    return _merged(sorted(spans))


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _mask_labelled(text: str) -> str:
    pieces, done = [], 0
    for name in matches(SEED_NAME, text):
        if name.start() < done:
            continue
        span = _labelled_words(text, name.end())
        if span:
            pieces += [text[done : span[0]], SEED]
            done = span[1]
    return "".join(pieces) + text[done:] if pieces else text


def _labelled_words(text: str, start: int) -> tuple[int, int] | None:
    """Return the span of the listed words a seed phrase's label (ending at `start`) gives, or None."""
    label = SEED_LABEL.match(text, start)
    words = SEED_LABELLED.match(text, label.end()) if label else None
    if words is None:
        return None
    found = WORD.findall(words.group())
    if len(found) < LABELLED_MIN or not listed_words(found):
        return None
    return words.span()
