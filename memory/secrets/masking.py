"""Masking of secrets in what the user writes: card numbers, IBANs, API keys, passwords, PINs and one-time
codes (also said in words), card security codes, passport, SNILS, INN, OGRN and social security numbers, seed
phrases, answers to security questions."""

from __future__ import annotations

import re

from memory.secrets.keys import mask_keys
from memory.secrets.labels import is_talk
from memory.secrets.numbers import (
    DIGIT_RUN,
    IBAN_CANDIDATE,
    iban_valid,
    is_card_number,
    luhn_valid,
    mask_cards,
    mask_iban,
    snils_valid,
)
from memory.secrets.phrasing import (
    PAIR_VALUE,
    PASSWORD_LIST,
    SECURITY_ANSWER,
    SPOKEN_CODE,
    TAX_NUMBER,
    mask_security_answer,
    mask_spoken_code,
    mask_tax_number,
)
from memory.secrets.placeholders import (
    ANSWER,
    API_KEY,
    CARD,
    CODE,
    CVV,
    IBAN,
    INN,
    OGRNIP,
    PASSPORT,
    PASSWORD,
    PLACEHOLDERS,
    SEED,
    SNILS,
    SSN,
)
from memory.secrets.secret_patterns import (
    BACKUP_CODES,
    CODE_BEFORE,
    CODE_NAMED,
    COMMON_PASSWORDS,
    CVV_NAMED,
    DEFINITION_SEP,
    DOOR_CODE,
    EMAIL_OR_URL,
    GOOGLE_CODE,
    HARD_SEP,
    LATIN_WORD,
    LOGIN_PAIR,
    NAMED_BLOB,
    NAMED_SHORT_KEY,
    NOT_PASSWORD_BEFORE_PASS,
    NOT_SECRET_AFTER_CODE,
    NOT_SECRET_BEFORE_CODE,
    NUMBER_SHAPE,
    PASSPORT_NAMED,
    PASSPORT_SERIES,
    PASSWORD_BARE,
    PASSWORD_BEFORE,
    PASSWORD_COMPOUNDS,
    PASSWORD_LEADS,
    PASSWORD_STATED,
    SNILS_NAMED,
    SNILS_SHAPE,
    SSN_NAMED,
    SSN_SHAPE,
    UNIT_AFTER,
    UNIT_SHAPE,
    WIFI_PASSWORD,
    WORD,
    WORD_BEFORE,
    YEAR,
)
from memory.secrets.seeds import mask_seed_phrases
from memory.text.prefilter import first_match, substitute

# What the rest of the bot and the tests import from here; the checks live with their families.
__all__ = [
    "ANSWER", "API_KEY", "CARD", "CODE", "CVV", "IBAN", "INN", "OGRNIP", "PASSPORT", "PASSWORD", "PLACEHOLDERS", "SEED",
    "SNILS", "SSN", "contains_secret", "iban_valid", "is_card_number", "looks_like_password", "luhn_valid",
    "mask_secrets", "snils_valid",
]
MAX_PASSES = 8
PASSWORD_SYMBOLS = frozenset("!@#$%^&*_+=?~")
TRAILING_PUNCTUATION = ".,;:?)»\"'"  # not "!": "rexie!" may be the whole password


def mask_secrets(text: str) -> str:
    """Return `text` with every secret found replaced by a placeholder such as '[card number hidden]'."""
    # A placeholder's brackets can give a glued neighbour ("1111AKIA...") the word boundary it lacked,
    # so passes repeat until nothing changes: masking a masked text must change nothing.
    for _ in range(MAX_PASSES):
        masked = _mask_once(text)
        if masked == text:
            break
        text = masked
    return text


