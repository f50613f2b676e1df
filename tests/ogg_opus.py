"""Checks that bytes are one playable Ogg/Opus stream, as Telegram's voice notes are, and reads its length.

Written from the specifications, with no audio library: RFC 3533 (Ogg pages, their CRC-32 and the packets
their segment tables cut), RFC 7845 (the OpusHead and OpusTags headers, granule positions at 48 kHz, pre-skip)
and RFC 6716 §3.1 (the TOC byte that gives each Opus packet's duration). `read_ogg_opus` is pure: bytes in,
an `OggOpus` out, or `InvalidOggOpus` saying what is wrong.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

OPUS_RATE = 48000
CAPTURE = b"OggS"
PAGE_HEADER = struct.Struct("<4sBBqIIIB")  # capture, version, flags, granule, serial, sequence, CRC, segments
CONTINUED, FIRST, LAST = 0x01, 0x02, 0x04
MAX_PACKET_SAMPLES = 5760  # 120 ms at 48 kHz, RFC 6716 §3.2.5


class InvalidOggOpus(ValueError):
    """The bytes are not one valid Ogg/Opus stream; the message says where and why."""


@dataclass(frozen=True)
class OggOpus:
    """What a valid stream holds: its headers' fields, and its length once pre-skip is taken off."""

    channels: int
    pre_skip: int
    input_sample_rate: int
    vendor: str
    comments: tuple[str, ...]
    pages: int
    audio_packets: int
    final_granule: int

    @property
    def duration_s(self) -> float:
        """The playable length in seconds: (the last granule position − pre-skip) / 48 000."""
        return (self.final_granule - self.pre_skip) / OPUS_RATE


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
        table.append(crc & 0xFFFFFFFF)
    return tuple(table)


CRC_TABLE = _crc_table()


def ogg_crc(page: bytes) -> int:
    """Return Ogg's CRC-32 of `page` (polynomial 0x04C11DB7, not reflected, initial 0, no final xor)."""
    crc = 0
    for byte in page:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ CRC_TABLE[(crc >> 24) ^ byte]
    return crc


@dataclass(frozen=True)
class Page:
    """One Ogg page as read: its header fields and its body cut into segments."""

    offset: int
    flags: int
    granule: int
    serial: int
    sequence: int
    lacing: bytes
    body: bytes


def read_pages(data: bytes) -> list[Page]:
    """Return the Ogg pages `data` is made of, each one's CRC checked; raise InvalidOggOpus otherwise."""
    pages: list[Page] = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < PAGE_HEADER.size:
            raise InvalidOggOpus(f"truncated: {len(data) - offset} bytes at {offset} are too few for a page header")
        capture, version, flags, granule, serial, sequence, crc, count = PAGE_HEADER.unpack_from(data, offset)
        if capture != CAPTURE:
            raise InvalidOggOpus(f"no Ogg page at byte {offset} (found {capture!r}, not b'OggS')")
        if version != 0:
            raise InvalidOggOpus(f"page at byte {offset}: stream structure version {version}, not 0")
        if flags & ~(CONTINUED | FIRST | LAST):
            raise InvalidOggOpus(f"page at byte {offset}: unknown header flags {flags:#04x}")
        lacing_at = offset + PAGE_HEADER.size
        lacing = data[lacing_at:lacing_at + count]
        end = lacing_at + count + sum(lacing)
        if len(lacing) < count or end > len(data):
            raise InvalidOggOpus(f"truncated: the page at byte {offset} needs {end - offset} bytes, "
                                 f"{len(data) - offset} are left")
        raw = bytearray(data[offset:end])
        raw[22:26] = b"\0\0\0\0"
        if ogg_crc(bytes(raw)) != crc:
            raise InvalidOggOpus(f"page {len(pages)} at byte {offset}: CRC mismatch (stored {crc:#010x}, "
                                 f"computed {ogg_crc(bytes(raw)):#010x})")
        pages.append(Page(offset, flags, granule, serial, sequence, bytes(lacing), data[lacing_at + count:end]))
        offset = end
    return pages


