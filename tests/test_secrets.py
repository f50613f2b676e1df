import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memory.secrets.masking import (
    API_KEY,
    CARD,
    CODE,
    CVV,
    IBAN,
    PASSPORT,
    PASSWORD,
    SEED,
    SNILS,
    SSN,
    contains_secret,
    iban_valid,
    looks_like_password,
    luhn_valid,
    mask_secrets,
    snils_valid,
)


@pytest.mark.parametrize(
    "card",
    ["4111 1111 1111 1111", "5555-5555-5555-4444", "378282246310005", "4111111111111111", "3782 822463 10005"],
)
def test_valid_card_numbers_are_masked(card):
    assert mask_secrets(f"my card is {card}, thanks") == f"my card is {CARD}, thanks"


def test_a_card_followed_by_its_expiry_or_cvv_is_still_masked():
    assert mask_secrets("карта 4111 1111 1111 1111 12/27") == f"карта {CARD} 12/27"
    assert mask_secrets("4111111111111111 123") == f"{CARD} 123"


def test_two_cards_in_one_run_are_both_masked():
    assert mask_secrets("4111111111111111 5555555555554444") == f"{CARD} {CARD}"


@pytest.mark.parametrize(
    "text",
    [
        "order 1234567812345678 has shipped",  # 16 digits, fails Luhn
        "номер заказа 4111-1111-1111-1112",
        "позвони мне +7 999 123-45-67",
        "call +1 555 123 4567 or +44 20 7946 0958",
        "8 (999) 123-45-67",
        "я родилась в 1990 году, а сейчас 2024",
        "встреча 2024-05-17, в 18:30",
        "квартира стоит 1 234 567 руб",
        "price: 12 345 678 901 234 rub",
        "v1.2.3 build 4567",
    ],
)
def test_numbers_that_are_not_cards_are_kept(text):
    assert mask_secrets(text) == text


def test_luhn():
    assert luhn_valid("4111111111111111")
    assert luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112")


def test_iban_is_masked_only_when_the_mod_97_check_passes():
    assert mask_secrets("IBAN: DE89 3704 0044 0532 0130 00.") == f"IBAN: {IBAN}."
    assert mask_secrets("iban DE89370400440532013000 please") == f"iban {IBAN} please"
    assert mask_secrets("GB82 WEST 1234 5698 7654 32") == IBAN
    assert mask_secrets("DE89 3704 0044 0532 0130 01") == "DE89 3704 0044 0532 0130 01"
    assert iban_valid("GB82WEST12345698765432")
    assert not iban_valid("GB82WEST12345698765433")


def test_an_iban_followed_by_a_capitalised_word_is_still_masked():
    assert mask_secrets("DE89 3704 0044 0532 0130 00 THEN more") == f"{IBAN} THEN more"


@pytest.mark.parametrize(
    "key",
    [
        "sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123",
        "sk-abcdefghijklmnopqrstuvwx",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "AKIAIOSFODNN7EXAMPLE",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
        "xoxp-1234-5678-abcdefghij",
        "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
)
def test_api_keys_and_tokens_are_masked(key):
    assert mask_secrets(f"here: {key} ok") == f"here: {API_KEY} ok"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("my token is 9f86d081884c7d659a2feaa0c55ad015", f"my token is {API_KEY}"),
        ("secret key = c2VjcmV0LXZhbHVlLTEyMzQ1Njc4OTA=", f"secret key = {API_KEY}"),
        ("мой ключ от апи: 9f86d081884c7d659a2feaa0c55ad015", f"мой ключ от апи: {API_KEY}"),
        ("токен — a1b2c3d4e5f6a7b8c9d0", f"токен — {API_KEY}"),
    ],
)
def test_blobs_named_as_keys_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    ["the key to success is persistence", "a token of gratitude", "secret: internationalization", "ключ от квартиры"],
)
def test_words_after_key_words_are_kept(text):
    assert mask_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("my password is hunter2", f"my password is {PASSWORD}"),
        ("My password is hunter2.", f"My password is {PASSWORD}."),
        ("password for my email is Tr0ub4dor&3 ok", f"password for my email is {PASSWORD} ok"),
        ("пароль: qwerty123", f"пароль: {PASSWORD}"),
        ("pass: x", f"pass: {PASSWORD}"),
        ("пароль от почты — Sobaka2024!", f"пароль от почты — {PASSWORD}"),
        ("Мой пароль это 1q2w3e, не говори никому", f"Мой пароль это {PASSWORD}, не говори никому"),
        ("password: is: s3cret", f"password: is: {PASSWORD}"),
    ],
)
def test_stated_passwords_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    ["I forgot my password again", "какой у тебя пароль?", "I'll pass - thanks", "passwordless login is nice"],
)
def test_talk_about_passwords_is_kept(text):
    assert mask_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("код из смс 482913", f"код из смс {CODE}"),
        ("my PIN is 1234", f"my PIN is {CODE}"),
        ("verification code: 556677", f"verification code: {CODE}"),
        ("OTP 12345678", f"OTP {CODE}"),
        ("пин-код 0000, никому", f"пин-код {CODE}, никому"),
        ("Код: 4821", f"Код: {CODE}"),
    ],
)
def test_one_time_codes_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize("text", ["код 12", "the code is 123456789", "код города 495 123-45-67", "pin it to the wall"])
def test_numbers_near_code_words_that_are_not_codes_are_kept(text):
    assert mask_secrets(text) == text


