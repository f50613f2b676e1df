"""Secrets caught by what they are (checksums, issuer ranges, published key formats, BIP-39 lists), and their
look-alikes left alone: separators, IMEIs, barcodes, ICCIDs, prose with a few listed words."""

import pytest

from memory.secrets.keys import looks_random
from memory.secrets.masking import API_KEY, CARD, CODE, CVV, IBAN, PASSWORD, SEED, mask_secrets
from memory.secrets.numbers import is_card_number
from memory.secrets.seeds import listed_words

TWELVE = "legal winner thank year wave sausage worth useful legal winner thank yellow"


@pytest.mark.parametrize(
    "card",
    [
        "4111\u00a01111\u00a01111\u00a01111",  # no-break spaces
        "5469\u202f3800\u202f1234\u202f5673",  # narrow no-break spaces
        "4111.1111.1111.1111",
        "2200-7001-2345-6781",  # Мир
        "4276 3800 1234 5679",
        "2221 0000 0000 0009",  # Mastercard's 2-series
        "3714 496353 98431",  # Amex, 4-6-5
    ],
)
def test_cards_with_any_separator_are_masked(card):
    assert mask_secrets(f"карта {card}, срок 12/27") == f"карта {CARD}, срок 12/27"


@pytest.mark.parametrize(
    "text",
    [
        "356938035643809",  # an IMEI: Luhn-valid, 15 digits, no issuer gives 15 digits starting 35
        "IMEI: 35-693803-564380-9",
        "4006381333931",  # an EAN-13 barcode
        "штрихкод 4601234567893",
        "8970199170111111116",  # an ICCID (89...) that passes Luhn
        "ICCID 8970199170111111116",
        "трек RA123456789RU",
        "4111 1111 1111 1112",  # fails Luhn
        "+7 999 123-45-67", "12.05.2024", "192.168.100.200", "v1.2.3.4", "1 234 567 ₽",
    ],
)
def test_numbers_that_only_look_like_cards_are_kept(text):
    assert mask_secrets(text) == text


def test_issuer_ranges_decide_with_luhn():
    assert is_card_number(["4111", "1111", "1111", "1111"])
    assert not is_card_number(["356938035643809"])  # Luhn-valid IMEI
    assert not is_card_number(["4601234567893"])  # Luhn-valid or not, a valid EAN-13 is a barcode


@pytest.mark.parametrize(
    "iban",
    [
        "DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a000",
        "GB82-WEST-1234-5698-7654-32",
        "DE89.3704.0044.0532.0130.00",
    ],
)
def test_ibans_with_any_separator_are_masked(iban):
    assert mask_secrets(f"IBAN {iban}.") == f"IBAN {IBAN}."


@pytest.mark.parametrize("text", ["DE89 3704 0044 0532 0130 01", "DE89\u00a03704\u00a00044\u00a00532\u00a00130\u00a001",
                                  "DE89 3704 0044 0532 0130 0"])  # bad checksum; one digit short of Germany's 22
def test_ibans_with_a_bad_checksum_or_length_are_kept(text):
    assert mask_secrets(text) == text


def test_twelve_listed_words_without_a_label_are_a_seed_phrase():
    assert mask_secrets(f"вот: {TWELVE}") == f"вот: {SEED}"
    assert mask_secrets(TWELVE.upper()) == SEED


def test_eleven_listed_words_are_not():
    eleven = " ".join(TWELVE.split()[:11])
    assert mask_secrets(eleven) == eleven


def test_a_seed_phrase_inside_a_sentence_leaves_the_sentence():
    text = f"I wrote {TWELVE}, please keep it safe"
    assert mask_secrets(text) == f"I wrote {SEED}, please keep it safe"


@pytest.mark.parametrize(
    "text",
    [
        "mnemonic for notes: every good boy does fine",
        "a mnemonic for the notes: face",
        "we planted 12 seeds, the phrase of the day is grow",
        "the mnemonic for the planets is my very eager mother just served us nachos",
    ],
)
def test_prose_with_some_listed_words_is_kept(text):
    assert mask_secrets(text) == text


def test_words_of_two_lists_do_not_make_one_run():
    assert listed_words(["abandon", "ability"])
    assert not listed_words(["abandon", "абзац"])


PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7V1ExampleBody\nAbCdEf0123==\n-----END RSA PRIVATE KEY-----"
OPENSSH = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


