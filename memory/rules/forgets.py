"""Pure rules that find requests to forget: "Забудь про мою собаку", "forget what I told you about my ex",
"не запоминай это", "удали из памяти мою машину", and "forget everything" (which the bot only points to /forget).

A request is an imperative ("забудь", "forget", "не запоминай", a polite "можешь забыть…?") opening its clause,
and it must name something of the user's: a possessive ("мою собаку", "my car"), a name ("про Барсика"), what
they said ("что я курю", "where I live", "what I told you about…"), or "this" in so many words ("не запоминай
это", "don't remember that"). "Забудь, проехали", "forget it", "не забудь купить молоко" and "I forgot my keys"
ask nothing. The words and patterns live in change_patterns.py.
"""

from __future__ import annotations

import re

from memory.changes import FORGET, FORGET_ALL, FORGET_THIS, Change
from memory.rules import change_patterns as c
from memory.rules import fact_patterns as p
from memory.rules.guards import clause_before, inside_quotes
from memory.text.prefilter import first_match, matches

# Words that name several things: the request means all that match ("my pets", "обеих сестёр").
PLURAL = re.compile(r"\b(?:pets|all|both|sisters|brothers|kids|children|dogs|cats|питомцев|питомцы|всех|обоих|обеих|"
                    r"сестёр|сестер|братьев|детей|животных|собак|котов|кошек)\b", re.IGNORECASE)
MAX_SENTENCE = 300
# How far past a sentence its attribution may end: a closing quote, a dash and "сказала подруга" / "she said".
ATTRIBUTION_REACH = 80


def extract_forget_requests(text: str) -> list[Change]:
    """Return the forget requests in `text`: one FORGET per thing named, FORGET_THIS or FORGET_ALL."""
    found: list[Change] = []
    for match in matches(p.SENTENCE, text):
        sentence = match.group()
        attributed = c.ATTRIBUTION.search(text, match.start(), match.end() + ATTRIBUTION_REACH)
        if len(sentence) > MAX_SENTENCE or attributed:
            continue  # «Забудь про мою собаку», — сказала подруга
        found += [change for change in _requests(sentence, text[: match.start()]) if change not in found]
    return found


def _requests(sentence: str, earlier: str) -> list[Change]:
    """Return the forget requests of one sentence (`earlier`: the text before it, for open quotes)."""
    whole = sentence.strip()
    for match in matches(c.DONT_REMEMBER, sentence):
        if not _denied(sentence, match.start()) and not inside_quotes(earlier + sentence[: match.start()]):
            return [Change(FORGET_THIS, sentence=whole)]
    changes = []
    for match in matches(c.FORGET_VERB, sentence):
        if _denied(sentence, match.start("verb")) or inside_quotes(earlier + sentence[: match.start("verb")]):
            continue
        rest = c.FROM_MEMORY.sub(" ", sentence[match.end():]).strip(" \t,.!?…)(")
        rest = re.sub(r"[\s,]*(?:пожалуйста|please|pls|ладно|ок|ok|окей)\W*$", "", rest, flags=re.IGNORECASE)
        if c.FORGET_ALL.match(rest):
            return [Change(FORGET_ALL, sentence=whole)]
        if c.FORGET_THIS.match(rest):
            return [Change(FORGET_THIS, sentence=whole)]
        from_memory = bool(c.FROM_MEMORY.search(sentence[match.end():])) or "памяти" in match.group("verb")
        for target in _targets(rest, from_memory):
            slots = next((slots for pattern, slots in c.WHERE_SLOTS if first_match(pattern, target)), ())
            changes.append(Change(FORGET, about=target, slots=slots, plural=is_plural(target), sentence=whole))
    return changes


def _targets(rest: str, from_memory: bool) -> list[str]:
    """Return what the words after the verb name, one entry per thing ("my age and where I live": two)."""
    rest = re.split(r"[;:!?.]|,\s*(?:ок|ok|ладно|давай|let['’]s|не\s+хочу|i\s+don['’]t)\b", rest,
                    flags=re.IGNORECASE)[0].strip(" ,")
    targets = []
    parts = [part.strip(" ,") for part in c.TARGET_JOINER.split(rest)]
    # "my car and the smoking thing": one "my" makes the whole list the user's own.
    own = from_memory or any(first_match(c.OWN, part) for part in parts)
    for part in parts:
        match = c.FORGET_ABOUT.match(part)
        about = next((group for group in (match.groups() if match else ()) if group), None)
        if about is None and from_memory and part:
            about = part  # "erase the whole Mark saga from your memory"
        if about and (own or _names_someone(about)):
            targets.append(about.strip())
    return targets


def is_plural(about: str) -> bool:
    """True when the words name several things ("my pets", "обеих сестёр")."""
    return bool(first_match(PLURAL, about))


def _names_someone(words: str) -> bool:
    """True when the words hold a capitalised name ("про Барсика", "about Bubbles")."""
    return any(word[:1].isupper() for word in words.split()[:3])


def _denied(sentence: str, position: int) -> bool:
    """True when the verb is denied ("не забудь", "don't forget", "you won't forget") or asked about."""
    before = clause_before(sentence, position)
    return bool(re.search(r"(?:\bне|n['’]t|\bnever|\bnot)\s*$", before, re.IGNORECASE)
                or first_match(p.QUESTION_START, before)
                and not re.search(r"\b(?:can|could|would|will)\s+you\b", before, re.IGNORECASE))