def test_a_fact_next_to_a_secret_survives():
    masked = mask_secrets("I live in Berlin, my card is 4111111111111111")
    assert masked == f"I live in Berlin, my card is {CARD}"
    masked = mask_secrets("Я живу в Казани, у меня кошка Мурка. Пароль от wifi: Murka2020")
    assert masked == f"Я живу в Казани, у меня кошка Мурка. Пароль от wifi: {PASSWORD}"


def test_several_secrets_in_one_message():
    text = "card 5555-5555-5555-4444, pin 1234, password: hunter2, key sk-abcdefghijklmnopqrstuvwx"
    assert mask_secrets(text) == f"card {CARD}, pin {CODE}, password: {PASSWORD}, key {API_KEY}"


# ---- passwords in everyday phrasing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("пароль от почты qwerty123", f"пароль от почты {PASSWORD}"),
        ("my gmail password hunter2", f"my gmail password {PASSWORD}"),
        ("пароль от вайфая 12345678", f"пароль от вайфая {PASSWORD}"),
        ("паролем от роутера стоит admin12345, я не менял", f"паролем от роутера стоит {PASSWORD}, я не менял"),
        ("changed my password to Summer2024! yesterday", f"changed my password to {PASSWORD} yesterday"),
        ("ПАРОЛЬ ОТ ВАЙФАЯ 55667788", f"ПАРОЛЬ ОТ ВАЙФАЯ {PASSWORD}"),
        ("пороль от почты masha2010", f"пороль от почты {PASSWORD}"),
        ("пароль от почты qwerty", f"пароль от почты {PASSWORD}"),
    ],
)
def test_passwords_without_a_separator_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("the wifi password at home is sunflower", f"the wifi password at home is {PASSWORD}"),
        ("пароль у меня это котик", f"пароль у меня это {PASSWORD}"),
        ("дочка спрашивала пароль от компа, это Dasha2012", f"дочка спрашивала пароль от компа, это {PASSWORD}"),
        ("my password's hunter2 lol", f"my password's {PASSWORD} lol"),
        ("pw is lemondrop9", f"pw is {PASSWORD}"),
        ("wifi pass is coffee2go", f"wifi pass is {PASSWORD}"),
        ("the router password? it's Netgear42", f"the router password? it's {PASSWORD}"),
        ("passwords for both accounts are the same: Tiger_77", f"passwords for both accounts are the same: {PASSWORD}"),
        ("пароль у меня на всё один и тот же — Barsik1", f"пароль у меня на всё один и тот же — {PASSWORD}"),
    ],
)
def test_passwords_after_is_or_a_colon_far_from_the_word_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "word", ["пароля", "паролем", "паролю", "пароли", "паролик", "passwords", "passcode", "passphrase"]
)
def test_inflected_and_related_password_words_are_masked(word):
    assert mask_secrets(f"{word}: Kotik2019") == f"{word}: {PASSWORD}"
    assert mask_secrets(f"{word} Kotik2019") == f"{word} {PASSWORD}"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("qwerty123 — это мой пароль от почты", f"{PASSWORD} — это мой пароль от почты"),
        ("hunter2 is my password", f"{PASSWORD} is my password"),
        ("Sobaka2024 это пароль от вайфая", f"{PASSWORD} это пароль от вайфая"),
        ("i use dragon123 as my password everywhere", f"i use {PASSWORD} as my password everywhere"),
        ("Jenny123 — that's the password", f"{PASSWORD} — that's the password"),
    ],
)
def test_a_password_written_before_the_word_is_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "the password policy at work is annoying",
        "забыл пароль от почты",
        "I need to reset my password",
        "пароль должен быть длиннее 8 символов",
        "my password is too short, the site says",
        "пароль от почты — забыл какой",
        "use a password manager like 1Password",
        "the wifi password at home is on a sticker under the router",
        "my password was leaked in 2019",
        "в 2019 мой пароль слили",
        "password123 is the worst password ever",
        "what's a good password for 2025?",
        "пароль от госуслуг сбросила через МФЦ 12.03",
        "my password is 12 characters long",
        "Win11 password screen",
        "email anna.k@mail.com password",
        "the mountain pass is closed",
        "пароль — это набор символов",
        "пароль от wi-fi на роутере",
    ],
)
def test_talk_about_passwords_without_one_is_kept(text):
    assert mask_secrets(text) == text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("hunter2", True), ("Zxcv!2023,", True), ("12345678", True), ("qwerty", True), ("7788аа", True),
        ("rexie!", True), ("2024", False), ("12.05.2024", False), ("14:30", False), ("256GB", False),
        ("3rd", False), ("anna@mail.ru", False), ("sunflower", False), ("123", False), ("+7-912", False),
    ],
)
def test_looks_like_password(value, expected):
    assert looks_like_password(value) is expected


