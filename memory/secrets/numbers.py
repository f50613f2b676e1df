"""Card numbers and IBANs found by their checksums, written with any separators; SNILS check digits.

A card is 13-19 digits that pass Luhn *and* fall in an issuer's range with that issuer's length: Luhn alone
passes one number in ten, and IMEIs (15 digits, Luhn), ICCIDs (89…) and many barcodes pass it too. An IBAN
must pass ISO 7064 mod 97 and have its country's length and shape (python-stdnum's registry).
"""

from __future__ import annotations

import re

from stdnum import ean, iban, luhn

from memory.secrets.placeholders import CARD, IBAN

# Spaces (also no-break U+00A0, narrow no-break U+202F, thin U+2009), dots and dashes, one at a time.
SEPARATOR = "[ \u00a0\u202f\u2009.-]"
# A run of digits joined by single separators; a leading "+" marks a phone number.
DIGIT_RUN = re.compile(rf"(?<![\w+])\+?[0-9](?:{SEPARATOR}?[0-9])*")
DIGIT_GROUP = re.compile(r"[0-9]+")
IBAN_CANDIDATE = re.compile(
    rf"(?<![A-Za-z0-9])[A-Za-z]{{2}}[0-9]{{2}}(?:{SEPARATOR}?[A-Za-z0-9]{{4}})+(?:{SEPARATOR}?[A-Za-z0-9]{{1,4}})?"
    r"(?![A-Za-z0-9])"
)
IBAN_GROUP = re.compile(r"[A-Za-z0-9]+")
MAX_CARD_GROUPS = 19
# (first prefix, last prefix, allowed lengths): prefixes of one length compare as strings.
ISSUERS = (
    ("4", "4", (13, 16, 19)),  # Visa
    ("51", "55", (16,)),  # Mastercard
    ("2221", "2720", (16,)),  # Mastercard's 2-series
    ("34", "34", (15,)),  # American Express
    ("37", "37", (15,)),
    ("2200", "2204", (16, 17, 18, 19)),  # Мир
    ("62", "62", (16, 17, 18, 19)),  # UnionPay
    ("81", "81", (16, 17, 18, 19)),
    ("6011", "6011", (16, 17, 18, 19)),  # Discover
    ("644", "649", (16, 17, 18, 19)),
    ("65", "65", (16, 17, 18, 19)),
    ("3528", "3589", (16, 17, 18, 19)),  # JCB
    ("300", "305", (14, 15, 16, 17, 18, 19)),  # Diners Club
    ("3095", "3095", (14, 15, 16, 17, 18, 19)),
    ("36", "36", (14, 15, 16, 17, 18, 19)),
    ("38", "39", (16, 17, 18, 19)),
    ("50", "50", (13, 14, 15, 16, 17, 18, 19)),  # Maestro
    ("56", "58", (13, 14, 15, 16, 17, 18, 19)),
    ("6304", "6304", (13, 14, 15, 16, 17, 18, 19)),
    ("639", "639", (13, 14, 15, 16, 17, 18, 19)),
    ("67", "67", (13, 14, 15, 16, 17, 18, 19)),
    ("60", "60", (16, 19)),  # RuPay
    ("9792", "9792", (16,)),  # Troy
)
# Words that, just before a number, say it is no card: "IMEI 356938035643809", "штрихкод 4601234567893".
NOT_CARD_WORDS = frozenset(
    "imei imei1 imei2 imsi meid iccid sim сим ean upc gtin isbn barcode штрихкод штрих-код штрихкода артикул sku "
    "serial s/n серийный серийник tracking трек трек-номер трекномер order заказ заказа посылки накладной".split()
)
WORDS_BEFORE = re.compile(r"[^\W\d_][\w/-]*")


def luhn_valid(digits: str) -> bool:
    """True when the string of digits passes the Luhn checksum used by payment cards."""
    return digits.isascii() and digits.isdigit() and luhn.is_valid(digits)


def issuer_accepts(digits: str) -> bool:
    """True when some card issuer gives out numbers with this prefix and this length."""
    for low, high, lengths in ISSUERS:
        if len(digits) in lengths and low <= digits[: len(low)] <= high:
            return True
    return False


def is_card_number(groups: list[str]) -> bool:
    """True when digit groups, read as one number, look like a card: 13-19 digits typed in groups of 3+, in an
    issuer's range and length, Luhn-valid, and not a valid 13- or 14-digit barcode."""
    digits = "".join(groups)
    # Prices ("1 234 567") and dates ("2024-05-17") have short groups; cards are typed in fours.
    shaped = len(groups[0]) >= 4 and all(len(group) >= 3 for group in groups)
    if not (shaped and 13 <= len(digits) <= 19 and issuer_accepts(digits) and luhn_valid(digits)):
        return False
    return not (len(digits) in (13, 14) and ean.is_valid(digits))


def iban_valid(text: str) -> bool:
    """True when a compact IBAN (no spaces) has its country's length and shape and passes the mod-97 check."""
    if not 15 <= len(text) <= 34 or not text.isascii() or not text.isalnum():
        return False
    return iban.is_valid(text)


def snils_valid(digits: str) -> bool:
    """True when 11 digits form a SNILS whose last two digits are the check number of the first nine."""
    if len(digits) != 11 or not digits.isascii() or not digits.isdigit():
        return False
    total = sum(int(char) * (9 - position) for position, char in enumerate(digits[:9]))
    return total % 101 % 100 == int(digits[9:])


def mask_iban(match: re.Match[str]) -> str:
    """Return an IBAN candidate with its longest valid IBAN prefix replaced: "DE89 … 00 ABCD" may end in a word."""
    text = match.group(0)
    groups = list(IBAN_GROUP.finditer(text))
    for end in range(len(groups), 0, -1):
        if iban_valid("".join(group.group() for group in groups[:end])):
            return IBAN + text[groups[end - 1].end() :]
    return text


def mask_cards(match: re.Match[str]) -> str:
    """Return a run of digits with every card number in it replaced."""
    run = match.group(0)
    if run.startswith("+") or _named_not_card(match.string, match.start()):
        return run
    groups = list(DIGIT_GROUP.finditer(run))
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
    if len(groups[first].group()) < 4:
        return None
    for last in range(min(len(groups), first + MAX_CARD_GROUPS) - 1, first - 1, -1):
        if is_card_number([group.group() for group in groups[first : last + 1]]):
            return last
    return None


def _named_not_card(text: str, start: int) -> bool:
    """True when one of the two words before `start` names a number that is no card (IMEI, barcode, order)."""
    words = WORDS_BEFORE.findall(text, max(0, start - 40), start)[-2:]
    return any(word.lower().rstrip(":#") in NOT_CARD_WORDS for word in words)
