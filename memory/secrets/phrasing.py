"""Secrets in free phrasing: PINs and codes said in words, a person's INN and OGRNIP after their names (checked by
their check digits), answers to a bank's security questions, and lists of passwords ("Пароли: почта — X, банк — Y").

Every value here follows a name (memory/secrets/labels.py gives the names in every form): a run of digit words, a
taxpayer number or a surname alone is no secret, and a name followed by talk ("ответ на секретный вопрос я не
помню", "mother's maiden name is none of your business") stays as written.
"""

from __future__ import annotations

import re

from stdnum.ru import inn, ogrn

from memory.secrets.labels import (
    ANSWER_RU,
    CODE_FORMS_EN,
    CODE_FORMS_RU,
    MAIDEN_NAME_RU,
    PASSWORD_FORMS_RU,
    PET_NAME_RU,
    QUESTION_RU,
    alternation,
    is_talk,
)
from memory.secrets.placeholders import ANSWER, CODE, INN, OGRNIP
from memory.secrets.secret_patterns import CODE_SEP, NAME_START, NUMBER_END, NUMBER_SEP, WORD

# ----- PINs and codes said in words ----------------------------------------------------------------------------

DIGIT_WORDS = (
    "ноль нуль один одна два две три четыре пять шесть семь восемь девять "
    "zero oh one two three four five six seven eight nine"
).split()
SPOKEN_DIGIT = alternation(DIGIT_WORDS) + r"(?!\w)"
# Three digit words or more, apart or with commas or dashes: "один два три четыре", "four-five-six-seven". One or
# two are talk: "пин-код один на все карты", "pin is four digits", "дверь с кодом три раза не открылась".
SPOKEN_RUN = rf"{SPOKEN_DIGIT}(?:(?:\s*[,-]\s*|\s+){SPOKEN_DIGIT}){{2,11}}"
SPOKEN_NAMES = alternation(
    CODE_FORMS_RU | PASSWORD_FORMS_RU | {*CODE_FORMS_EN, "password", "passwords", "pass"}
)
SPOKEN_CODE = re.compile(
    rf"{NAME_START}{SPOKEN_NAMES}(?![\w-])(?:\s+{WORD}){{0,5}}?(?:{CODE_SEP}|[?,]\s*it['’]?s\b)\s*(?<!\w)"
    rf"(?P<value>{SPOKEN_RUN})",
    re.IGNORECASE,
)

# ----- INN and OGRN ------------------------------------------------------------------------------------------------

# "ИНН", "инн моего ИП", "ОГРНИП", "tax id (INN)"; the Latin "INN" only in capitals ("Holiday Inn 2").
TAX_NAMES = (
    r"(?:инн|огрн\w*|(?-i:INN|OGRN|OGRNIP|PSRN)|tax(?:payer)?\s+(?:id|number)(?:\s+number)?"
    r"|taxpayer\s+identification\s+number)"
)
TAX_NUMBER = re.compile(
    rf"{NAME_START}{TAX_NAMES}(?![\w-])(?:\s+(?:{WORD}|\([^()\n]{{1,20}}\))){{0,4}}?{NUMBER_SEP}\s*(?<!\w)"
    rf"(?P<value>[0-9](?:[ -]?[0-9]){{9,14}}){NUMBER_END}",
    re.IGNORECASE,
)

# ----- lists of passwords ------------------------------------------------------------------------------------------

# "Пароли: почта — Mail2020, вайфай — wifi4444", "пароли такие: рабочая почта - X; личная - Y": after the name
# (and a word) and a colon, pairs of what a password opens and the password, one or more. The plain password
# pattern would take "почта".
PASSWORD_PAIR = rf"{WORD}(?:\s+{WORD})?\s*(?:[—–=]|-(?=\s))\s*[^\s,;\[]++"
PASSWORD_LIST = re.compile(
    rf"{NAME_START}(?:{alternation(PASSWORD_FORMS_RU)}|passwords?)(?:\s+{WORD})?\s*:\s*"
    rf"(?P<value>{PASSWORD_PAIR}(?:\s*[,;]\s*{PASSWORD_PAIR})*+)",
    re.IGNORECASE,
)
PAIR_VALUE = re.compile(rf"(?P<name>{WORD}(?:\s+{WORD})?\s*(?:[—–=]|-(?=\s))\s*)(?P<value>[^\s,;\[]++)")

