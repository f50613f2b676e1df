import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transport.formatting import split_message, to_telegram_html, utf16_len


def squeeze(text):
    return re.sub(r"\s+", "", text)


def test_short_text_is_one_piece():
    assert split_message("hello") == ["hello"]


def test_empty_or_blank_text_gives_nothing():
    assert split_message("") == []
    assert split_message(" \n\n ") == []


def test_exactly_the_limit_is_one_piece():
    assert split_message("a" * 4096) == ["a" * 4096]


def test_splits_on_paragraphs_first():
    text = ("para one. " * 300).strip() + "\n\n" + ("para two. " * 300).strip()
    pieces = split_message(text)
    assert len(pieces) == 2
    assert pieces[0].endswith("para one.") and pieces[1].startswith("para two.")


def test_splits_on_lines_then_words():
    lines = "\n".join(f"line {i} " + "word " * 20 for i in range(100))
    for piece in split_message(lines):
        assert utf16_len(piece) <= 4096
        assert piece.startswith("line ")  # every piece starts at a line boundary
    words = " ".join(f"w{i}" for i in range(3000))
    pieces = split_message(words)
    assert all(re.fullmatch(r"(w\d+ )*w\d+", piece) for piece in pieces)  # no word cut in half


def test_nine_thousand_characters_lose_nothing():
    text = "\n\n".join(f"Paragraph {i}: " + "lorem ipsum " * 40 for i in range(19))
    assert len(text) > 9000
    pieces = split_message(text)
    assert len(pieces) == 3
    assert all(utf16_len(piece) <= 4096 for piece in pieces)
    assert squeeze("".join(pieces)) == squeeze(text)


def test_a_text_without_spaces_is_cut_hard():
    pieces = split_message("x" * 10000)
    assert [len(piece) for piece in pieces] == [4096, 4096, 1808]


def test_emoji_count_as_two_units_and_are_never_halved():
    text = "😀" * 3000  # 6000 UTF-16 units
    pieces = split_message(text)
    assert [utf16_len(piece) for piece in pieces] == [4096, 1904]
    assert "".join(pieces) == text


def test_combining_marks_stay_with_their_letter():
    text = "e\u0301" * 3000
    pieces = split_message(text)
    assert all(not piece[0] == "\u0301" for piece in pieces)
    assert "".join(pieces) == text


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=12000), st.integers(min_value=8, max_value=5000))
def test_split_keeps_every_non_space_character_in_order(text, limit):
    pieces = split_message(text, limit)
    assert all(utf16_len(piece) <= limit for piece in pieces)
    assert all(piece.strip() for piece in pieces)
    assert squeeze("".join(pieces)) == squeeze(text)


@pytest.mark.parametrize(
    ("markdown", "html"),
    [
        ("plain", "plain"),
        ("a < b & c > d", "a &lt; b &amp; c &gt; d"),
        ("**bold**", "<b>bold</b>"),
        ("*italic* and _italic_", "<i>italic</i> and <i>italic</i>"),
        ("snake_case_name stays", "snake_case_name stays"),
        ("2 * 3 * 4 = 24", "2 * 3 * 4 = 24"),
        ("~~gone~~", "<s>gone</s>"),
        ("`x < 1`", "<code>x &lt; 1</code>"),
        ("```python\nprint('<hi>')\n```", "<pre><code class=\"language-python\">print('&lt;hi&gt;')</code></pre>"),
        ("```\n**not bold**\n```", "<pre>**not bold**</pre>"),
        ("[site](https://example.com/a?b=1&c=2)", '<a href="https://example.com/a?b=1&amp;c=2">site</a>'),
        ("## Title", "<b>Title</b>"),
        ("**bold _and italic_**", "<b>bold <i>and italic</i></b>"),
        ("**unclosed", "**unclosed"),
        ("_ lonely underscores _", "_ lonely underscores _"),
        ("&amp; already", "&amp;amp; already"),
    ],
)
def test_markdown_to_telegram_html(markdown, html):
    assert to_telegram_html(markdown) == html


TAG = re.compile(r"</?(b|i|s|code|pre|a)(\s[^>]*)?>")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("ab *_~`[]()<>&#\n") + ["**", "```", "https://x.y"]), max_size=80).map("".join))
def test_html_is_always_balanced_and_escaped(text):
    result = to_telegram_html(text)
    stack = []
    for match in re.finditer(r"<(/?)(\w+)[^>]*>", result):
        closing, tag = match.group(1), match.group(2)
        assert tag in {"b", "i", "s", "code", "pre", "a"}
        if closing:
            assert stack and stack.pop() == tag
        else:
            stack.append(tag)
    assert not stack
    assert "<" not in TAG.sub("", result) and ">" not in TAG.sub("", result)
