"""A reply made ready to be read aloud (services/speech_text.py) and a recording's seconds (services/ogg_audio.py)."""

from __future__ import annotations

import struct
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.ogg_audio import looks_like_opus, opus_seconds
from services.speech_text import SPEECH_MAX_CHARS, speakable, speech_parts

VOICE = (Path(__file__).parent / "fixtures" / "voice.ogg").read_bytes()


# ----- speakable -----

@pytest.mark.parametrize(("reply", "spoken"), [
    ("Hello there!", "Hello there!"),
    ("This is **bold**, *italic*, __strong__, _slanted_ and ~~gone~~.",
     "This is bold, italic, strong, slanted and gone."),
    ("Call `fetch()` now", "Call fetch() now"),
    ("snake_case_name stays one word, 2 * 3 loses its star", "snake_case_name stays one word, 2 3 loses its star"),
    ("# Title\nText", "Title.\nText"),
    ("## Done!\nNext", "Done!\nNext"),
    ("Shopping:\n- milk\n* eggs\n+ bread\n1. one\n2) two", "Shopping:\nmilk.\neggs.\nbread.\none.\ntwo"),
    ("> quoted words\nmine", "quoted words.\nmine"),
    ("Read [the guide](https://example.com/guide \"Guide\") today", "Read the guide today"),
    ("![a cat](https://example.com/cat.png)", "a cat"),
    ("See https://example.com/a?b=c and www.example.org now", "See and now"),
    ("Mail <mailto:me@example.com> or <https://x.dev>", "Mail or"),
    ("Before\n```python\nprint('hi')\n```\nafter", "Before.\nafter"),
    ("Unclosed\n```\ncode forever", "Unclosed"),
    ("<b>bold</b> and <i>it</i>", "bold and it"),
    ("Good night 🌙✨ see you 👋🏽!", "Good night see you!"),
    ("Family 👨‍👩‍👧 and flag 🇷🇺 and keycap 1️⃣", "Family and flag and keycap 1"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "a, b.\n1, 2"),
    ("Text\n\n---\n\nMore", "Text.\nMore"),
    ("Привет! Как **дела**? 😊", "Привет! Как дела?"),
    ("Цена 5 € и 10%", "Цена 5 € и 10%"),
])
def test_speakable_reads_words_not_symbols(reply, spoken):
    assert speakable(reply) == spoken


@pytest.mark.parametrize("reply", ["", "   \n\n ", "😀😂👍🏽🇷🇺", "https://example.com/only", "**", "---",
                                   "```\ncode\n```", "\x00\x01", "* * *"])
def test_nothing_to_say_gives_empty_text(reply):
    assert speakable(reply) == ""


def test_speakable_keeps_a_long_sentence_whole():
    sentence = " ".join(["слово"] * 2000)
    assert speakable(sentence) == sentence


# ----- speech_parts -----

def test_a_short_text_is_one_part_and_empty_none():
    assert speech_parts("Hello. World.") == ["Hello. World."]
    assert speech_parts("") == [] and speech_parts("  \n ") == []


def test_parts_are_cut_at_sentence_ends_within_the_limit():
    text = "One two three. Four five six! Seven eight nine? Ten."
    assert speech_parts(text, 30) == ["One two three. Four five six!", "Seven eight nine? Ten."]


def test_parts_keep_every_word_in_order():
    sentences = [f"Sentence number {i} is here, with some words of its own." for i in range(400)]
    text = " ".join(sentences)
    parts = speech_parts(text)
    assert len(parts) > 1
    assert all(len(part) <= SPEECH_MAX_CHARS for part in parts)
    assert " ".join(parts).split() == text.split()
    assert all(part.endswith(".") for part in parts)  # each at a sentence end


def test_one_sentence_longer_than_the_limit_without_punctuation_is_cut_at_spaces():
    words = [f"w{i}" for i in range(2500)]  # ~10,000 characters, no punctuation
    text = " ".join(words)
    assert len(text) > 2 * SPEECH_MAX_CHARS
    parts = speech_parts(text)
    assert len(parts) == 4
    assert all(len(part) > SPEECH_MAX_CHARS - 10 for part in parts[:-1])  # each as full as whole words allow
    assert all(len(part) <= SPEECH_MAX_CHARS for part in parts)
    assert [word for part in parts for word in part.split()] == words  # no word cut


def test_russian_text_is_split_at_its_sentences():
    text = "Привет! Как дела? Я рад тебя слышать. Расскажи, как прошёл день…"
    assert speech_parts(text, 40) == ["Привет! Как дела? Я рад тебя слышать.", "Расскажи, как прошёл день…"]


def test_lines_end_sentences_too():
    assert speech_parts("first line\nsecond line", 15) == ["first line", "second line"]


def test_a_run_of_letters_longer_than_the_limit_is_cut_where_it_must_be():
    assert speech_parts("ok " + "x" * 25, 10) == ["ok", "x" * 10, "x" * 10, "x" * 5]


def test_the_limit_must_be_positive():
    with pytest.raises(ValueError):
        speech_parts("text", 0)


# ----- ogg_audio -----

def test_the_fixture_plays_for_its_seconds():
    assert looks_like_opus(VOICE)
    assert opus_seconds(VOICE) == pytest.approx(3.5, abs=0.1)


def test_a_cut_recording_counts_up_to_its_last_whole_page():
    seconds, whole = opus_seconds(VOICE[: len(VOICE) - 40]), opus_seconds(VOICE)
    assert seconds is not None and whole is not None and 0 < seconds < whole


def test_pre_skip_is_taken_off():
    head = VOICE.index(b"OpusHead")
    pre_skip = struct.unpack_from("<H", VOICE, head + 10)[0]
    granule = struct.unpack_from("<Q", VOICE, VOICE.rindex(b"OggS") + 6)[0]
    assert opus_seconds(VOICE) == (granule - pre_skip) / 48_000


@pytest.mark.parametrize("data", [b"", b"garbage bytes", b"OggS" + bytes(40), bytes(6000), VOICE[:40],
                                  b"ID3" + bytes(100), VOICE.replace(b"OpusHead", b"OpusHeat")])
def test_anything_but_ogg_opus_has_no_seconds(data):
    assert opus_seconds(data) is None


# ----- properties -----

WORDS = st.lists(st.text(alphabet=st.characters(exclude_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1,
                         max_size=12), min_size=0, max_size=300)
ENDS = st.sampled_from(["", "", ".", "!", "?", "…", ",", "\n", "\n\n"])


@given(words=st.lists(st.tuples(WORDS.map(" ".join), ENDS)), limit=st.integers(1, 200))
def test_parts_fit_the_limit_and_keep_every_word_in_order(words, limit):
    text = " ".join(phrase + end for phrase, end in words)
    parts = speech_parts(text, limit)
    assert all(0 < len(part) <= limit for part in parts)
    assert "".join("".join(parts).split()) == "".join(text.split())  # nothing lost, nothing added, in order


@given(text=st.text(max_size=400))
def test_speakable_never_fails_and_leaves_no_pictographs(text):
    spoken = speakable(text)
    assert not any(unicodedata.category(char) in ("So", "Cf", "Cs") for char in spoken)
    assert spoken == spoken.strip() and "\n\n" not in spoken and "  " not in spoken
    assert speakable(spoken) == spoken  # what is left holds nothing more to take out
