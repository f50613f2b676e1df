"""Pure regex rules that find durable facts in what the user writes (never in the bot's replies)."""

from __future__ import annotations

import re

WORD = r"[^\W\d_]{2,}(?:-[^\W\d_]{2,})?"

# (pattern, strict): a strict pattern ("call me ...") is ambiguous, so its name must be
# capitalised or end the sentence ("call me back later" is not a name).
NAME_PATTERNS: list[tuple[re.Pattern[str], bool]] = [
    (re.compile(rf"\bменя\s+зовут\s+(?P<name>{WORD})", re.IGNORECASE), False),
    (re.compile(rf"\bмо[её]\s+имя\s*[-—:]?\s*(?P<name>{WORD})", re.IGNORECASE), False),
    (re.compile(rf"\b(?:зови|зовите|называй|называйте)\s+меня\s+(?P<name>{WORD})", re.IGNORECASE), True),
    (re.compile(rf"\bmy\s+name\s*(?:is|'s|’s)\s+(?P<name>{WORD})", re.IGNORECASE), False),
    (re.compile(rf"\bcall\s+me\s+(?P<name>{WORD})", re.IGNORECASE), True),
]

NOT_NAMES = frozenset(
    """
    not no never a an the later back tomorrow today tonight now please maybe when if soon again
    anytime sometime anything whatever nothing it what that this at on in by any some just also
    really actually too crazy silly names name
    не ни нет никак потом позже завтра сегодня сейчас пожалуйста как когда если так просто тоже
    уже всё все это что кто вот ещё еще иначе никто зовут
    """.split()
)
NEGATIONS = re.compile(r"(?:^|\W)(?:не|никогда|don'?t|do\s+not|never|stop|перестань|хватит)\s*$", re.IGNORECASE)
HYPOTHETICAL = re.compile(
    r"(?:^|\W)(?:if|imagine|suppose|would|если|представь|допустим|бы|пусть|say)(?:\W|$)", re.IGNORECASE
)
SENTENCE = re.compile(r"[^.!?\n;]+[.!?\n;]*")


def extract_name(text: str) -> str | None:
    """Return the name the user says they go by in `text`, or None when it is not clearly stated."""
    for sentence in SENTENCE.findall(text):
        if sentence.rstrip().endswith("?"):
            continue
        for pattern, strict in NAME_PATTERNS:
            match = pattern.search(sentence)
            if match and _is_statement(sentence, match, strict):
                return _capitalise(match.group("name"))
    return None


def _is_statement(sentence: str, match: re.Match[str], strict: bool) -> bool:
    name = match.group("name")
    before = sentence[: match.start()]
    if name.lower() in NOT_NAMES or NEGATIONS.search(before) or HYPOTHETICAL.search(before):
        return False
    if _inside_quotes(before):
        return False
    if strict:
        rest = sentence[match.end() :].strip(" \t.!,;)")
        return name[0].isupper() or not rest
    return True


def _inside_quotes(before: str) -> bool:
    opened = sum(before.count(q) for q in "«“„")
    closed = sum(before.count(q) for q in "»”")
    return opened > closed or before.count('"') % 2 == 1


def _capitalise(name: str) -> str:
    return "-".join(part[:1].upper() + part[1:] for part in name.split("-"))