def _mask_once(text: str) -> str:
    # The most specific shapes go first: a card or an identity number hidden first leaves no digits for
    # the code and password maskers, which read looser phrasing, to take a second bite of.
    text = mask_keys(text)
    text = mask_seed_phrases(text)
    text = substitute(NAMED_BLOB, _mask_blob, text)
    text = substitute(NAMED_SHORT_KEY, lambda match: _replace_value(match, API_KEY), text)
    text = substitute(IBAN_CANDIDATE, mask_iban, text)
    text = substitute(TAX_NUMBER, mask_tax_number, text)  # before cards: an OGRNIP may pass Luhn in an issuer's range
    text = substitute(DIGIT_RUN, mask_cards, text)
    text = substitute(SNILS_NAMED, lambda match: _replace_value(match, SNILS), text)
    text = substitute(SNILS_SHAPE, _mask_snils_shape, text)
    text = substitute(SSN_NAMED, lambda match: _replace_value(match, SSN), text)
    text = substitute(SSN_SHAPE, SSN, text)
    text = substitute(PASSPORT_NAMED, lambda match: _replace_value(match, PASSPORT), text)
    text = substitute(PASSPORT_SERIES, lambda match: _replace_value(match, PASSPORT), text)
    text = substitute(CVV_NAMED, lambda match: _replace_value(match, CVV), text)
    text = substitute(GOOGLE_CODE, lambda match: _replace_value(match, CODE), text)
    text = substitute(DOOR_CODE, lambda match: _replace_value(match, CODE), text)
    text = substitute(CODE_NAMED, _mask_code, text)
    text = substitute(BACKUP_CODES, lambda match: _replace_value(match, CODE), text)
    text = substitute(CODE_BEFORE, _mask_code_before, text)
    text = substitute(SPOKEN_CODE, mask_spoken_code, text)
    text = substitute(SECURITY_ANSWER, mask_security_answer, text)
    text = substitute(PASSWORD_LIST, _mask_password_list, text)
    text = substitute(LOGIN_PAIR, _mask_login_pair, text)
    text = substitute(WIFI_PASSWORD, _mask_wifi_password, text)
    text = substitute(PASSWORD_STATED, _mask_stated_password, text)
    text = substitute(PASSWORD_BARE, _mask_bare_password, text)
    text = substitute(PASSWORD_AFTER_SLASH, _mask_after_slash, text)
    return substitute(PASSWORD_BEFORE, _mask_password_before, text)


def contains_secret(text: str) -> bool:
    """True when `text` holds a secret, or a placeholder left where one was."""
    return mask_secrets(text) != text or any(placeholder in text for placeholder in PLACEHOLDERS)


def looks_like_password(value: str) -> bool:
    """True when a word standing where a password may looks like one: letters with digits or symbols, four
    digits or more that are not a year, or a dictionary password such as 'qwerty'."""
    core = value.rstrip(TRAILING_PUNCTUATION)
    if core.lower() in COMMON_PASSWORDS:
        return True
    if len(core) < 4 or first_match(EMAIL_OR_URL, core) or UNIT_SHAPE.fullmatch(core.lower()):
        return False
    if core.isascii() and core.isdigit():
        return not YEAR.fullmatch(core)
    if NUMBER_SHAPE.fullmatch(core):
        return False  # a date, a time, a price, a piece of a phone number
    has_letter = any(char.isalpha() for char in core)
    return has_letter and any(char.isdigit() or char in PASSWORD_SYMBOLS for char in core)


def _mask_blob(match: re.Match[str]) -> str:
    if not re.search(r"[0-9]", match.group("value")):
        return match.group(0)  # a long word after "key" is prose, not a key
    return _replace_value(match, API_KEY)


def _mask_snils_shape(match: re.Match[str]) -> str:
    return SNILS if snils_valid(re.sub(r"[^0-9]", "", match.group())) else match.group()


