"""Masking of secrets in what the user writes: card numbers, IBANs, API keys, passwords, PINs and one-time
codes, card security codes, passport, SNILS and social security numbers, seed phrases."""

from __future__ import annotations

import re

from memory.secrets.patterns import (
    CODE_BEFORE,
    CODE_NAMED,
    COMMON_PASSWORDS,
    CVV_NAMED,
    DEFINITION_SEP,
    DIGIT_RUN,
    EMAIL_OR_URL,
    GOOGLE_CODE,
    HARD_SEP,
    IBAN_CANDIDATE,
    KEY_PATTERNS,
    NAMED_BLOB,
    NAMED_SHORT_KEY,
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
    SEED_LABEL,
    SEED_LABELLED,
    SEED_LABELLED_MIN,
    SEED_LEAD_TOKENS,
    SEED_LENGTHS,
    SEED_NAME,
    SEED_NUMBERING,
    SEED_STOPWORDS,
    SEED_TOKEN,
    SEED_WINDOW,
    SEED_WORD,
    SNILS_NAMED,
    SNILS_SHAPE,
    SSN_NAMED,
    SSN_SHAPE,
    UNIT_AFTER,
    UNIT_SHAPE,
    WORD_BEFORE,
    YEAR,
)
from memory.text.prefilter import first_match, matches, substitute

CARD = "[card number hidden]"
IBAN = "[IBAN hidden]"
API_KEY = "[API key hidden]"
PASSWORD = "[password hidden]"
CODE = "[code hidden]"  # one-time codes, door codes and PINs
CVV = "[CVV hidden]"
PASSPORT = "[passport number hidden]"
SNILS = "[SNILS hidden]"
SSN = "[SSN hidden]"
SEED = "[seed phrase hidden]"
PLACEHOLDERS = (CARD, IBAN, API_KEY, PASSWORD, CODE, CVV, PASSPORT, SNILS, SSN, SEED)
MAX_CARD_GROUPS = 19
MAX_IBAN_GROUPS = 9  # 34 characters in groups of four
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
    for pattern in KEY_PATTERNS:
        text = substitute(pattern, API_KEY, text)
    text = _mask_seed_phrases(text)
    text = substitute(NAMED_BLOB, _mask_blob, text)
    text = substitute(NAMED_SHORT_KEY, lambda match: _replace_value(match, API_KEY), text)
    text = substitute(IBAN_CANDIDATE, _mask_iban, text)
    text = substitute(DIGIT_RUN, _mask_cards, text)
    text = substitute(SNILS_NAMED, lambda match: _replace_value(match, SNILS), text)
    text = substitute(SNILS_SHAPE, _mask_snils_shape, text)
    text = substitute(SSN_NAMED, lambda match: _replace_value(match, SSN), text)
    text = substitute(SSN_SHAPE, SSN, text)
    text = substitute(PASSPORT_NAMED, lambda match: _replace_value(match, PASSPORT), text)
    text = substitute(PASSPORT_SERIES, lambda match: _replace_value(match, PASSPORT), text)
    text = substitute(CVV_NAMED, lambda match: _replace_value(match, CVV), text)
    text = substitute(GOOGLE_CODE, lambda match: _replace_value(match, CODE), text)
    text = substitute(CODE_NAMED, _mask_code, text)
    text = substitute(CODE_BEFORE, _mask_code_before, text)
    text = substitute(PASSWORD_STATED, _mask_stated_password, text)
    text = substitute(PASSWORD_BARE, _mask_bare_password, text)
    return substitute(PASSWORD_BEFORE, _mask_password_before, text)


def contains_secret(text: str) -> bool:
    """True when `text` holds a secret, or a placeholder left where one was."""
    return mask_secrets(text) != text or any(placeholder in text for placeholder in PLACEHOLDERS)


