"""Secrets in free phrasing (issue 59, part 2): names in any case, PINs and codes said in words, a person's INN and
OGRNIP checked by their check digits, answers to security questions, lists of passwords; and look-alikes, a name
followed by something that is no secret, left as written. bench/secrets_dev59.json is the development set."""

import json
from pathlib import Path

import pytest

from memory.secrets.labels import alternation, is_talk, russian_forms
from memory.secrets.masking import ANSWER, CODE, INN, OGRNIP, PASSWORD, mask_secrets
from memory.text.word_forms import parts_of_speech, phrase_case_forms

DEV_SET = Path(__file__).resolve().parent.parent / "bench" / "secrets_dev59.json"


@pytest.mark.parametrize(("text", "masked"), [
    ("мой пин один два три четыре, не забудь", f"мой пин {CODE}, не забудь"),
    ("код: семь восемь девять ноль", f"код: {CODE}"),
    ("кодом от сейфа будет ноль семь ноль три", f"кодом от сейфа будет {CODE}"),
    ("пин-кодом было девять девять ноль один", f"пин-кодом было {CODE}"),
    ("pin is four five six seven", f"pin is {CODE}"),
    ("ok so my debit card's pin is six oh six nine", f"ok so my debit card's pin is {CODE}"),
    ("alarm code is one-nine-eight-four, by the door", f"alarm code is {CODE}, by the door"),
])
def test_pins_and_codes_said_in_words_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize("text", [
    "пин-код один на все карты? плохая идея",
    "дверь с кодом три раза не открылась",
    "код один и тот же для всех дверей",
    "pin is four digits, right?",
    "pin one more message to the top",
    "I counted one two three four five sheep",  # digit words with no name before them
])
def test_one_or_two_digit_words_or_no_name_stay(text):
    assert mask_secrets(text) == text