def opus_packet_samples(packet: bytes) -> int:
    """Return how many 48 kHz samples an Opus packet decodes to, from its TOC byte (RFC 6716 §3.1)."""
    if not packet:
        raise InvalidOggOpus("an empty Opus packet (it needs at least its TOC byte)")
    config, code = packet[0] >> 3, packet[0] & 0x03
    if config < 12:  # SILK-only: 10, 20, 40, 60 ms
        frame = (480, 960, 1920, 2880)[config % 4]
    elif config < 16:  # hybrid: 10, 20 ms
        frame = (480, 960)[config % 2]
    else:  # CELT-only: 2.5, 5, 10, 20 ms
        frame = (120, 240, 480, 960)[config % 4]
    if code == 0:
        frames = 1
    elif code in (1, 2):
        frames = 2
    else:
        if len(packet) < 2:
            raise InvalidOggOpus("an Opus code-3 packet without its frame count byte")
        frames = packet[1] & 0x3F
        if frames == 0:
            raise InvalidOggOpus("an Opus code-3 packet of zero frames")
    samples = frame * frames
    if samples > MAX_PACKET_SAMPLES:
        raise InvalidOggOpus(f"an Opus packet of {samples / 48:g} ms, over the 120 ms a packet may hold")
    return samples


def _packets(pages: list[Page]) -> list[tuple[bytes, int]]:
    """Return the stream's packets, each with the index of the page it completes on."""
    packets: list[tuple[bytes, int]] = []
    partial = b""
    for index, page in enumerate(pages):
        if bool(page.flags & CONTINUED) != bool(partial):
            raise InvalidOggOpus(f"page {index}: its continued-packet flag does not match the page before it")
        at = 0
        for size in page.lacing:
            partial += page.body[at:at + size]
            at += size
            if size < 255:
                packets.append((partial, index))
                partial = b""
    if partial:
        raise InvalidOggOpus("truncated: the last page ends inside a packet")
    return packets


def _read_head(packet: bytes) -> tuple[int, int, int]:
    if not packet.startswith(b"OpusHead"):
        what = "a Vorbis identification header" if packet.startswith(b"\x01vorbis") else repr(packet[:8])
        raise InvalidOggOpus(f"not Opus: the first packet is {what}, not an OpusHead")
    if len(packet) < 19:
        raise InvalidOggOpus(f"an OpusHead of {len(packet)} bytes, fewer than 19")
    version, channels, pre_skip, rate, _gain, family = struct.unpack_from("<BBHIhB", packet, 8)
    if version >> 4 != 0:
        raise InvalidOggOpus(f"OpusHead version {version}: a major version this reader does not know")
    if channels == 0:
        raise InvalidOggOpus("OpusHead: zero output channels")
    if family == 0 and channels > 2:
        raise InvalidOggOpus(f"OpusHead: mapping family 0 with {channels} channels (at most 2)")
    if family != 0:
        if len(packet) < 21 + channels:
            raise InvalidOggOpus("OpusHead: the channel mapping table is cut short")
        streams, coupled = packet[19], packet[20]
        if streams == 0 or coupled > streams:
            raise InvalidOggOpus(f"OpusHead: {streams} streams with {coupled} coupled")
    return channels, pre_skip, rate


def _read_tags(packet: bytes) -> tuple[str, tuple[str, ...]]:
    if not packet.startswith(b"OpusTags"):
        raise InvalidOggOpus(f"the second packet is {packet[:8]!r}, not the OpusTags comment header")
    try:
        at = 8
        (length,) = struct.unpack_from("<I", packet, at)
        vendor, at = packet[at + 4:at + 4 + length], at + 4 + length
        if len(vendor) < length:
            raise struct.error("the vendor string is cut short")
        (count,) = struct.unpack_from("<I", packet, at)
        at += 4
        comments = []
        for _ in range(count):
            (length,) = struct.unpack_from("<I", packet, at)
            comment = packet[at + 4:at + 4 + length]
            if len(comment) < length:
                raise struct.error("a comment is cut short")
            comments.append(comment.decode("utf-8"))
            at += 4 + length
        return vendor.decode("utf-8"), tuple(comments)
    except (struct.error, UnicodeDecodeError) as error:
        raise InvalidOggOpus(f"OpusTags is malformed ({error})") from None