def luhn_valid(digits: str) -> bool:
    """True when the string of digits passes the Luhn checksum used by payment cards."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        number = int(char)
        if position % 2:
            number = number * 2 - 9 if number > 4 else number * 2
        total += number
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """True when a compact IBAN (no spaces) has a plausible length and passes the ISO 7064 mod-97 check."""
    if not 15 <= len(iban) <= 34 or not iban.isascii() or not iban.isalnum():
        return False
    rearranged = (iban[4:] + iban[:4]).upper()
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def snils_valid(digits: str) -> bool:
    """True when 11 digits form a SNILS whose last two digits are the check number of the first nine."""
    if len(digits) != 11 or not digits.isascii() or not digits.isdigit():
        return False
    total = sum(int(char) * (9 - position) for position, char in enumerate(digits[:9]))
    return total % 101 % 100 == int(digits[9:])


def is_card_number(groups: list[str]) -> bool:
    """True when digit groups, read as one number, look like a card: 13-19 digits in groups of 3+, Luhn-valid."""
    digits = "".join(groups)
    # Prices ("1 234 567") and dates ("2024-05-17") have short groups; cards are typed in fours.
    shaped = len(groups[0]) >= 4 and all(len(group) >= 3 for group in groups)
    return shaped and 13 <= len(digits) <= 19 and luhn_valid(digits)


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


def _mask_iban(match: re.Match[str]) -> str:
    # Try the whole candidate, then without trailing groups: "DE89 ... 00 ABCD" may end in a word.
    text = match.group(0)
    groups = text.split(" ")
    for end in range(min(len(groups), MAX_IBAN_GROUPS), 0, -1):
        if iban_valid("".join(groups[:end])):
            return IBAN + text[len(" ".join(groups[:end])) :]
    return text


def _mask_cards(match: re.Match[str]) -> str:
    run = match.group(0)
    if run.startswith("+"):
        return run
    groups = list(re.finditer(r"[0-9]+", run))
    pieces, done, first = [], 0, 0
    while first < len(groups):
        last = _card_end(groups, first)
        if last is None:
            first += 1
            continue
        pieces += [run[done : groups[first].start()], CARD]
        done = groups[last].end()
        first = last + 1
    return "".join(pieces) + run[done:]


def _card_end(groups: list[re.Match[str]], first: int) -> int | None:
    """Return the index of the last group of the longest card number starting at group `first`, or None."""
    for last in range(min(len(groups), first + MAX_CARD_GROUPS) - 1, first - 1, -1):
        if is_card_number([group.group() for group in groups[first : last + 1]]):
            return last
    return None


def _mask_snils_shape(match: re.Match[str]) -> str:
    return SNILS if snils_valid(re.sub(r"[^0-9]", "", match.group())) else match.group()


def _mask_seed_phrases(text: str) -> str:
    pieces, done = [], 0
    for match in matches(SEED_NAME, text):
        span = None if match.start() < done else _seed_run(text, match.end())
        if span:
            pieces += [text[done : span[0]], SEED]
            done = span[1]
    return "".join(pieces) + text[done:]


def _seed_run(text: str, start: int) -> tuple[int, int] | None:
    """Return the span of the seed words that follow a seed phrase's name ending at `start`, or None: all of
    them up to the clause's end when the name labels them, else a run of 12 to 24."""
    labelled = _labelled_seed(text, start)
    if labelled:
        return labelled
    end = min(len(text), start + SEED_WINDOW)
    # A word cut by the window's edge is not taken: the mask would end inside it.
    tokens = [
        (token.span(), (token.end() < end or end == len(text)) and _is_seed_word(token.group()))
        for token in SEED_TOKEN.finditer(text, start, end)
        if not SEED_NUMBERING.fullmatch(token.group())
    ]
    first = 0
    while first < min(len(tokens), SEED_LEAD_TOKENS):
        last = first
        while last < len(tokens) and tokens[last][1]:
            last += 1
        count = last - first
        if count >= SEED_LENGTHS[-1]:
            kept = count if count > SEED_LENGTHS[0] else max(n for n in SEED_LENGTHS if n <= count)
            return tokens[first][0][0], tokens[first + kept - 1][0][1]
        first = last + 1
    return None


def _labelled_seed(text: str, start: int) -> tuple[int, int] | None:
    label = SEED_LABEL.match(text, start)
    words = SEED_LABELLED.match(text, label.end()) if label else None
    if words is None:
        return None
    found = re.findall(r"[^\W\d_]+", words.group())
    if len(found) < SEED_LABELLED_MIN or any(word.lower() in SEED_STOPWORDS for word in found):
        return None
    return words.span()


def _is_seed_word(token: str) -> bool:
    lower = token.lower()
    return SEED_WORD.fullmatch(lower) is not None and lower not in SEED_STOPWORDS


def _mask_code(match: re.Match[str]) -> str:
    qualifiers = match.group("qual").split()
    before = WORD_BEFORE.search(match.string, max(0, match.start() - 30), match.start())
    if before and before.group(1).lower() in NOT_SECRET_BEFORE_CODE:
        return match.group(0)  # "zip code 10115", "error code 5023"
    if qualifiers and qualifiers[0].lower() in NOT_SECRET_AFTER_CODE:
        return match.group(0)  # "код товара 48213377", "the code review took 2024"
    if YEAR.fullmatch(match.group("value")) and qualifiers and not HARD_SEP.search(match.group("sep")):
        return match.group(0)  # a year a few words after "code"
    return _replace_value(match, CODE)


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
    short_name = name in ("pass", "pw")
    if short_name and hard and not re.search("[:=]", separator):
        return match.group(0)  # "I'll pass - thanks"
    if not hard and qualifiers and (qualifiers[0].lower() not in PASSWORD_LEADS or len(qualifiers) > 5):
        return match.group(0)  # "the password policy at work is annoying"
    # Far from its name, after a bare "pass is", or in a definition ("пароль — это ..."), a value must
    # look like a password; right after "пароль:" or "password is" any word but a stop word will do.
    if (short_name and not hard) or len(qualifiers) > 4 or first_match(DEFINITION_SEP, separator):
        taken = looks_like_password(match.group("value"))
    else:
        taken = bool(match.group("value").rstrip(TRAILING_PUNCTUATION))  # stop words are refused by the pattern
    return _replace_value(match, PASSWORD) if taken and not _number_with_unit(match) else match.group(0)


def _mask_bare_password(match: re.Match[str]) -> str:
    qualifiers = match.group("qual").split()
    if qualifiers and qualifiers[0].lower() in PASSWORD_COMPOUNDS:
        return match.group(0)  # "password manager like 1Password"
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
