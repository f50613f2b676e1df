"""Masking of secrets (card numbers, IBANs, keys, passwords, one-time codes) in what the user writes."""

from __future__ import annotations

import re

CARD = "[card number hidden]"
IBAN = "[IBAN hidden]"
API_KEY = "[API key hidden]"
PASSWORD = "[password hidden]"
CODE = "[code hidden]"
PLACEHOLDERS = (CARD, IBAN, API_KEY, PASSWORD, CODE)

# Keys and tokens recognisable by their own shape, wherever they appear.
KEY_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bxox[abpors]-[A-Za-z0-9-]{10,}"),
    re.compile(r"(?<![0-9])[0-9]{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"),
]
# A long hex or base64 blob after a word that names it as a key ("token: 9f8e...", "ключ — abc123...").
# "(?<!\[)" keeps the words inside our own placeholders ("[API key hidden]") from counting.
QUALIFIERS = r"(?:\s+[^\W\d_]+){0,3}?"
NAMED_BLOB = re.compile(
    rf"(?<!\[)\b(?:token|key|secret|ключ\w*|токен\w*|секрет\w*)\b{QUALIFIERS}(?:\s*(?:\bis\b|[:=—–-]))*+\s*"
    r"(?P<value>[A-Za-z0-9+/_=-]{16,})",
    re.IGNORECASE,
)
IBAN_CANDIDATE = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]{2}[0-9]{2}(?: ?[A-Za-z0-9]{4})+(?: ?[A-Za-z0-9]{1,4})?(?![A-Za-z0-9])"
)
# A run of digits joined by single spaces or dashes; a leading "+" marks a phone number.
DIGIT_RUN = re.compile(r"(?<![\w+])\+?[0-9](?:[ -]?[0-9])*")
NOT_A_PLACEHOLDER = r"(?!\[[^\]\n]{0,30} hidden\])"
# Separators are taken possessively ("++"): backtracking into them would let "is:" pass for the value
# of an already masked "password: is: [password hidden]".
PASSWORD_VALUE = re.compile(
    rf"(?<!\[)\b(?:(?:password|passwd|pwd|парол\w*)\b{QUALIFIERS}(?:\s*(?:\bis\b|\bwas\b|\bэто\b|[:=—–-]))++"
    rf"|pass\s*[:=])\s*{NOT_A_PLACEHOLDER}(?P<value>[^\s:=—–]\S*)",
    re.IGNORECASE,
)
# The code must stand alone: "код 1234 5678" is more likely part of a longer number.
CODE_VALUE = re.compile(
    rf"(?<!\[)\b(?:code|codes|otp|pin|sms|пин-?код\w*|пин|код|кода|коду|кодом|коды|смс)\b{QUALIFIERS}"
    r"\s*[:=—–-]?\s*(?P<value>[0-9]{4,8})(?![0-9]|[ -][0-9])",
    re.IGNORECASE,
)
MAX_CARD_GROUPS = 19
MAX_IBAN_GROUPS = 9  # 34 characters in groups of four
MAX_PASSES = 8


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
    # Cards go before codes and passwords: a card hidden first leaves no digits for a later
    # masker to take a second bite of.
    for pattern in KEY_PATTERNS:
        text = pattern.sub(API_KEY, text)
    text = NAMED_BLOB.sub(_mask_blob, text)
    text = IBAN_CANDIDATE.sub(_mask_iban, text)
    text = DIGIT_RUN.sub(_mask_cards, text)
    text = PASSWORD_VALUE.sub(lambda match: _replace_value(match, PASSWORD), text)
    return CODE_VALUE.sub(lambda match: _replace_value(match, CODE), text)


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


def is_card_number(groups: list[str]) -> bool:
    """True when digit groups, read as one number, look like a card: 13-19 digits in groups of 3+, Luhn-valid."""
    digits = "".join(groups)
    # Prices ("1 234 567") and dates ("2024-05-17") have short groups; cards are typed in fours.
    shaped = len(groups[0]) >= 4 and all(len(group) >= 3 for group in groups)
    return shaped and 13 <= len(digits) <= 19 and luhn_valid(digits)


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


def _replace_value(match: re.Match[str], placeholder: str) -> str:
    start, end = match.span("value")
    value = match.group("value")
    # Sentence punctuation after a password ("... is hunter2.") stays in the text.
    kept = len(value) - len(value.rstrip(".,;"))
    end -= kept if kept < len(value) else 0
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + placeholder + whole[end - offset :]