@pytest.mark.parametrize("block", [PEM, OPENSSH])
def test_private_key_blocks_are_masked_whole(block):
    assert mask_secrets(f"мой ключ:\n{block}\nспасибо") == f"мой ключ:\n{API_KEY}\nспасибо"


def test_a_private_key_block_without_its_end_is_masked_to_the_end():
    assert mask_secrets("here " + OPENSSH.split("-----END")[0]) == f"here {API_KEY}"


def test_a_password_in_a_url_is_masked():
    text = "DATABASE_URL=postgres://admin:S3cr3t!@db.example.com:5432/app"
    assert mask_secrets(text) == f"DATABASE_URL=postgres://admin:{PASSWORD}@db.example.com:5432/app"
    kept = "see https://example.com/a:b and me@example.com"
    assert mask_secrets(kept) == kept


@pytest.mark.parametrize(
    "key",
    ["sk_live_4eC39HqLyjWDarjtT1zdp7dc", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "glpat-xZ8aQ1wE2rT3yU4iO5pL",
     "Zx81qqP0aLm3NvB7cD2eF9gH4jK6", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
)
def test_unlabelled_keys_are_masked(key):
    assert mask_secrets(f"use {key} for it") == f"use {API_KEY} for it"


@pytest.mark.parametrize(
    "text",
    ["commit 9fceb02d0ae598e95dc970b74767f19372d61af8", "id 123e4567-e89b-12d3-a456-426614174000", "color #ff5733",
     "getUserAccountSettings2ForTheWin", "iPhone15ProMaxUltra2024",
     "https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit"],
)
def test_hashes_uuids_colours_identifiers_and_urls_are_kept(text):
    assert mask_secrets(text) == text


def test_random_tokens_are_told_from_hashes_and_words():
    assert looks_random("Zx81qqP0aLm3NvB7cD2eF9gH4jK6")
    assert not looks_random("9fceb02d0ae598e95dc970b74767f19372d61af8")
    assert not looks_random("getUserAccountSettings2ForTheWin")
    assert not looks_random("1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa")  # a Bitcoin address is public


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("логин ivan пасс 7k2", f"логин ivan пасс {PASSWORD}"),
        ("логин: admin, пасс: qwerty", f"логин: admin, пасс: {PASSWORD}"),
        ("wifi pw sunflower77", f"wifi pw {PASSWORD}"),
        ("пароль от вайфая Romashka", f"пароль от вайфая {PASSWORD}"),
        ("pwd: x9", f"pwd: {PASSWORD}"),
        ("код домофона 45К1234", f"код домофона {CODE}"),
        ("пин-код: 0420", f"пин-код: {CODE}"),
    ],
)
def test_labelled_short_passwords_and_codes_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    ["boarding pass: 12B", "my boarding pass is in the app", "ski pass: 3 days", "ски-пасс: 3 дня",
     "passport control took 2 hours", "пароль у админа", "forgot my password", "login admin, password forgotten",
     "отдал пасс на Иванова"],
)
def test_passes_and_talk_about_passwords_are_kept(text):
    assert mask_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("the CID is 4321, printed on the front", f"the CID is {CVV}, printed on the front"),
        ("пароль от wifi MyNet_2G: pass1234word", f"пароль от wifi MyNet_2G: {PASSWORD}"),
        ("пасс от почты — Qwe12345", f"пасс от почты — {PASSWORD}"),
        ("пароль к 1С — Abc2024, логин Петров", f"пароль к 1С — {PASSWORD}, логин Петров"),
        ("alarm code: 2-5-8-0", f"alarm code: {CODE}"),
        ("recovery codes: 1234 5678, 8765 4321", f"recovery codes: {CODE}"),
        ("кодовое слово — Мурзик77", f"кодовое слово — {PASSWORD}"),
        ("пароль от сервера: root / S3cretPass", f"пароль от сервера: {PASSWORD} / {PASSWORD}"),
    ],
)
def test_codes_and_passwords_in_more_phrasings_are_masked(text, masked):
    assert mask_secrets(text) == masked


def test_a_public_ssh_key_is_kept_a_random_token_alone_is_not():
    public = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQC7Zx81qqP0aLm3NvB7cD2eF9gH4jK6 me@laptop"
    assert mask_secrets(public) == public
    assert mask_secrets("token Zx81qqP0aLm3NvB7cD2eF9gH4jK6 for the api") == f"token {API_KEY} for the api"