# ---- PINs, card security codes, one-time codes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("пин от карты 4821", f"пин от карты {CODE}"),
        ("my PIN is 0000", f"my PIN is {CODE}"),
        ("пин-код 1234", f"пин-код {CODE}"),
        ("PIN for my debit card: 7391", f"PIN for my debit card: {CODE}"),
        ("the pin for the front door keypad is 8264", f"the pin for the front door keypad is {CODE}"),
        ("2580 — мой пин от карты", f"{CODE} — мой пин от карты"),
        ("the code from the SMS is 482913", f"the code from the SMS is {CODE}"),
        ("вот код: 5521", f"вот код: {CODE}"),
        ("4829 — код из смс", f"{CODE} — код из смс"),
        ("смска пришла с кодом 5078", f"смска пришла с кодом {CODE}"),
        ("G-482913 is your Google verification code", f"G-{CODE} is your Google verification code"),
        ("Код подтверждения: 1947. Никому", f"Код подтверждения: {CODE}. Никому"),
    ],
)
def test_pins_and_codes_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("cvv 123", f"cvv {CVV}"),
        ("CVC код 456", f"CVC код {CVV}"),
        ("три цифры на обороте 789", f"три цифры на обороте {CVV}"),
        ("CVV is 842, expires 09/27", f"CVV is {CVV}, expires 09/27"),
        ("the 3 digits on the back are 904", f"the 3 digits on the back are {CVV}"),
        ("security code 218", f"security code {CVV}"),
        ("карта 4111 1111 1111 1111, свв 330", f"карта {CARD}, свв {CVV}"),
    ],
)
def test_card_security_codes_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "zip code 10115",
        "error code 5023 when I open the app",
        "код ошибки 4040 в приложении",
        "код товара 48213377, размер M",
        "the promo code SUMMER2024 gives 20% off",
        "the code review is due 2024",
        "код из смс не приходит уже 10 минут",
        "PIN is 4 digits, right?",
        "cvv это три цифры на обороте",
        "сзади дома 150 машин",
        "2024 — код ошибки",
        "call +7 912 345 6789 — code word is fine",
    ],
)
def test_numbers_near_code_words_that_are_not_secrets_are_kept(text):
    assert mask_secrets(text) == text


