"""A pickle reader that runs nothing: it builds only dicts, lists, tuples, sets, strings, bytes, numbers, booleans
and None, and refuses the whole file at the first class or function the pickle names.

Unpickling is a program: GLOBAL / STACK_GLOBAL load any importable callable and REDUCE calls it, so a careless
`pickle.load` lets a file run `os.system`. Every such opcode goes through `Unpickler.find_class`; ours refuses them
all, so nothing of the file is ever called. A `datetime` is a class too and is refused with the rest: the reference
bot keeps `last_message_time` as a float (seconds since the epoch), which is what this reads (docs/importing.md).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import BinaryIO

# A pickle larger than this is refused before a byte of it is read: the reference bot's file for 10,000 users is
# about 20 MiB (bench/import_pickle.py), so this leaves room for a far larger bot and stops a 2 GB file at once.
MAX_FILE_BYTES = 512 * 1024 * 1024


class UnsafeFile(Exception):
    """The file cannot be imported: it is too big, cut short, names a class or function, or is not a pickle."""


class PlainUnpickler(pickle.Unpickler):
    """Unpickles plain data only: `find_class`, the one door to code, is shut (persistent ids too)."""

    def find_class(self, module: str, name: str) -> type:
        """Refuse every class and function: the file would call it."""
        raise UnsafeFile(f"the pickle names {module}.{name}; only plain data (dicts, lists, strings, numbers) is"
                         " read, and nothing in the file was run")

    def persistent_load(self, pid: object) -> object:
        """Refuse persistent ids: they stand for objects the file's writer looked up elsewhere."""
        raise UnsafeFile("the pickle refers to outside objects (persistent ids); nothing in the file was run")


def load_plain(stream: BinaryIO) -> object:
    """Return the plain data the pickle in `stream` holds; raise UnsafeFile for anything else or a broken file."""
    try:
        return PlainUnpickler(stream).load()
    except UnsafeFile:
        raise
    except EOFError:
        raise UnsafeFile("the pickle is cut short (it ends before its last object)") from None
    except (pickle.UnpicklingError, ValueError, TypeError, IndexError, KeyError, AttributeError, MemoryError,
            RecursionError, OverflowError, UnicodeDecodeError) as error:
        if "truncated" in str(error):
            raise UnsafeFile("the pickle is cut short (it ends before its last object)") from None
        raise UnsafeFile(f"not a readable pickle ({type(error).__name__}: {error})") from None


def check_size(path: Path, limit: int = MAX_FILE_BYTES) -> int:
    """Return the size of the file at `path`; raise UnsafeFile when it is larger than `limit` (read nothing)."""
    size = path.stat().st_size
    if size > limit:
        raise UnsafeFile(f"{path.name} is {size / 2**20:.0f} MiB, above the {limit / 2**20:.0f} MiB an import reads")
    return size


def read_pickle(path: Path, limit: int = MAX_FILE_BYTES) -> object:
    """Return the plain data of the pickle file at `path`, its size checked first (see load_plain)."""
    check_size(path, limit)
    with path.open("rb") as stream:
        return load_plain(stream)
