"""tests/ogg_opus.py, the pure Ogg/Opus reader: a real voice note passes, and each way of breaking one is named."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.ogg_opus import (
    CONTINUED,
    FIRST,
    LAST,
    PAGE_HEADER,
    InvalidOggOpus,
    Page,
    ogg_crc,
    opus_packet_samples,
    read_ogg_opus,
    read_pages,
)

VOICE = (Path(__file__).parent / "fixtures" / "voice.ogg").read_bytes()


def page_bytes(page: Page, *, sequence: int | None = None, flags: int | None = None,
               granule: int | None = None) -> bytes:
    """Return `page` written back as bytes with its CRC computed afresh, any of three fields changed."""
    header = PAGE_HEADER.pack(b"OggS", 0, page.flags if flags is None else flags,
                              page.granule if granule is None else granule, page.serial,
                              page.sequence if sequence is None else sequence, 0, len(page.lacing))
    raw = bytearray(header + page.lacing + page.body)
    raw[22:26] = struct.pack("<I", ogg_crc(bytes(raw)))
    return bytes(raw)


def one_packet_page(packet: bytes, *, flags: int, granule: int, sequence: int, serial: int = 7) -> bytes:
    """Return one page holding `packet` whole (under 255 × 255 bytes), its CRC right."""
    lacing = bytes([255] * (len(packet) // 255) + [len(packet) % 255])
    return page_bytes(Page(0, flags, granule, serial, sequence, lacing, packet))


def test_the_committed_voice_note_is_read_whole():
    stream = read_ogg_opus(VOICE)
    assert (stream.channels, stream.pre_skip, stream.input_sample_rate) == (1, 312, 22050)
    assert stream.vendor.startswith("libopus") and any(c.startswith("ENCODER=opusenc") for c in stream.comments)
    assert stream.duration_s == pytest.approx(3.5, abs=0.1)  # the fixture's README: 3.5 s
    assert stream.pages == len(read_pages(VOICE)) and stream.audio_packets > 100


def test_the_crc_is_ogg_s_and_matches_every_stored_page():
    assert ogg_crc(b"") == 0 and ogg_crc(b"\x00") == 0
    # The check value of the catalogued CRC-32/POSIX (same polynomial, initial 0), 0x765E7680, without its final xor.
    assert ogg_crc(b"123456789") == 0x765E7680 ^ 0xFFFFFFFF
    for page in read_pages(VOICE):
        stored = struct.unpack_from("<I", VOICE, page.offset + 22)[0]
        assert ogg_crc(page_bytes(page)[:22] + b"\0\0\0\0" + page_bytes(page)[26:]) == stored


def test_empty_bytes_are_refused():
    with pytest.raises(InvalidOggOpus, match="empty"):
        read_ogg_opus(b"")


@pytest.mark.parametrize("keep", [10, 27, 60, len(VOICE) // 2, len(VOICE) - 1])
def test_truncated_bytes_are_refused(keep):
    with pytest.raises(InvalidOggOpus, match="truncated"):
        read_ogg_opus(VOICE[:keep])


def test_a_whole_page_cut_off_the_end_is_refused_as_truncated():
    last = read_pages(VOICE)[-1]
    with pytest.raises(InvalidOggOpus, match="truncated: the last page does not end the stream"):
        read_ogg_opus(VOICE[:last.offset])


def test_a_flipped_byte_fails_its_page_s_crc():
    third = read_pages(VOICE)[2]
    broken = bytearray(VOICE)
    broken[third.offset + 40] ^= 0x01
    with pytest.raises(InvalidOggOpus, match="page 2 at byte .*CRC mismatch"):
        read_ogg_opus(bytes(broken))


def test_bytes_that_are_not_ogg_at_all_are_refused():
    with pytest.raises(InvalidOggOpus, match="no Ogg page at byte 0"):
        read_ogg_opus(b"ID3\x04" + VOICE)
    with pytest.raises(InvalidOggOpus, match="no Ogg page at byte"):
        read_ogg_opus(VOICE + b"garbage at the end of the file")


def test_a_missing_opus_tags_header_is_refused():
    pages = read_pages(VOICE)
    assert pages[1].body.startswith(b"OpusTags")
    # The comment page taken out and the pages after it renumbered, every CRC right: only OpusTags is missing.
    rest = [page_bytes(page, sequence=page.sequence - 1) for page in pages[2:]]
    with pytest.raises(InvalidOggOpus, match="not the OpusTags comment header"):
        read_ogg_opus(page_bytes(pages[0]) + b"".join(rest))


def test_ogg_vorbis_bytes_are_refused_as_not_opus():
    vorbis_id = b"\x01vorbis" + struct.pack("<IBIiiiBB", 0, 1, 22050, 0, 64000, 0, 0xB8, 1)
    comments = b"\x03vorbis" + struct.pack("<I", 4) + b"test" + struct.pack("<I", 0) + b"\x01"
    data = (one_packet_page(vorbis_id, flags=FIRST, granule=0, sequence=0)
            + one_packet_page(comments, flags=LAST, granule=0, sequence=1))
    with pytest.raises(InvalidOggOpus, match="not Opus: the first packet is a Vorbis identification header"):
        read_ogg_opus(data)


def test_a_missing_page_is_noticed_by_its_sequence_number():
    pages = read_pages(VOICE)
    with pytest.raises(InvalidOggOpus, match="page 3: sequence number"):
        read_ogg_opus(b"".join(page_bytes(page) for index, page in enumerate(pages) if index != 3))


def test_a_granule_position_that_disagrees_with_the_packets_is_refused():
    pages = read_pages(VOICE)
    moved = [page_bytes(page, granule=page.granule + 960) if index == 2 else page_bytes(page)
             for index, page in enumerate(pages)]
    with pytest.raises(InvalidOggOpus, match="page 3: granule position"):
        read_ogg_opus(b"".join(moved))


def test_a_last_granule_beyond_the_audio_is_refused_and_one_short_of_it_is_the_end_trimmed():
    pages = read_pages(VOICE)
    *head, last = pages
    longer = b"".join(page_bytes(page) for page in head) + page_bytes(last, granule=last.granule + 48000)
    with pytest.raises(InvalidOggOpus, match="granule position"):
        read_ogg_opus(longer)
    trimmed = b"".join(page_bytes(page) for page in head) + page_bytes(last, granule=last.granule - 4800)
    assert read_ogg_opus(trimmed).duration_s == pytest.approx(read_ogg_opus(VOICE).duration_s - 0.1)


def test_stream_flags_out_of_place_are_refused():
    pages = read_pages(VOICE)
    no_first = page_bytes(pages[0], flags=0) + b"".join(page_bytes(page) for page in pages[1:])
    with pytest.raises(InvalidOggOpus, match="beginning-of-stream flag is missing"):
        read_ogg_opus(no_first)
    early_end = b"".join(page_bytes(page, flags=page.flags | LAST) if index == 2 else page_bytes(page)
                         for index, page in enumerate(pages))
    with pytest.raises(InvalidOggOpus, match="page 2 ends the stream"):
        read_ogg_opus(early_end)
    stray_continued = b"".join(page_bytes(page, flags=page.flags | CONTINUED) if index == 3 else page_bytes(page)
                               for index, page in enumerate(pages))
    with pytest.raises(InvalidOggOpus, match="continued-packet flag"):
        read_ogg_opus(stray_continued)


def test_a_second_logical_stream_is_refused():
    pages = read_pages(VOICE)
    other = Page(0, pages[-1].flags, pages[-1].granule, pages[-1].serial + 1, pages[-1].sequence,
                 pages[-1].lacing, pages[-1].body)
    with pytest.raises(InvalidOggOpus, match="more than one logical stream"):
        read_ogg_opus(b"".join(page_bytes(page) for page in pages[:-1]) + page_bytes(other))


def test_a_head_with_no_channels_is_refused():
    pages = read_pages(VOICE)
    head = bytearray(pages[0].body)
    head[9] = 0
    first = Page(0, pages[0].flags, 0, pages[0].serial, 0, pages[0].lacing, bytes(head))
    with pytest.raises(InvalidOggOpus, match="zero output channels"):
        read_ogg_opus(page_bytes(first) + b"".join(page_bytes(page) for page in pages[1:]))


@pytest.mark.parametrize(("toc", "samples"), [
    (bytes([0 << 3 | 0]), 480),           # SILK 10 ms, one frame
    (bytes([3 << 3 | 1]), 2 * 2880),      # SILK 60 ms, two frames
    (bytes([13 << 3 | 0]), 960),          # hybrid 20 ms
    (bytes([16 << 3 | 2]), 2 * 120),      # CELT 2.5 ms, two frames
    (bytes([31 << 3 | 3, 6]), 6 * 960),   # CELT 20 ms, code 3 with six frames: 120 ms, the most allowed
])
def test_a_packet_s_duration_comes_from_its_toc_byte(toc, samples):
    assert opus_packet_samples(toc) == samples


@pytest.mark.parametrize(("packet", "words"), [
    (b"", "empty Opus packet"),
    (bytes([31 << 3 | 3]), "without its frame count"),
    (bytes([31 << 3 | 3, 0]), "zero frames"),
    (bytes([31 << 3 | 3, 7]), "over the 120 ms"),
])
def test_impossible_packets_are_refused(packet, words):
    with pytest.raises(InvalidOggOpus, match=words):
        opus_packet_samples(packet)