# ----- answers to security questions ------------------------------------------------------------------------------

MOTHER_RU = r"(?:(?:моей|моего)\s+)?(?:матери|мамы|мамочки|мамули)"
FIRST_PET_RU = (
    r"(?:(?:моего|моей)\s+)?(?:первого|первой)\s+(?:домашнего\s+)?(?:питомца|собаки|кота|кошки|пса|животного"
    r"|хомяка|попугая)"
)
# The question named by what it asks: "answer to the city you were born in question is Tambov", "ответ на вопрос
# про первую учительницу — Мария Ивановна". A question of a bank's kinds only; the answer must be a name then.
SECURITY_TOPICS = (
    r"(?:born|birth|pet|dog|cat|school|street|maiden|car|teacher|friend|favou?rite|childhood|hero|nickname"
    r"|родил\w*|рожден\w*|питом\w*|собак\w*|кошк\w*|кот(?:а|ом|е|у)?|школ\w*|улиц\w*|девич\w*|учител\w*|машин\w*"
    r"|любим\w*|друг(?:а|ом|е|у)?|друз\w*|прозвищ\w*|геро\w*)(?![\w-])"
)
FREE_QUESTION = (
    rf"(?:answer|reply)\s+(?:to|for)\s+(?:the\s+|my\s+)?(?:[^\W\d_]+\s+){{0,6}}?{SECURITY_TOPICS}"
    r"(?:\s+[^\W\d_]+){0,4}?\s+question|"
    rf"{ANSWER_RU}\s+на\s+(?:вопрос\w*|{QUESTION_RU})\s+(?:про|о|об|где|как|какой|какая|кто|с)\s+"
    rf"(?:[^\W\d_]+\s+){{0,4}}?{SECURITY_TOPICS}(?:\s+[^\W\d_]+){{0,2}}?(?=\s*[:—–=]|\s+(?:is|это|был|была)\b)"
)
ANSWER_NAMES = (
    rf"(?:{MAIDEN_NAME_RU}\s+{MOTHER_RU}|{PET_NAME_RU}\s+{FIRST_PET_RU}|{ANSWER_RU}\s+на\s+{QUESTION_RU}"
    rf"|{QUESTION_RU}[^?\n]{{0,80}}[?,;.»]\s*{ANSWER_RU}"
    r"|(?:mother|mom|mum|mommy|mama)['’]?s\s+maiden\s+name|maiden\s+name\s+of\s+(?:my\s+)?(?:mother|mom|mum)"
    r"|(?:first|childhood)\s+(?:pet|dog|cat|puppy)['’]?s\s+name|name\s+of\s+(?:my\s+)?first\s+(?:pet|dog|cat)"
    r"|security\s+(?:question\s+)?answer|secret\s+(?:question\s+)?answer"
    r"|answer\s+to\s+(?:my\s+|the\s+)?(?:security|secret)\s+question|security\s+question[^?\n]{0,80}[?,;.”]\s*answer"
    rf"|(?P<free>{FREE_QUESTION}))"
)
# After the name: a colon, a dash, "is", "это", a question mark ("Mother's maiden name? Kowalski."), and words that
# lead up to the answer ("у меня это был Тузик").
ANSWER_SEP = (
    r"(?:\s*(?:[:=—–?]|-(?=\s)|\b(?:is|was|это|был|была|было)\b))*+\s*"
    r"(?:(?:у\s+меня|у\s+нас|it['’]?s|it\s+was|это|был|была|было)\s+){0,3}"
)
# One word, or two where the second is capitalised ("Lincoln Elementary", "Анна Петровна").
ANSWER_VALUE = r"[^\W\d_][\w'’-]*(?:\s+(?-i:[A-ZА-ЯЁ])[\w'’-]*)?"
# Where the question is asked, between the name and the answer: "for the bank", "(для госуслуг)", "в Сбере".
ANSWER_WHERE = rf"(?:,?\s+\(?(?:for|in|at|on|для|в|во|на|у)\s+(?:the\s+|my\s+)?{WORD}\)?,?)?"
SECURITY_ANSWER = re.compile(
    rf"{NAME_START}{ANSWER_NAMES}(?![\w-]){ANSWER_WHERE}(?P<sep>{ANSWER_SEP})(?P<value>{ANSWER_VALUE})",
    re.IGNORECASE,
)
# After a question mark an answer is the whole sentence: "first pet's name? Rex."
ANSWER_ALONE = re.compile(r"\s*(?:[.,;!?)]|$)")
HARD_ANSWER_SEP = re.compile(r"[:=—–-]|\b(?:is|was|это|был|была|было)\b", re.IGNORECASE)
# Words that open talk about the question, not its answer: "is none of your business", "was something with R".
ANSWER_STOPWORDS = frozenset(
    "a an the my your his her our their its it it's it’s this that i we you he she they what which who none nothing "
    "something someone not no never always same different private secret unknown obvious easy hard too so very "
    "also still just on in at of for to from with like ask see check somewhere why how when where whatever "
    "optional required mandatory needed public useless stupid weird asked "
    "такой такая такое тот та то этот эта какой какая какое мой моя твой твоя наш наша свой своя".split()
)


