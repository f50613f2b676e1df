import pytest

from memory.rules import extract_name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Привет! Меня зовут Анна.", "Анна"),
        ("меня зовут саша", "Саша"),
        ("Моё имя — Анна-мария", "Анна-Мария"),
        ("мое имя Пётр", "Пётр"),
        ("Зови меня Костя", "Костя"),
        ("называй меня Лёля, пожалуйста", "Лёля"),
        ("Hi, my name is Bob", "Bob"),
        ("my name's alice", "Alice"),
        ("Call me Ishmael.", "Ishmael"),
        ("hey. call me jo", "Jo"),
        ("Сегодня был трудный день. Кстати, меня зовут Олег", "Олег"),
    ],
)
def test_a_stated_name_is_found(text, name):
    assert extract_name(text) == name


@pytest.mark.parametrize(
    "text",
    [
        "",
        "как меня зовут?",
        "Меня зовут Анна?",
        "what's my name?",
        "Моего друга зовут Миша",
        "My dog's name is Rex",
        "his name is Tom",
        "My name is not Bob",
        "меня зовут не Миша",
        "не называй меня Машей",
        "don't call me Bob",
        "call me later",
        "call me back when you can",
        "call me maybe",
        "call me tomorrow at 5",
        "If my name was Bob I'd be happy",
        "если бы меня звали Оля",
        'He said "my name is Bob"',
        "она сказала «меня зовут Лена»",
        "меня зовут 42",
    ],
)
def test_no_name_where_none_is_clearly_stated(text):
    assert extract_name(text) is None