def _mask_code(match: re.Match[str]) -> str:
    qualifiers = match.group("qual").replace(",", " ").split()
    before = WORD_BEFORE.search(match.string, max(0, match.start() - 30), match.start())
    if before and before.group(1).lower() in NOT_SECRET_BEFORE_CODE:
        return match.group(0)  # "zip code 10115", "error code 5023"
    if qualifiers and qualifiers[0].lower() in NOT_SECRET_AFTER_CODE:
        return match.group(0)  # "код товара 48213377", "the code review took 2024"
    if len(match.group("value")) == 7 and UNIT_AFTER.match(match.string, match.end("value")):
        return match.group(0)  # "код 845 221 руб": a price in two groups, not the six digits of a code
    if YEAR.fullmatch(match.group("value")) and qualifiers and not HARD_SEP.search(match.group("sep")):
        return match.group(0)  # a year a few words after "code"
    if YEAR.fullmatch(match.group("value")) and re.search("['’]", match.group("sep")):
        return match.group(0)  # "the code's 2024 update"
    if YEAR.fullmatch(match.group("value")) and _in_a_title(match, before, qualifiers):
        return match.group(0)  # "The Da Vinci Code: 2006", "Код да Винчи: 2006", "Code Red: 2013"
    return _replace_value(match, CODE)


def _in_a_title(match: re.Match[str], before: re.Match[str] | None, qualifiers: list[str]) -> bool:
    """True when a capitalised "Code" or "Код" stands in a title: after a capitalised word that does not open the
    sentence ("Vinci Code"), or before one ("Code Red", "Код да Винчи"). A year after it is the title's year."""
    if not match.group("name")[:1].isupper():
        return False
    if any(word[:1].isupper() for word in qualifiers):
        return True
    if before is None or not before.group(1)[:1].isupper():
        return False
    ahead = match.string[max(0, before.start(1) - 2) : before.start(1)]
    return not (before.start(1) == 0 or re.search(r"[.!?:]\s*$", ahead))


def _mask_code_before(match: re.Match[str]) -> str:
    qualifiers = match.group("qual").split()
    if qualifiers and qualifiers[0].lower() in NOT_SECRET_AFTER_CODE:
        return match.group(0)
    return _replace_value(match, CODE)


def _mask_stated_password(match: re.Match[str]) -> str:
    name = match.group("name").lower()
    qualifiers = match.group("qual").split()
    separator = match.group("sep")
    hard = first_match(HARD_SEP, separator) is not None
    short_name = name in ("pass", "pw", "пасс")
    if short_name and _word_before(match) in NOT_PASSWORD_BEFORE_PASS:
        return match.group(0)  # "boarding pass: 12B", "ski-pass: 3 days"
    if short_name and hard and not re.search("[:=]", separator) and not looks_like_password(match.group("value")):
        return match.group(0)  # "I'll pass - thanks"; but "пасс от стима — Dota2Forever"
    if not hard and qualifiers and (qualifiers[0].lower() not in PASSWORD_LEADS or len(qualifiers) > 5):
        return match.group(0)  # "the password policy at work is annoying"
    # Far from its name, after a bare "pass is", or in a definition ("пароль — это ..."), a value must
    # look like a password; right after "пароль:" or "password is" any word but a stop word will do.
    if NAMES_NEXT_PASSWORD.match(match.string, match.end("value")):
        return match.group(0)  # "Пароли: почта — [password hidden]", "будет слово [password hidden]"
    if is_talk(match.group("value").rstrip(TRAILING_PUNCTUATION)):
        return match.group(0)  # "Пароль: спроси у админа", "пароль: потом скажу"
    if (short_name and not hard) or len(qualifiers) > 4 or first_match(DEFINITION_SEP, separator) or \
            separator.strip() == "?":  # "the password? Sunshine2023!", but "the password? Forgot it"
        taken = looks_like_password(match.group("value"))
    else:
        taken = bool(match.group("value").rstrip(TRAILING_PUNCTUATION))  # stop words are refused by the pattern
    return _replace_value(match, PASSWORD) if taken and not _number_with_unit(match) else match.group(0)


# A value followed by a hidden password, or a dash and one, a word apart at most, names what that password opens
# ("рабочая почта — [password hidden]") or leads up to it ("будет слово [password hidden]"): on a second pass it
# is no password itself.
NAMES_NEXT_PASSWORD = re.compile(rf"(?:\s+{WORD})?\s*(?:(?:[—–=]|-(?=\s))\s*)?" + re.escape(PASSWORD))
# A password given with its login after a slash ("admin / P@ssw0rd"), once the login was taken for the password.
PASSWORD_AFTER_SLASH = re.compile(re.escape(PASSWORD) + r"\s*/\s*(?P<value>[^\s,;\[]{4,64}+)")