def mask_spoken_code(match: re.Match[str]) -> str:
    """Return a code or PIN said in words after its name with the words replaced: "пин один два три четыре"."""
    return _replace(match, CODE)


def mask_tax_number(match: re.Match[str]) -> str:
    """Return a person's INN (12 digits) or OGRNIP (15: an individual entrepreneur's) after its name replaced, where
    its check digits agree. An organisation's INN (10 digits) and OGRN (13) stay: they are public, in the state
    register and on every receipt and invoice ("ИНН организации 7707083893, ОГРН 1027700132195")."""
    digits = re.sub(r"[^0-9]", "", match.group("value"))
    if len(digits) == 12 and inn.is_valid(digits):
        return _replace(match, INN)
    if len(digits) == 15 and ogrn.is_valid(digits):
        return _replace(match, OGRNIP)
    return match.group(0)


def mask_security_answer(match: re.Match[str]) -> str:
    """Return the answer to a security question after its name replaced, unless what follows is talk: a pronoun,
    a verb, a negation ("не лучший вопрос"), or, with no colon, dash or "is" between, a lowercase word."""
    value = match.group("value")
    first = value.split()[0]
    if match.string.startswith(" [", match.end("value")):
        return match.group(0)  # "it's [security answer hidden]": the answer is gone, "it's" led up to it
    if re.split("['’]", first.lower())[0] in ANSWER_STOPWORDS or is_talk(first):
        return match.group(0)
    if not HARD_ANSWER_SEP.search(match.group("sep")) and not first[0].isupper():
        return match.group(0)  # "девичья фамилия мамы у меня в паспорте"
    if match.group("free") and not first[0].isupper():
        return match.group(0)  # "answer to the question about my school is long": a name is the answer there
    if "?" in match.group("sep") and not ANSWER_ALONE.match(match.string, match.end("value")):
        return match.group(0)  # "Mother's maiden name? Banks love to ask": after a question the answer stands alone
    return _replace(match, ANSWER)


def _replace(match: re.Match[str], placeholder: str) -> str:
    """Return the whole match with its `value` group replaced by `placeholder`."""
    start, end = match.span("value")
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + placeholder + whole[end - offset :]
