"""The text chunks of a PNG file (tEXt, zTXt, iTXt), read without an image library: where character cards keep
their JSON (prompts/character_card.py)."""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
TEXT_MAX_BYTES = 2 * 1024 * 1024  # one chunk's text, after decompression: a card is tens of KB; a zip bomb is refused


class PngError(ValueError):
    """The bytes are not a PNG file, or one of its chunks is broken."""


def text_chunks(data: bytes) -> dict[str, str]:
    """Return the keyword → text of every text chunk of the PNG `data` (the first chunk of a keyword wins).

    Checks the signature, each chunk's length against what is left and its CRC, and stops at IEND; raises
    PngError on anything else. A compressed text (zTXt, or iTXt with its flag set) may not inflate past
    TEXT_MAX_BYTES.
    """
    if not data.startswith(SIGNATURE):
        raise PngError("not a PNG file (its signature is missing)")
    found: dict[str, str] = {}
    at = len(SIGNATURE)
    while True:
        if at + 8 > len(data):
            raise PngError("the PNG file is cut short (no IEND chunk)")
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        end = at + 8 + length + 4
        if end > len(data):
            raise PngError(f"the PNG file is cut short (a {kind!r} chunk claims {length} bytes)")
        body = data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[end - 4:end])
        if zlib.crc32(kind + body) != crc:
            raise PngError(f"a {kind!r} chunk of the PNG file is broken (its CRC does not match)")
        if kind == b"IEND":
            return found
        if kind in (b"tEXt", b"zTXt", b"iTXt"):
            keyword, text = _text(kind, body)
            found.setdefault(keyword, text)
        at = end


def _text(kind: bytes, body: bytes) -> tuple[str, str]:
    """Return a text chunk's keyword and text (tEXt and zTXt are Latin-1, iTXt UTF-8)."""
    keyword, separator, rest = body.partition(b"\0")
    if not separator or not 1 <= len(keyword) <= 79:
        raise PngError(f"a {kind.decode()} chunk of the PNG file has no keyword")
    name = keyword.decode("latin-1")
    if kind == b"tEXt":
        return name, _limited(rest).decode("latin-1")
    if kind == b"zTXt":
        if not rest or rest[0] != 0:
            raise PngError("a zTXt chunk of the PNG file names an unknown compression")
        return name, inflate(rest[1:]).decode("latin-1")
    if len(rest) < 2:
        raise PngError("an iTXt chunk of the PNG file is cut short")
    compressed, method, rest = rest[0], rest[1], rest[2:]
    _language, separator, rest = rest.partition(b"\0")
    _translated, separator2, text = rest.partition(b"\0")
    if not (separator and separator2) or compressed not in (0, 1) or (compressed and method != 0):
        raise PngError("an iTXt chunk of the PNG file is malformed")
    raw = inflate(text) if compressed else _limited(text)
    try:
        return name, raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PngError("an iTXt chunk of the PNG file is not UTF-8") from None


def _limited(raw: bytes) -> bytes:
    if len(raw) > TEXT_MAX_BYTES:
        raise PngError(f"a text chunk of the PNG file is over {TEXT_MAX_BYTES // 1024 // 1024} MB")
    return raw


def inflate(raw: bytes) -> bytes:
    """Return zlib-compressed `raw` inflated, refusing more than TEXT_MAX_BYTES or a broken stream."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(raw, TEXT_MAX_BYTES + 1)
    except zlib.error:
        raise PngError("a compressed text chunk of the PNG file is broken") from None
    if len(out) > TEXT_MAX_BYTES or inflater.unconsumed_tail:
        raise PngError(f"a text chunk of the PNG file inflates past {TEXT_MAX_BYTES // 1024 // 1024} MB")
    if not inflater.eof:
        raise PngError("a compressed text chunk of the PNG file is cut short")
    return out


def chunk(kind: bytes, body: bytes) -> bytes:
    """Return one PNG chunk: its length, type, body and CRC (to write a PNG: the tests' cards)."""
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_with_text(texts: list[tuple[bytes, bytes]]) -> bytes:
    """Return a 1×1 PNG with the given (chunk type, body) text chunks before its image data."""
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    pixels = chunk(b"IDAT", zlib.compress(b"\0\xff\xff\xff"))
    return SIGNATURE + header + b"".join(chunk(kind, body) for kind, body in texts) + pixels + chunk(b"IEND", b"")