@pytest.mark.parametrize(("text", "masked"), [
    ("с пин-кодом 7395 у меня ещё старая карта", f"с пин-кодом {CODE} у меня ещё старая карта"),
    ("по коду 3310 откроешь калитку", f"по коду {CODE} откроешь калитку"),
    ("Паролем от ноутбука будет слово солнышко", f"Паролем от ноутбука будет слово {PASSWORD}"),
    ("в пароле от сервера Tr0ub4dor&3 есть амперсанд", f"в пароле от сервера {PASSWORD} есть амперсанд"),
    ("the combination to the bike lock is 3719, by the gym", f"the combination to the bike lock is {CODE}, by the gym"),
    ("PIN: 4 5 6 7", f"PIN: {CODE}"),
    ("my pin's 4481", f"my pin's {CODE}"),
    ("door code's 2580, then the lift", f"door code's {CODE}, then the lift"),
    ("my password's still hunter2 btw", f"my password's still {PASSWORD} btw"),
    ("паролем к госуслугам у меня стоит Griboedov1829", f"паролем к госуслугам у меня стоит {PASSWORD}"),
    ("забыла, какой пароль: вроде Kroshka_2017, попробуй", f"забыла, какой пароль: вроде {PASSWORD}, попробуй"),
    ("my PIN for the ATM card? it's two zero eight six", f"my PIN for the ATM card? it's {CODE}"),
])
def test_a_name_in_any_case_or_phrasing_is_found(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(("text", "masked"), [
    ("Пароли: почта — Mishka77, банк — Zayka!99", f"Пароли: почта — {PASSWORD}, банк — {PASSWORD}"),
    ("passwords: gmail = Tiger_77; bank = K0t!k", f"passwords: gmail = {PASSWORD}; bank = {PASSWORD}"),
    ("пароли такие: рабочая почта - Qwerty!2024; личная - Sunrise_88",
     f"пароли такие: рабочая почта - {PASSWORD}; личная - {PASSWORD}"),
    ("Пароль: почта — Mail2020", f"Пароль: почта — {PASSWORD}"),
])
def test_a_list_of_passwords_masks_each_and_keeps_what_they_open(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize(("text", "masked"), [
    ("мой ИНН 715926017408, нужен для налоговой", f"мой ИНН {INN}, нужен для налоговой"),
    ("инн моего ИП 783586492010", f"инн моего ИП {INN}"),
    ("my tax id (INN) is 769785452877", f"my tax id (INN) is {INN}"),
    ("огрнип 309343841324332", f"огрнип {OGRNIP}"),
    ("Russian OGRNIP: 391857561810088", f"Russian OGRNIP: {OGRNIP}"),
])
def test_a_persons_inn_and_ogrnip_after_their_names_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize("text", [
    "ИНН 715926017409",  # a check digit off
    "ИНН организации 7707083893, ОГРН 1027700132195",  # an organisation's: public, on every receipt
    "Russian INN 7678429520 goes on the invoice",
    "ИНН 10 цифр у юрлица и 12 у физлица",
    "мой ИНН можно узнать на сайте налоговой",
    "позвони мне на 715926017408",  # checksum-valid, but no name
    "Holiday Inn 715926017408",  # "Inn" is no INN
])
def test_numbers_that_are_no_persons_inn_stay(text):
    assert mask_secrets(text) == text


@pytest.mark.parametrize(("text", "masked"), [
    ("mother's maiden name is Smith", f"mother's maiden name is {ANSWER}"),
    ("first pet's name was Rex", f"first pet's name was {ANSWER}"),
    ("security question answer: Springfield", f"security question answer: {ANSWER}"),
    ("the answer to my security question is Omsk", f"the answer to my security question is {ANSWER}"),
    ("девичья фамилия матери — Иванова", f"девичья фамилия матери — {ANSWER}"),
    ("девичья фамилия мамы Соколова, если банк спросит", f"девичья фамилия мамы {ANSWER}, если банк спросит"),
    ("кличка первого питомца Барсик", f"кличка первого питомца {ANSWER}"),
    ("спрашивают кличку первого питомца — у меня это был Тузик",
     f"спрашивают кличку первого питомца — у меня это был {ANSWER}"),
    ("Секретный вопрос: любимое блюдо? Ответ: пельмени", f"Секретный вопрос: любимое блюдо? Ответ: {ANSWER}"),
    ("Ответ на секретный вопрос — Шарик", f"Ответ на секретный вопрос — {ANSWER}"),
    ("security answer: it's Rover", f"security answer: it's {ANSWER}"),
    ("Mother's maiden name? Kowalski.", f"Mother's maiden name? {ANSWER}."),
    ("my mother's maiden name, for the bank: Smith", f"my mother's maiden name, for the bank: {ANSWER}"),
    ("кличка первого питомца (для госуслуг): Рыжик", f"кличка первого питомца (для госуслуг): {ANSWER}"),
    ("secret answer: pineapple", f"secret answer: {ANSWER}"),
    ("контрольный вопрос «кличка первой собаки», ответ — Джек",
     f"контрольный вопрос «кличка первой собаки», ответ — {ANSWER}"),
])
def test_answers_to_security_questions_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize("text", [
    "what's your mother's maiden name? no idea why banks still ask that",
    "my mother's maiden name is none of your business",
    "first pet's name was something with R, I forget",
    "Зачем банки до сих пор спрашивают девичью фамилию матери?",
    "девичья фамилия мамы у меня в паспорте записана",
    "ответ на секретный вопрос я не помню",
    "кличка первого питомца — не лучший секретный вопрос",
    "Mother's maiden name? Banks love to ask that",
    "security question answer: I'd have to check",
    "имя первого питомца я уже не помню",
    "mother's maiden name in the form is optional",
])
def test_talk_about_security_questions_stays(text):
    assert mask_secrets(text) == text


@pytest.mark.parametrize("text", [
    "wifi password: ask the host, it's on the fridge",
    "Пароль: спроси у админа",
    "пароль у мамы, спроси у мамы",
    "the password is on the fridge",
    "пароль от wifi я забыл",
    "Код от сейфа у папы",
    "код от домофона спроси у консьержа",
    "The Da Vinci Code: 2006",
    "Код да Винчи: 2006, смотрели с тобой в кино",
    "Code Red: 2013, the game jam entry",
])
def test_a_name_followed_by_no_secret_stays(text):
    assert mask_secrets(text) == text


def test_a_year_after_a_plain_code_name_is_still_a_code():
    assert mask_secrets("код: 2006") == f"код: {CODE}"
    assert mask_secrets("the code's 2024 update") == "the code's 2024 update"  # but not after "'s"
    assert mask_secrets("My Code: 2006") == f"My Code: {CODE}"  # opens the sentence: no title


def test_masking_a_masked_text_changes_nothing():
    for entry in json.loads(DEV_SET.read_text(encoding="utf-8")):
        once = mask_secrets(entry["text"])
        assert mask_secrets(once) == once


# Look-alikes of the development set that the masker changes, and why. They still count against it.
KNOWN_CHANGED = {
    "код один два три — шутка, так никто не ставит": "a code said in words, taken back only after it",
    "first pet's name was Rex — no, wait, that was my cousin's dog": "an answer, taken back only after it",
}


def test_the_development_set_keeps_its_figures():
    """bench/secrets_dev59.json: 51 secrets and 68 look-alikes written before the rules (first run on the code
    before: recall 0.353, 5 of 68 changed), and 20 + 20 written after them ("after": first run 14 of 20 caught, 3
    of 20 changed)."""
    entries = json.loads(DEV_SET.read_text(encoding="utf-8"))
    secrets = [entry for entry in entries if entry["secret"] is not None]
    alikes = [entry for entry in entries if entry["secret"] is None]
    assert len(secrets) >= 40 and len(alikes) >= 40
    for language in ("ru", "en"):
        assert sum(entry["lang"] == language for entry in secrets) >= 15
    missed = [entry["text"] for entry in secrets
              if any(piece in mask_secrets(entry["text"])
                     for piece in ([entry["secret"]] if isinstance(entry["secret"], str) else entry["secret"]))]
    changed = {entry["text"] for entry in alikes if mask_secrets(entry["text"]) != entry["text"]}
    assert len(missed) / len(secrets) <= 0.05, missed
    assert changed == set(KNOWN_CHANGED)


def test_names_are_declined_by_the_word_toolkit():
    assert {"пароля", "паролем", "паролях"} <= russian_forms(("пароль", "пароли"))
    assert {"пин-кодом", "пин-коде"} <= phrase_case_forms("пин-код")
    assert {"девичьей фамилии", "девичью фамилию"} <= phrase_case_forms("девичья фамилия")
    assert "первого питомца" in phrase_case_forms("первый питомец")
    assert phrase_case_forms("Code") == {"code"}


def test_an_alternation_puts_the_longest_form_first():
    assert alternation(["пин", "пин-кодом"]).startswith("(?:пин\\-кодом|")


def test_talk_words_are_told_by_their_parts_of_speech():
    assert parts_of_speech("спроси") == {"VERB"}
    assert all(is_talk(word) for word in ("спроси", "у", "я", "не", "скажу"))
    assert not any(is_talk(word) for word in ("Барсик", "пельмени", "солнышко", "Mishka77", "ask", "2006"))


@pytest.mark.parametrize(("text", "masked"), [
    # an aside between commas, or the password named again by "он": the known gaps of the last round
    ("мой пароль, если что, Zebra!2024", f"мой пароль, если что, {PASSWORD}"),
    ("пароль от почты — он такой: Kote1ok_77", f"пароль от почты — он такой: {PASSWORD}"),
    ("пароль — он простой: Tiger77", f"пароль — он простой: {PASSWORD}"),
    ("пароль менял вчера, теперь он Vesna2025!!", f"пароль менял вчера, теперь он {PASSWORD}"),
    ("пасс от стима lolkek228", f"пасс от стима {PASSWORD}"),
    # a six-digit code in two groups; a code in words after ", its"
    ("одноразовый код 845 221", f"одноразовый код {CODE}"),
    ("bank sent me a code, its three one four one five nine", f"bank sent me a code, its {CODE}"),
    # a security question named by what it asks
    ("answer to the city you were born in question is Tambov",
     f"answer to the city you were born in question is {ANSWER}"),
    ("ответ на вопрос про первую учительницу — Мария Ивановна",
     f"ответ на вопрос про первую учительницу — {ANSWER}"),
    ("my card pin, just in case, is 8264", f"my card pin, just in case, is {CODE}"),
    ("the password? Sunshine2023!", f"the password? {PASSWORD}"),
])
def test_free_phrasings_of_the_second_blind_set_are_masked(text, masked):
    assert mask_secrets(text) == masked


@pytest.mark.parametrize("text", [
    "пароль, если что, у Пети спроси",
    "мой пароль, кстати, 8 символов",
    "пароль менял вчера, теперь он длиннее",
    "пароль от почты — он такой же, как от вк",
    "пароль — он у Лены: спроси",
    "пароль, если что, 2024 года",
    "пасс на 10 метров отдал",
    "код 845 221 руб",
    "код 123 456 789 это номер заказа",
    "the answer to your question is Paris",
    "answer to the question about my school is long",
    "ответ на вопрос про школу — сложный",
    "the password? Forgot it",
    "пароль — дата рождения мамы",  # what it is made of, not the password
    "password is name of my dog",
    "pin, ok, 4 digits",
])
def test_look_alikes_of_the_second_blind_set_stay(text):
    assert mask_secrets(text) == text


def test_the_second_blind_set_keeps_its_figures():
    """bench/secrets_dev59b.json: 40 secrets and 40 look-alikes written before reading the patterns (first run
    33 of 40 caught, 0 of 40 changed)."""
    entries = json.loads((DEV_SET.parent / "secrets_dev59b.json").read_text(encoding="utf-8"))
    secrets = [entry for entry in entries if entry["secret"] is not None]
    alikes = [entry for entry in entries if entry["secret"] is None]
    missed = [entry["text"] for entry in secrets
              if any(piece in mask_secrets(entry["text"])
                     for piece in ([entry["secret"]] if isinstance(entry["secret"], str) else entry["secret"]))]
    assert len(missed) / len(secrets) <= 0.05, missed
    assert [entry["text"] for entry in alikes if mask_secrets(entry["text"]) != entry["text"]] == []
