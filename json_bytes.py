"""JSON to and from bytes for what the servers send and take: orjson where it reads or writes the value, the
standard library where it does not, so that every answer is the one `json` would give but one.

orjson reads a streamed chunk in about a third of the time `json.loads` takes, and writes a chat request's body
(thousands of characters of history) some forty times faster (issue 42: a streamed reply is a hundred chunks). It
refuses what `json` takes (NaN and Infinity, numbers too large for a float, lone surrogates): those, and
anything else it refuses, go to `json`, which reads them or raises its own ValueError as before. The one
difference: orjson reads an integer past 64 bits as a float, where `json` keeps it whole. Nothing the bot reads
holds one (Telegram's ids fit in 52 bits; a model server's are token counts and times), and looking for one in
every text would cost more than orjson saves.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import orjson


def loads(data: bytes | str, otherwise: Callable[[Any], Any] = json.loads) -> Any:
    """Return `json.loads(data)`, or what `otherwise(data)` gives (or raises) where orjson cannot read it."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return otherwise(data)


def dumps(value: Any) -> bytes:
    """Return `value` as compact JSON in UTF-8: the bytes `json.dumps(value, ensure_ascii=False, separators=(",",
    ":")).encode()` gives, but for floats in exponent form (orjson writes 1e16 and 1e-7 where `json` writes 1e+16
    and 1e-07, the same numbers) and for NaN and infinities, which no request here holds (the settings refuse
    them): orjson writes null where `json` would refuse them."""
    try:
        return orjson.dumps(value)
    except TypeError:  # a value orjson does not write (a key that is not a string, an int past 64 bits)
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