def read_ogg_opus(data: bytes) -> OggOpus:
    """Return what the Ogg/Opus stream in `data` holds; raise InvalidOggOpus for anything a player would trip on."""
    if not data:
        raise InvalidOggOpus("empty: no bytes at all")
    pages = read_pages(data)
    if any(page.serial != pages[0].serial for page in pages):
        raise InvalidOggOpus("more than one logical stream (a voice note is one)")
    for index, page in enumerate(pages):
        if page.sequence != pages[0].sequence + index:
            raise InvalidOggOpus(f"page {index}: sequence number {page.sequence}, a page is missing or repeated")
        if bool(page.flags & FIRST) != (index == 0):
            raise InvalidOggOpus(f"page {index}: the beginning-of-stream flag is {'set' if index else 'missing'}")
        if page.flags & LAST and index != len(pages) - 1:
            raise InvalidOggOpus(f"page {index} ends the stream, yet {len(pages) - index - 1} pages follow")
    if not pages[-1].flags & LAST:
        raise InvalidOggOpus("truncated: the last page does not end the stream")
    packets = _packets(pages)
    if not packets or packets[0][1] != 0:
        raise InvalidOggOpus("the first page does not hold a whole OpusHead")
    channels, pre_skip, rate = _read_head(packets[0][0])
    if len(packets) < 2 or packets[1][1] == 0:
        raise InvalidOggOpus("no OpusTags comment header on its own page after the OpusHead")
    if len(pages[0].lacing) != 1 or pages[0].granule != 0:
        raise InvalidOggOpus("the OpusHead must be alone on the first page, at granule position 0")
    vendor, comments = _read_tags(packets[1][0])
    tags_end = packets[1][1]
    if len(packets) > 2 and packets[2][1] == tags_end:
        raise InvalidOggOpus("audio shares the page that ends the OpusTags header")
    if any(page.granule != 0 for page in pages[1:tags_end + 1]):
        raise InvalidOggOpus("a header page with a granule position other than 0")
    audio = packets[2:]
    if not audio:
        raise InvalidOggOpus("no audio packets")
    # A page's granule position counts the samples of every packet completed on it and before it (RFC 7845 §4),
    # plus a fixed offset where the stream starts after time zero (larger, never smaller, on the first audio
    # page); the last page's may be less (the end trimmed), never more.
    completed: dict[int, int] = {}
    total = 0
    for packet, index in audio:
        total += opus_packet_samples(packet)
        completed[index] = total
    start: int | None = None
    for index in range(tags_end + 1, len(pages)):
        page = pages[index]
        if index not in completed:
            if page.granule != -1:
                raise InvalidOggOpus(f"page {index} completes no packet, yet its granule position is {page.granule}")
            continue
        final = index == len(pages) - 1
        if start is None:
            start = 0 if final else page.granule - completed[index]
            if start < 0:
                raise InvalidOggOpus(f"page {index}: granule position {page.granule}, below the "
                                     f"{completed[index]} samples of its packets")
        expected = completed[index] + start
        if page.granule > expected or (not final and page.granule != expected):
            raise InvalidOggOpus(f"page {index}: granule position {page.granule}, but its packets end at sample "
                                 f"{expected}")
    final_granule = pages[-1].granule
    if final_granule < pre_skip:
        raise InvalidOggOpus(f"the last granule position {final_granule} is below the pre-skip {pre_skip}")
    return OggOpus(channels, pre_skip, rate, vendor, comments, len(pages), len(audio), final_granule)