# ---- identity numbers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("паспорт 4510 123456", f"паспорт {PASSPORT}"),
        ("серия 4510 номер 123456", f"серия {PASSPORT}"),
        ("паспорт серия 45 10 номер 123456", f"паспорт серия {PASSPORT}"),
        ("номер паспорта 4612345678", f"номер паспорта {PASSPORT}"),
        ("загранпаспорт 75 1234567 до 2031 года", f"загранпаспорт {PASSPORT} до 2031 года"),
        ("my passport number is 533412908", f"my passport number is {PASSPORT}"),
        ("Passport: C01X00T47, expires 2030", f"Passport: {PASSPORT}, expires 2030"),
        ("СНИЛС 112-233-445 95", f"СНИЛС {SNILS}"),
        ("снилс: 11223344595", f"снилс: {SNILS}"),
        ("вот он: 112-233-445 95", f"вот он: {SNILS}"),
        ("SSN 123-45-6789", f"SSN {SSN}"),
        ("my social is 123 45 6789", f"my social is {SSN}"),
        ("for the form: 078-05-1120", f"for the form: {SSN}"),
    ],
)
def test_identity_numbers_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "паспорт надо поменять в 45 лет",
        "паспортный стол работает до 18:00",
        "passport renewal takes 6 weeks",
        "СНИЛС нужен для госуслуг",
        "112-233-445 96",  # a SNILS shape whose check digits disagree
        "my social life is dead lol",
        "the social security office opens at 9:00",
        "666-12-3456 and 000-12-3456 are never issued",
        "ISBN 978-3-16-148410-0",
        "order #112-4455667-1234567 shipped today",
    ],
)
def test_numbers_that_are_not_identity_numbers_are_kept(text):
    assert mask_secrets(text) == text


def test_snils_check_digits():
    assert snils_valid("11223344595")
    assert snils_valid("08765432102")
    assert not snils_valid("11223344596")
    assert not snils_valid("1122334459")


# ---- seed phrases -------------------------------------------------------------------------------------------------

TWELVE = "legal winner thank year wave sausage worth useful legal winner thank yellow"
TWENTY_FOUR = (
    "ozone drill grab fiber curtain grace pudding thank cruise elder eight picnic "
    "juice cable cherry fabric brick upset rural lottery tragic window behind plunge"
)
NUMBERED = " ".join(f"{number}. {word}" for number, word in enumerate(TWELVE.split(), 1))  # "1. legal 2. winner ..."


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (f"seed phrase: {TWELVE}", f"seed phrase: {SEED}"),
        (f"моя сид-фраза: {TWELVE}, не потеряй", f"моя сид-фраза: {SEED}, не потеряй"),
        (f"сид фраза {TWELVE}", f"сид фраза {SEED}"),
        (f"мнемоника от trust wallet: {TWELVE}", f"мнемоника от trust wallet: {SEED}"),
        (f"recovery phrase for metamask is {TWENTY_FOUR} ok", f"recovery phrase for metamask is {SEED} ok"),
        (f"my mnemonic is: {TWELVE}, please keep it", f"my mnemonic is: {SEED}, please keep it"),
        (f"seed: {TWELVE.replace(' ', ', ')}", f"seed: {SEED}"),
        ("backup phrase\n" + NUMBERED, f"backup phrase\n1. {SEED}"),
        # Twelve words of the BIP-39 list in a row are a seed phrase with no name before them too.
        (f"{TWELVE} (no name before it, so just words)", f"{SEED} (no name before it, so just words)"),
    ],
)
def test_seed_phrases_are_masked_whole(text, masked):
    assert mask_secrets(text) == masked


TEN = "apple river stone cloud magic orange lemon tiger piano frost"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (f"сид-фраза моего кошелька: {TEN}", f"сид-фраза моего кошелька: {SEED}"),  # ten words, not twelve
        ("seed phrase: legal winner thank year wave sausage worth useful legal winner",
         f"seed phrase: {SEED}"),
        (f"мнемоника — {TEN[:23]}", f"мнемоника — {SEED}"),
        (f"моя сид-фраза: {TEN[:17]}, не потеряй", f"моя сид-фраза: {SEED}, не потеряй"),
        (f"seed phrase: {TEN}.", f"seed phrase: {SEED}."),
        ("seed: apple, river, stone", f"seed: {SEED}"),
        ("recovery phrase = 1. apple 2. river 3. stone", f"recovery phrase = {SEED}"),
    ],
)
def test_a_labelled_seed_phrase_is_masked_however_many_words_follow(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "a seed phrase is something you should never share with anyone online",
        "never type your recovery phrase into a website, it's always a scam",
        "мнемоника помогает запоминать иностранные слова",
        "the mnemonic for the planets is my very eager mother just served us nachos and then the dog barked loud",
        "seed phrase legal winner thank year wave sausage worth useful legal winner",  # 10 words, no label
        "seed phrase: never share it with anyone",  # a label, then talk: the clause goes on past the words
        "Seed phrase: what is it?",
        "seed phrase: lost.",  # one word
        "recovery phrase: please help me find it",
        "my seed phrase - I wrote it down on paper",
    ],
)
def test_words_near_seed_phrase_names_that_are_not_seeds_are_kept(text):
    assert mask_secrets(text) == text


