"""The name slot's words and checks: which word in "меня зовут …", "my name is …", "call me …" or "Hi, I'm Anna"
is the user's name, and which only looks like one.

The name the bot calls the user by is the name slot, so a nickname the user asks for ("зови меня просто
Саша", "just call me Al") is their name too, and wins over a stated one. Precision first: "меня зовут" also
means being invited ("меня зовут на день рождения", "меня зовут гулять", "меня зовут друзья на шашлыки"), so
the word after it is refused when it cannot be a name (a preposition, pronoun, adverb or verb), when it names
who does the inviting, or when where to follows it ("меня зовут Катя с Леной в кино"). Someone else's name
("его зовут Петя", "my wife's name is Kate") never matches a pattern here. Whether the sentence is the
user's plain statement (not quoted, reported, imagined or denied) is decided in memory/rules/rules.py, with the
sentence guards of memory/rules/guards.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from operator import itemgetter

from memory.rules import fact_patterns as p
from memory.rules import feeling_patterns as feel
from memory.rules import kin_patterns as kin
from memory.rules.fact_patterns import WORD, I, words
from memory.text.prefilter import Shortlist
from memory.text.word_forms import nominative

STATED, ASKED = "stated", "asked"  # "меня зовут Саша" / "зови меня Саша": an asked-for name wins

# (pattern, kind, strict, case): a strict pattern is ambiguous ("call me back later"), so its name must be
# capitalised or end the clause; `case` is the case Russian puts the name in after the words, where it is not
# the nominative ("зови меня Лёлей"). "просто"/"just" may stand before the name ("зови меня просто Саша").
_CALL_RU = r"(?:зови|зовите|называй|называйте|(?:можешь|можете|можно)\s+(?:меня\s+)?(?:звать|называть))"
NAME_PATTERNS: Shortlist[tuple[re.Pattern[str], str, bool, str | None]] = Shortlist([
    (re.compile(rf"\bменя\s+зовут\s+(?:просто\s+)?(?P<name>{WORD})", I), STATED, False, None),
    (re.compile(rf"\bмо[её]\s+имя\s*[-—:]?\s*(?P<name>{WORD})", I), STATED, False, None),
    (re.compile(rf"\bmy\s+name\s*(?:is|'s|’s)\s+(?:just\s+)?(?P<name>{WORD})", I), STATED, False, None),
    (re.compile(rf"\b{_CALL_RU}\s+(?:меня\s+(?:просто\s+)?|просто\s+)(?P<name>{WORD})", I), ASKED, True, "ablt"),
    # "Обращайтесь ко мне просто Маша", "обращайся ко мне Павлом".
    (re.compile(rf"\bобращай(?:ся|тесь)\s+ко\s+мне\s+(?:просто\s+)?(?P<name>{WORD})", I), ASKED, True, "ablt"),
    (re.compile(rf"\bcall\s+me\s+(?:just\s+)?(?P<name>{WORD})", I), ASKED, True, None),
    (re.compile(rf"\bi\s+go\s+by\s+(?:just\s+)?(?P<name>{WORD})", I), ASKED, True, None),
    # "Можно просто Саша": only when the name ends the clause ("можно просто сказать" is no name).
    (re.compile(rf"\bможно\s+(?:на\s+ты\s+и\s+)?просто\s+(?P<name>{WORD})(?=\s*(?:[,.!;)]|$))", I), ASKED, True,
     "ablt"),
    # "Меня Олегом звать", "меня Женей зовут", "зовут меня Ильёй".
    (re.compile(rf"\bменя\s+(?P<name>{WORD})\s+(?:зовут|звать)\b", I), STATED, True, "ablt"),
    (re.compile(rf"\bзовут\s+меня\s+(?:просто\s+)?(?P<name>{WORD})", I), STATED, False, "ablt"),
], itemgetter(0))
# "Hi, I'm Anna!" / "Я Аня.": a whole sentence that is only a greeting and a capitalised name.
INTRODUCTION = re.compile(
    r"^\W*(?:(?:hi|hello|hey|hiya|привет|приветик|здравствуй(?:те)?|добрый\s+(?:день|вечер)|доброе\s+утро)"
    rf"(?:\s+there)?\W+)?(?:i['’]?m|i\s+am|я)\s+(?P<name>{WORD})(?:\s+(?P<surname>{WORD}))?\s*(?:,.*|\W*)$", I)
# "Hi! Mark here.": a greeting, then a capitalised name signing the message.
SIGNED = re.compile(rf"^\W*(?:hi|hello|hey|hiya)\b[\s!,.]+(?P<name>{WORD})\s+here\s*(?:[.!,]|$)", I)
NOT_NAMES = words("""
not no never a an the later back tomorrow today tonight now please maybe when if soon again
anytime sometime anything whatever nothing it what that this at on in by any some just also
really actually too crazy silly names name i asap mr mrs ms miss dr sir madam ma'am to after for from with as
like about up out off over into onto upon old-fashioned old-school stupid lazy weird paranoid naive picky cynical
sentimental biased dumb nuts mad insane sceptical skeptical romantic impatient selfish jealous lucky
monday tuesday wednesday thursday friday saturday sunday
не ни нет никак потом позже завтра сегодня сейчас пожалуйста как когда если так просто тоже
уже всё все это что кто вот ещё еще иначе никто зовут
""")
# Words that cannot be a name after "меня зовут": prepositions, pronouns, adverbs ("меня зовут туда",
# "меня зовут замуж", "меня зовут все подряд"), and those who do the inviting ("меня зовут друзья").
NOT_NAMES_RU = words("""
на в во к ко с со за по от до из у о об обо при под над через для без про между перед
я ты он она оно мы вы они меня тебя его её ее нас вас их себя сам сама сами
туда сюда куда куда-то никуда обратно назад домой наверх вниз вперёд вперед замуж опять снова часто
постоянно иногда редко вечно всегда везде всюду вместе давно уже также тоже лично все всё каждый каждая
друзья друг подруга подруги подружки коллеги коллега люди ребята соседи сосед соседка знакомые одноклассники
одногруппники однокурсники родные родственники близкие гости начальник начальница шеф босс парни девчонки
девочки мальчики мужики бабушки девушки все-таки
""")
# Verb forms (infinitives, personal endings) and plural adjectives, which no name has: "меня зовут гулять".
NOT_NAME_ENDINGS = ("ть", "ться", "тись", "чь", "йти", "дти", "ешь", "ёшь", "ишь", "ется", "ются", "ится", "ятся",
                    "ает", "яет", "еет", "ует", "ают", "яют", "еют", "уют", "ые", "ие")
# After a lowercase word: where the user is invited to ("меня зовут одногруппники в бар").
INVITATION = re.compile(
    r"^\s+(?:на|в|во|к|ко|с|со|замуж|гулять|погулять|пить|в\s+гости|[^\W\d_]+(?:ть|ться))\b", I)
# "Меня зовут Катя и Лена": a second capitalised name makes both of them the ones inviting (case-sensitive).
CO_INVITER = re.compile(r"^\s+(?:и|с|со)\s+[А-ЯЁ]")
# Capitalised words that follow "I'm"/"я" without being a name ("I'm Fine.", "Я Дома").
NOT_INTRODUCED = words("""
fine ok okay good great well alright home here there done ready sorry sure new free busy alone single married
divorced pregnant retired unemployed alive lost serious kidding joking glad afraid back still only always
already listening waiting working coming leaving going trying thinking bored hungry full late early awake
asleep male female old young cold hot confused curious dead in out same nobody everyone everybody someone
somebody anyone anybody me us you all who
тоже дома здесь тут там рядом согласна согласен готов готова рад рада один одна сам сама против за снова опять
ок норм хорошо плохо занят занята свободен свободна жив жива болен больна москвич москвичка русский русская
""")
# "I'm Dutch": nationalities, faiths and the like, which follow "I'm" capitalised without being names.
NATIONALITIES = words("""
dutch polish swedish danish finnish irish scottish welsh greek turkish japanese korean indian mexican brazilian
canadian australian israeli georgian armenian belarusian kazakh uzbek swiss austrian czech hungarian romanian
bulgarian serbian croatian portuguese norwegian belgian latvian lithuanian estonian thai vietnamese filipino
nigerian kenyan egyptian moroccan arab persian iranian pakistani asian european african latino latina hispanic
black white jewish catholic christian muslim buddhist hindu atheist agnostic russian english american british
german french ukrainian italian spanish chinese vegan vegetarian gay lesbian bi trans queer straight
""")
# Right before a name: "не называй меня …", "don't call me …", "please don't ever call me …".
NAME_NEGATION = re.compile(
    r"(?:^|\W)(?:не|никогда|don'?t|do\s+not|never|stop|перестань|хватит)(?:\s+(?:ever|you\s+ever|more|надо|нужно))?"
    r"(?:\s+(?:just|просто|меня|me))?\s*$", I)
# A polite condition is no hypothetical: "если хочешь, зови меня Саша", "call me Al if you like".
POLITE = re.compile(r"\b(?:если\s+(?:хочешь|хотите|удобно)|if\s+you\s+(?:want|like|prefer))\b", I)


def name_matches(sentence: str) -> Iterator[tuple[re.Match[str], str, str]]:
    """Yield (match, name, kind) for each "меня зовут …"/"call me …" in `sentence` whose word can be a name.

    `kind` is STATED or ASKED; a name comes back in the nominative ("зови меня Лёлей" -> "Лёля").
    """
    for pattern, kind, strict, case in NAME_PATTERNS.possible(sentence):
        for match in pattern.finditer(sentence):
            word = match.group("name")
            rest = sentence[match.end() : match.end() + 200]
            if not could_be_name(word) or INVITATION.match(rest) or CO_INVITER.match(rest):
                continue  # "меня зовут на день рождения", "меня зовут Катя с Леной в кино"
            ends_clause = not rest.strip(" \t.!,;)")
            if strict and (word.isupper() and len(word) > 2 or word[0].islower() and not ends_clause):
                continue  # "call me back later", "call me ASAP"
            yield match, p.capitalise(nominative(word.lower() if word.isupper() else word, case)), kind


def could_be_name(word: str) -> bool:
    """True unless `word` is a known non-name: a function word, adverb, verb form, relative or animal."""
    lowered = word.lower()
    if lowered in NOT_NAMES or lowered in NOT_NAMES_RU or lowered.startswith("по-"):
        return False
    if lowered.endswith(NOT_NAME_ENDINGS):
        return False  # "меня зовут гулять"
    return not (lowered in kin.RU_RELATIVES or lowered in kin.EN_RELATIVES or lowered in kin.RU_SPECIES)


def introduced_name(sentence: str) -> str | None:
    """Return the name in a sentence that is only "Hi, I'm Anna!" / "Я Аня." / "Hi! Mark here.", or None."""
    match = INTRODUCTION.match(sentence.strip())
    if not match:
        return None
    name, surname = match.group("name"), match.group("surname")
    if surname and not surname[0].isupper():
        return None  # "I'm Tom and tired"
    return _capitalised_name(name)


def signed_name(text: str) -> str | None:
    """Return the name in a message that opens "Hi! Mark here.", or None."""
    match = SIGNED.match(text)
    return _capitalised_name(match.group("name")) if match else None


def _capitalised_name(name: str) -> str | None:
    """Return `name` when it is capitalised and can be nothing else ("I'm tired", "I'm OK" are no names)."""
    if not name[0].isupper() or name.isupper() or not could_introduce(name):
        return None
    return p.capitalise(name)


def could_introduce(word: str) -> bool:
    """True when "I'm <word>" may introduce a name: `word` is no state, nationality, place, job or the like."""
    lowered = word.lower()
    return not (lowered in NOT_NAMES | NOT_INTRODUCED | NATIONALITIES or is_known_word(lowered))


def is_known_word(lowered: str) -> bool:
    """True for a word the tables know as a place, job, state, animal or relative: then it is no name."""
    tables = (p.EN_PLACES, p.RU_PLACES, p.RU_JOBS, feel.RU_STATES, kin.EN_RELATIVES, kin.RU_RELATIVES, kin.RU_SPECIES)
    return any(lowered in table for table in tables) or lowered in p.EN_JOBS | feel.EN_STATES
