"""The fact rules for likes, dislikes and states: "I love hiking and jazz", "обожаю джаз", "я устала".

Whether a match is the user's plain statement is judged in rules.py (guards.py); the words and patterns
live in feeling_patterns.py.
"""

from __future__ import annotations

import re
from operator import itemgetter

from memory.facts import slug
from memory.rules import fact_patterns as p
from memory.rules import feeling_patterns as feel
from memory.rules import kin_patterns as kin
from memory.rules.guards import Found, clause_start, words_after
from memory.text.prefilter import Shortlist, first_match, matches

# (slot, trigger): what the user dislikes, then likes; these and the states' triggers are asked about all at once
# (memory/text/prefilter.py)
LIKING = Shortlist([("dislikes", trigger) for trigger in feel.DISLIKE_TRIGGERS]
                   + [("likes", trigger) for trigger in feel.LIKE_TRIGGERS], itemgetter(1))
STATES_EN = Shortlist(feel.STATE_TRIGGERS_EN)
FEELINGS_RU = Shortlist((feel.FEELING_TRIGGER_RU, feel.AILMENT_TRIGGER_RU, feel.ACHE_TRIGGER_RU))


def likes(sentence: str) -> Found:
    """Yield likes and dislikes: "I love hiking and jazz", "обожаю джаз", "I can't stand mornings"."""
    for match in matches(feel.FAN_EN, sentence):  # "I'm a huge Arsenal fan"
        thing = match.group("thing")
        if not any(word.lower() in feel.OBJECT_REJECT_START | feel.FAN_NOT_THINGS for word in thing.split()):
            yield match.start(), f"likes:{slug(thing)}", thing
    for slot, trigger in LIKING.possible(sentence):
        for match in trigger.finditer(sentence):
            for thing in _things(words_after(sentence, match.end())):
                yield match.start(), f"{slot}:{slug(thing)}", thing


def _things(rest: str) -> list[str]:
    """Return the things listed at the start of `rest` ("hiking, reading and jazz"), cut at the clause's end."""
    end = first_match(feel.OBJECT_END, rest)
    phrase = rest[: end.start()] if end else rest
    phrase = feel.FIXED_PHRASES.sub(lambda m: m.group().replace(" ", "\0"), phrase)  # "rock and roll" is one thing
    if "," in phrase and not first_match(feel.LIST_END, phrase):
        phrase = phrase.split(",")[0]  # "coffee, it wakes me up": after the comma comes another clause
    things: list[str] = []
    infinitive = prepositional = False
    for index, part in enumerate(feel.OBJECT_SPLIT.split(phrase)):
        part = feel.OBJECT_TRAILING.sub("", part.replace("\0", " ").strip())
        if index == 0 and re.match(r"to\s+", part, re.IGNORECASE):
            infinitive, part = True, part[3:].strip()
        if infinitive:  # "I love to cook and sing" -> "cooking", "singing", as "I love cooking" says it
            verb, _, tail = part.partition(" ")
            part = f"{p.gerund(verb)} {tail}".strip() if verb and verb.lower() not in feel.NOT_A_LIKING else ""
        words = part.split()
        if not words or len(words) > 6:
            break
        first = words[0].lower()
        if first in feel.OBJECT_REJECT_START or first in feel.NOT_A_LIKING or first in kin.RU_RELATIVES:
            break  # "I love how…", "люблю маму"
        if any(word.lower().strip("'’") in feel.ABOUT_THE_BOT for word in words):
            break  # "I like talking to you"
        if index and (first in feel.EN_VERB_STARTS or first in feel.RU_VERB_STARTS
                      or first.endswith(feel.RU_VERB_ENDINGS)):
            break  # "I love jazz and play guitar": a new clause, not a second thing
        if index and prepositional and not first.endswith(feel.ACTIVITY_ENDINGS):
            break  # "cooking for my family and friends" is one thing; "гулять по вечерам и читать" two
        things.append(" ".join(words))
        prepositional = any(word.lower() in feel.OBJECT_PREPOSITIONS for word in words[1:])
    return things


def states(sentence: str) -> Found:
    """Yield current moods and conditions: "I'm so tired", "я устала", "мне грустно", "у меня температура"."""
    if first_match(feel.HABITUAL, sentence):
        return  # "летом мне плохо": how the user usually is, not how they are now
    for trigger in STATES_EN.possible(sentence):
        for match in trigger.finditer(sentence):
            after = words_after(sentence, match.end())
            if not feel.STATE_NOT_AFTER.match(after) and not feel.GERUND_SUBJECT.match(after):  # not "tired of"
                state = " ".join(match.group("state").lower().split())
                yield match.start(), f"state:{slug(state)}", state
    for match in matches(feel.SUBJECTLESS_STATE_EN, sentence):  # "really sad today", "so so tired"
        state, after = " ".join(match.group("state").lower().split()), words_after(sentence, match.end())
        timed = feel.NOW_EN.match(after) or state in feel.EN_BODILY_STATES
        if timed and feel.SUBJECTLESS_END_EN.match(after) and not feel.STATE_NOT_AFTER.match(after):
            yield match.start(), f"state:{slug(state)}", state
    for match in matches(feel.SUBJECTLESS_FEELING_RU, sentence):  # "сегодня очень грустно"
        after = words_after(sentence, match.end())
        if feel.SUBJECTLESS_END_RU.match(after) and not feel.FEELING_NOT_AFTER.match(after):
            state = match.group("state").lower()
            yield match.start(), f"state:{slug(state)}", state
    for match in matches(feel.STATE_TRIGGER_RU, sentence):
        state = " ".join(match.group("state").lower().split())
        if (state in feel.RU_STATES_NEED_SUBJECT and not match.group("subj")
                and not clause_start(sentence, match.start())):
            continue  # "она устала"
        if not feel.STATE_NOT_AFTER.match(words_after(sentence, match.end())):  # not "устала от тебя"
            yield match.start(), f"state:{slug(feel.RU_STATES[state])}", state
    for trigger in FEELINGS_RU.possible(sentence):
        for match in trigger.finditer(sentence):
            if trigger is feel.ACHE_TRIGGER_RU and not clause_start(sentence, match.start()):
                continue  # "у мамы болит голова"
            if not feel.FEELING_NOT_AFTER.match(words_after(sentence, match.end())):  # not "мне плохо видно"
                state = " ".join(match.group("state").lower().split())
                yield match.start(), f"state:{slug(state)}", state
