"""The city → zone index as a small SQLite file, so that looking a city up costs a few page reads, not memory.

Held in a dict, the index kept tens of MiB of the bot resident (bench/memory.py: 186 MiB after 500 turns, 130
without it), and building it from GeoNames peaked near 70 MiB more. Written once to a file instead, it costs
the bot one read-only connection whose page cache is capped at CACHE_KIB: a lookup asks for all the candidate
names of what a user wrote in one indexed SELECT.

A file is written whole under a temporary name and then renamed, so a reader sees no file or a complete one.
Its name and its meta table carry a key, a hash of everything its rows depend on (the caller says what); a
file that is not SQLite, is cut short, or holds another key or FORMAT is Stale, and `open_index` builds it
again. What goes into the file, and where it lives, is memory/time/zones.py's business.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

FORMAT = 1  # the layout of the tables below: a change makes every older file stale
CACHE_KIB = 512  # the connection's page cache; the whole file is about 4 MiB
MAX_PARAMETERS = 500  # names per SELECT (older SQLite builds allow 999 parameters at most)
FILE_NAME = re.compile(r"zones-[0-9a-f]{16}\.db")

SCHEMA = """
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE zones (id INTEGER PRIMARY KEY, zone TEXT NOT NULL);
CREATE TABLE cities (name TEXT PRIMARY KEY, weight INTEGER NOT NULL, zone INTEGER NOT NULL) WITHOUT ROWID;
"""
LOOKUP = "SELECT c.name, c.weight, z.zone FROM cities c JOIN zones z ON z.id = c.zone WHERE c.name IN ({})"


class Stale(Exception):
    """The file cannot serve: it is not SQLite, is cut short, or was written for another key or format."""


def file_name(key: str) -> str:
    """Return the name of the index file for `key` (16 hex digits)."""
    return f"zones-{key}.db"


class CityFile(Mapping[str, tuple[int, str]]):
    """{normalised city name: (weighted population, zone)}, read from an index file as it is asked.

    `lookup` is what the bot uses; the Mapping methods are for tests and tools (iterating reads the whole file).
    One connection serves every thread, one query at a time.
    """

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        uri = path.resolve().as_uri() + "?mode=ro&immutable=1"  # never written in place: renamed over, if at all
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as problem:
            raise Stale(f"{path.name}: {problem}") from problem
        try:
            self._check(key)
        except (Stale, sqlite3.Error, OSError) as problem:
            self._db.close()
            raise Stale(f"{path.name}: {problem}") from problem

    def _check(self, key: str) -> None:
        page_size = self._db.execute("PRAGMA page_size").fetchone()[0]
        page_count = self._db.execute("PRAGMA page_count").fetchone()[0]
        if page_size * page_count != self.path.stat().st_size:
            raise Stale("cut short or padded")
        meta = dict(self._db.execute("SELECT name, value FROM meta"))
        if meta.get("format") != str(FORMAT) or meta.get("key") != key:
            raise Stale(f"written for format {meta.get('format')}, key {meta.get('key')}")
        self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")

    def lookup(self, names: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Return {name: (weighted population, zone)} for those of `names` the index has."""
        found: dict[str, tuple[int, str]] = {}
        with self._lock:
            for start in range(0, len(names), MAX_PARAMETERS):
                chunk = names[start:start + MAX_PARAMETERS]
                rows = self._db.execute(LOOKUP.format(",".join("?" * len(chunk))), chunk)
                found.update((name, (weight, zone)) for name, weight, zone in rows)
        return found

    def __getitem__(self, name: str) -> tuple[int, str]:
        return self.lookup([name])[name]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.lookup([name])

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM cities").fetchone()[0]

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, _ in self.items()])

    def items(self) -> list[tuple[str, tuple[int, str]]]:  # type: ignore[override]  # one query, not one a name
        with self._lock:
            rows = self._db.execute("SELECT c.name, c.weight, z.zone FROM cities c JOIN zones z ON z.id = c.zone")
            return [(name, (weight, zone)) for name, weight, zone in rows]

    def values(self) -> list[tuple[int, str]]:  # type: ignore[override]
        return [value for _, value in self.items()]

    def close(self) -> None:
        self._db.close()


def write(path: Path, cities: Mapping[str, tuple[int, str]], key: str) -> None:
    """Write `cities` as the index file `path` for `key`: under a temporary name, then renamed into place."""
    temporary = path.with_name(f".{path.stem}-{os.getpid()}-{threading.get_ident()}.db")
    temporary.unlink(missing_ok=True)
    zone_ids = {zone: number for number, zone in enumerate(sorted({zone for _, zone in cities.values()}))}
    db = sqlite3.connect(temporary)
    try:
        db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + SCHEMA)
        db.executemany("INSERT INTO meta VALUES (?, ?)", [("format", str(FORMAT)), ("key", key)])
        db.executemany("INSERT INTO zones VALUES (?, ?)", [(number, zone) for zone, number in zone_ids.items()])
        rows = ((name, weight, zone_ids[zone]) for name, (weight, zone) in sorted(cities.items()))
        db.executemany("INSERT INTO cities VALUES (?, ?, ?)", rows)  # in key order: the b-tree fills page by page
        db.commit()
    finally:
        db.close()
    os.replace(temporary, path)


def open_index(folders: Iterable[Path], key: str, build: Callable[[Path], None]) -> CityFile:
    """Return the index file for `key` from the first of `folders` that has a good one, else build one.

    `build(folder)` must write `folder / file_name(key)`; it runs in the first folder this process may write,
    which then loses its index files for other keys. A file it writes that still will not open raises Stale.
    """
    folders = list(folders)
    name = file_name(key)
    for folder in folders:
        if (folder / name).is_file():
            try:
                return CityFile(folder / name, key)
            except Stale as problem:
                log.warning("the zone index in %s cannot be read: %s", folder, problem)
    folder = first_writable(folders)
    log.info("building the zone index in %s", folder)
    build(folder)
    index = CityFile(folder / name, key)
    for old in folder.iterdir():
        if FILE_NAME.fullmatch(old.name) and old.name != name:
            old.unlink(missing_ok=True)
    return index


def first_writable(folders: Iterable[Path]) -> Path:
    """Return the first of `folders` that exists or can be made, and that this process may write to."""
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK | os.X_OK):
            return folder
    raise OSError("no folder to write the zone index to")
