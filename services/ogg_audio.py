"""How long an Ogg/Opus recording plays, read from its pages, pure: what a spoken reply's seconds are counted as."""

from __future__ import annotations

import struct

OPUS_RATE = 48_000  # Opus's granule positions count samples at 48 kHz, whatever rate the audio was made at
PAGE_HEADER = 27  # "OggS", version, flags, granule (8), serial (4), sequence (4), checksum (4), segment count
NO_GRANULE = 2**64 - 1  # -1: no packet ends on this page


def looks_like_opus(data: bytes) -> bool:
    """True when `data` starts as Ogg/Opus does: an Ogg page whose first packet is the OpusHead header."""
    body = PAGE_HEADER + _segments(data, 0)
    return data[:4] == b"OggS" and data[body : body + 8] == b"OpusHead"


def opus_seconds(data: bytes) -> float | None:
    """Return how many seconds the Ogg/Opus recording `data` plays: the last page's granule position, less the
    header's pre-skip, over 48,000; None for anything else (garbage, another codec, a stream cut before a page)."""
    head = PAGE_HEADER + _segments(data, 0)  # the OpusHead packet: magic (8), version, channels, pre-skip (2)…
    if not looks_like_opus(data) or len(data) < head + 12:
        return None
    pre_skip = struct.unpack_from("<H", data, head + 10)[0]
    end = len(data)
    while (start := data.rfind(b"OggS", 0, end)) > 0:
        end = start
        if not _whole_page(data, start):
            continue
        granule = struct.unpack_from("<Q", data, start + 6)[0]
        if granule == NO_GRANULE:
            continue
        return max(0.0, (granule - pre_skip) / OPUS_RATE)
    return None


def _segments(data: bytes, start: int) -> int:
    """The size of the segment table of the page at `start` (0 where the header is cut)."""
    return data[start + 26] if len(data) > start + 26 else 0


def _whole_page(data: bytes, start: int) -> bool:
    """True when a whole Ogg page (version 0) begins at `start`: its header and every segment are in `data`."""
    count = _segments(data, start)
    table = data[start + PAGE_HEADER : start + PAGE_HEADER + count]
    if data[start + 4 : start + 5] != b"\x00" or len(table) < count:
        return False
    return start + PAGE_HEADER + count + sum(table) <= len(data)