NEW_FRAGMENTS = st.lists(
    st.sampled_from(
        [
            "пароль от почты ", "password ", "passwords for both are ", " is my password", "это мой пароль", "pw is ",
            "qwerty", "hunter2", "Kotik2019!", "1234", "4510 123456", "112-233-445 95", "123-45-6789", "cvv ", "пин ",
            "код из смс ", " — ", ": ", "? it's ", "seed phrase: ", "мнемоника ", "zoo ", "abandon ", "1. ", "серия ",
            "паспорт ", "снилс ", "ssn ", "social ", "на обороте ", "G-482913 is your ", "[", "]", " hidden",
            PASSWORD, CODE, CVV, PASSPORT, SNILS, SSN, SEED, "\n", ",", "the ", "my ",
        ]
    )
    | st.text(max_size=4),
    max_size=40,
).map("".join)


@settings(deadline=None, max_examples=500)
@given(NEW_FRAGMENTS)
def test_masking_the_new_families_is_idempotent(text):
    once = mask_secrets(text)
    assert mask_secrets(once) == once


def test_contains_secret():
    assert contains_secret("4111 1111 1111 1111")
    assert contains_secret(f"card: {CARD}")
    assert contains_secret("пароль от почты qwerty123")
    assert contains_secret(f"паспорт {PASSPORT}")
    assert not contains_secret("кошка Мурка")


KEYWORDS = (
    "sk-", "gh", "github_pat_", "akia", "asia", "xox", "eyj", "token", "key", "secret", "ключ", "токен", "секрет",
    "pass", "pwd", "парол", "code", "otp", "pin", "sms", "пин", "код", "смс",
    "pw", "порол", "seed", "recovery", "backup", "mnemonic", "сид", "мнемони", "фраз",
)
NO_DIGITS = st.text(alphabet=st.characters(exclude_categories=("Nd", "Cs")), max_size=10_000)
FRAGMENTS = st.lists(
    st.sampled_from(
        [
            "4111 1111 1111 1111", "4111111111111111", "5555-5555-", "1234", "12", "0", " ", "-", "+", ":", "\n", ".",
            "code", "PIN is", "код из смс", "пароль:", "password is", "pass=", "key", "token:", "ключ —", "is", "is:",
            "[", "]", " hidden", CARD, PASSWORD, CODE, API_KEY, IBAN, "DE89", "3704", "0044 0532 0130 00", "ABCD",
            "sk-", "abcdefghij0123456789", "eyJhbGciOi", "AKIA", "xoxb-", "123456789:", "Berlin",
        ]
    )
    | st.text(max_size=6),
    max_size=40,
).map("".join)


@settings(deadline=None)
@given(st.text(max_size=10_000))
def test_masking_arbitrary_text_never_raises_and_is_idempotent(text):
    once = mask_secrets(text)
    assert mask_secrets(once) == once


@settings(deadline=None, max_examples=500)
@given(FRAGMENTS)
def test_masking_mixed_secrets_is_idempotent(text):
    once = mask_secrets(text)
    assert mask_secrets(once) == once


@settings(deadline=None)
@given(NO_DIGITS)
def test_text_without_digits_or_key_words_is_unchanged(text):
    assume(not any(keyword in text.lower() for keyword in KEYWORDS))
    assert mask_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("пароль от инсты, он такой: Ins7agram#", f"пароль от инсты, он такой: {PASSWORD}"),
        ("пароль от вайфая поменяли, новый — Romashka55", f"пароль от вайфая поменяли, новый — {PASSWORD}"),
        ("my password, as usual: hunter22", f"my password, as usual: {PASSWORD}"),
    ],
)
def test_a_password_label_with_a_comma_before_its_separator_still_labels_it(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(
    "text",
    ["пароль, который ты мне дал: не подходит", "пароль от почты, кстати, я опять забыла",
     "the wifi password, the one on the sticker: is wrong", "пароли, как обычно: разные везде",
     "password, username, email: all required"],
)
def test_talk_after_a_password_label_with_a_comma_is_kept(text):
    assert mask_secrets(text) == text