def _mask_after_slash(match: re.Match[str]) -> str:
    return _replace_value(match, PASSWORD) if looks_like_password(match.group("value")) else match.group(0)


def _mask_password_list(match: re.Match[str]) -> str:
    """Return a list of "what it opens — password" pairs with each value that looks like a password replaced."""
    def one(pair: re.Match[str]) -> str:
        value = pair.group("value").rstrip(TRAILING_PUNCTUATION)
        return pair.group("name") + PASSWORD if looks_like_password(value) else pair.group(0)

    start, end = match.span("value")
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + PAIR_VALUE.sub(one, match.group("value")) + whole[end - offset :]


def _mask_login_pair(match: re.Match[str]) -> str:
    value = match.group("value").rstrip(TRAILING_PUNCTUATION)
    marked = any(char.isdigit() or char in PASSWORD_SYMBOLS for char in value) or value.lower() in COMMON_PASSWORDS
    if not (marked or match.group("sep").strip()):
        return match.group(0)
    return _replace_value(match, PASSWORD)


def _mask_wifi_password(match: re.Match[str]) -> str:
    if match.group("value").endswith(":"):
        return match.group(0)  # the network's name before its password
    value = match.group("value").rstrip(TRAILING_PUNCTUATION)
    latin_after_russian = match.group("ru") is not None and LATIN_WORD.fullmatch(value) is not None
    if not (looks_like_password(value) or latin_after_russian) or _number_with_unit(match):
        return match.group(0)
    return _replace_value(match, PASSWORD)


def _word_before(match: re.Match[str]) -> str:
    """Return the word just before a match, lower-cased, or ""."""
    before = WORD_BEFORE.search(match.string, max(0, match.start() - 30), match.start())
    return before.group(1).lower() if before else ""


def _mask_bare_password(match: re.Match[str]) -> str:
    qualifiers = match.group("qual").replace(",", " ").split()
    if qualifiers and qualifiers[0].lower() in PASSWORD_COMPOUNDS:
        return match.group(0)  # "password manager like 1Password"
    if match.group("name").lower() == "пасс" and _word_before(match) in NOT_PASSWORD_BEFORE_PASS:
        return match.group(0)  # "ски пасс 2024"
    if match.group("value").endswith(":"):
        return match.group(0)  # a name before the value: "пароль от wifi Home_5G: …"
    if not looks_like_password(match.group("value")) or _number_with_unit(match):
        return match.group(0)
    return _replace_value(match, PASSWORD)


def _mask_password_before(match: re.Match[str]) -> str:
    connector = match.group("conn")
    value = match.group("value").rstrip(TRAILING_PUNCTUATION)
    if not connector.strip() or not looks_like_password(value):
        return match.group(0)  # "Win11 password" has no "is", no dash, no "my"
    if value.isdigit() and not re.search(r"[—–:-]|\b(?:is|was|это|as|that)\b", connector, re.IGNORECASE):
        return match.group(0)  # "в 2019 мой пароль слили"
    return _replace_value(match, PASSWORD)


def _number_with_unit(match: re.Match[str]) -> bool:
    """True when the value is a bare number followed by a unit: "8 символов", "12 characters", "90 days"."""
    value = match.group("value").rstrip(TRAILING_PUNCTUATION)
    return value.isdigit() and UNIT_AFTER.match(match.string, match.end("value")) is not None


def _replace_value(match: re.Match[str], placeholder: str) -> str:
    start, end = match.span("value")
    value = match.group("value")
    # Sentence punctuation after a password ("... is hunter2.") stays in the text.
    kept = len(value) - len(value.rstrip(".,;"))
    end -= kept if kept < len(value) else 0
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + placeholder + whole[end - offset :]
