"""The names of secrets in every grammatical form, and what tells a value after a name from talk.

Russian declines a secret's name ("пароля", "паролем", "пин-кодом", "кодом от домофона", "девичьей фамилии
матери"): the forms come from the word toolkit (memory/text/word_forms.py, pymorphy3's dictionary) once, at import,
instead of a list of endings kept by hand for each name. English names are few and are written out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory.text.word_forms import is_russian, parts_of_speech, phrase_case_forms

# Parts of speech that a value never is: "Пароль: спроси у админа", "ответ на секретный вопрос я не помню",
# "кличка первого питомца — не лучший вопрос". A password or an answer is a noun, a name or no word at all.
TALK_PARTS = frozenset({"VERB", "INFN", "PREP", "CONJ", "PRCL", "NPRO", "ADVB", "PRED", "INTJ", "GRND", "PRTS"})


def russian_forms(nominatives: Iterable[str]) -> frozenset[str]:
    """Return every case form of Russian nouns or adjective-noun phrases given in the nominative, lower-cased."""
    return frozenset(form for nominative in nominatives for form in phrase_case_forms(nominative))


def alternation(forms: Iterable[str]) -> str:
    """Return a regex alternation of words or phrases, the longest first (so "пин-кодом" wins over "пин"), with
    any run of spaces in a phrase matching any whitespace."""
    ordered = sorted(set(forms), key=len, reverse=True)
    return "(?:" + "|".join(r"\s+".join(re.escape(word) for word in form.split()) for form in ordered) + ")"


def is_talk(word: str) -> bool:
    """True when a Russian word is, in every reading the dictionary has, a verb, pronoun, preposition, particle,
    conjunction or adverb ("спроси", "у", "я", "не", "потом"); a noun, a name, a Latin word or digits are not."""
    if not is_russian(word):
        return False
    found = parts_of_speech(word)
    return bool(found) and found <= TALK_PARTS


# PINs and codes: "код", "кодом", "коде", "пин-кодом", "пинкоды", "комбинацией" (a lock's).
CODE_FORMS_RU = russian_forms(
    ("код", "коды", "пин", "пины", "пин-код", "пин-коды", "пинкод", "пинкоды", "комбинация")
)
CODE_FORMS_EN = ("pin", "pins", "pin code", "pin codes", "pincode", "pin-code", "pin number", "code", "codes",
                 "passcode", "combination", "combo", "otp")
# Passwords: "пароль" and "пароли" in every case.
PASSWORD_FORMS_RU = russian_forms(("пароль", "пароли"))
# Answers to a bank's security questions. The genitive after the head noun ("фамилия матери", "кличка первого
# питомца") does not decline with it, so those words are listed as they stand.
MAIDEN_NAME_RU = alternation(russian_forms(("девичья фамилия",)))
PET_NAME_RU = alternation(russian_forms(("кличка", "имя")))
ANSWER_RU = alternation(russian_forms(("ответ",)))
QUESTION_RU = alternation(russian_forms(("секретный вопрос", "контрольный вопрос")))
