"""A reply made ready to be read aloud, pure: no Markdown, links or emoji spoken as symbols, and cut into the parts
a speech endpoint takes, at sentence ends."""

from __future__ import annotations

import re
import unicodedata

# OpenAI's `audio.speech` takes at most 4,096 characters of input; Kokoro-FastAPI and openedai-speech take more.
SPEECH_MAX_CHARS = 4096

FENCED_CODE = re.compile(r"^[ \t]*(```|~~~).*?(^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
AUTOLINK = re.compile(r"<(?:https?|ftp|mailto):[^>\s]*>", re.IGNORECASE)
BARE_URL = re.compile(r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>()\[\]]+", re.IGNORECASE)
HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")
HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE)
LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+•▪◦‣]|\d{1,3}[.)])[ \t]+", re.MULTILINE)
RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.MULTILINE)
TABLE_BORDER = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$", re.MULTILINE)
# Emphasis: the markers go, the words stay. Underscores only around whole words, so snake_case stays one word.
EMPHASIS = (
    re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.DOTALL),
    re.compile(r"~~(?=\S)(.+?)(?<=\S)~~", re.DOTALL),
    re.compile(r"\*(?=\S)([^*\n]+?)(?<=\S)\*"),
    re.compile(r"(?<!\w)_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)"),
    re.compile(r"`([^`\n]+)`"),
)
# Characters that are read aloud as their names, or as noise: what is left of Markdown, and table borders.
MARKUP_LEFT = str.maketrans({"*": " ", "#": " ", "`": " ", "|": ", ", "~": " ", "^": " ", "\\": " "})
# Unicode categories never spoken: other symbols (emoji, pictographs), modifier symbols (skin tones),
# format characters (zero-width joiners), enclosing marks (keycaps), private use and lone surrogates.
UNSPOKEN = frozenset({"So", "Sk", "Cf", "Me", "Co", "Cs", "Cc"})
VARIATION_SELECTORS = range(0xFE00, 0xFE10)
SPACE_BEFORE_MARK = re.compile(r" +([,.!?;:…])")  # where an emoji or a URL stood before it
SENTENCE_END = re.compile(r"(?<=[.!?…。！？;])[\"'»”)\]]*\s+|\n+")
ENDS_SENTENCE = re.compile(r"[.!?…:;,。！？]$")


def speakable(reply: str) -> str:
    """Return `reply` as it should be read aloud: Markdown's markers, links' addresses, URLs, code blocks, HTML tags
    and emoji gone (a link's words stay), each heading and list item a sentence of its own, spaces tidied."""
    text = reply.replace("\r\n", "\n").replace("\r", "\n")
    text = FENCED_CODE.sub("\n", text)
    text = IMAGE_OR_LINK.sub(r"\1", text)
    text = AUTOLINK.sub(" ", text)
    text = BARE_URL.sub(" ", text)
    text = HTML_TAG.sub(" ", text)
    text = RULE.sub("", text)
    text = TABLE_BORDER.sub("", text)
    text = HEADING.sub(lambda match: _as_sentence(match.group(1)), text)
    text = QUOTE.sub("", text)
    text = LIST_ITEM.sub("", text)
    for pattern in EMPHASIS:
        text = pattern.sub(lambda match: match.group(match.lastindex or 1), text)
    text = "".join(char for char in text if char == "\n" or _spoken(char)).translate(MARKUP_LEFT)
    lines = [SPACE_BEFORE_MARK.sub(r"\1", " ".join(line.split())).strip(" ,") for line in text.split("\n")]
    lines = [line for line in lines if any(char.isalnum() for char in line)]
    # A list item or a heading is a line of its own: ended, so that it is read as a sentence, not run on.
    return "\n".join(_as_sentence(line) if index < len(lines) - 1 else line for index, line in enumerate(lines))


def _spoken(char: str) -> bool:
    return unicodedata.category(char) not in UNSPOKEN and ord(char) not in VARIATION_SELECTORS


def _as_sentence(line: str) -> str:
    line = line.strip()
    return line if not line or ENDS_SENTENCE.search(line) else line + "."


def speech_parts(text: str, limit: int = SPEECH_MAX_CHARS) -> list[str]:
    """Return `text` in parts of at most `limit` characters, in order, cut at sentence ends (then at spaces within a
    sentence longer than `limit`; a run of letters longer than `limit`, which is no word, is cut where it must be).
    Empty text gives no parts."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    text = text.strip()
    if len(text) <= limit:
        return [text] if text else []
    return _packed(_pieces(text, limit), limit)


def _pieces(text: str, limit: int) -> list[str]:
    """Return the sentences of `text`, each at most `limit` characters (a longer one cut at spaces)."""
    pieces = []
    for sentence in (piece.strip() for piece in SENTENCE_END.split(text)):
        if len(sentence) <= limit:
            pieces += [sentence] if sentence else []
            continue
        # No word is longer than `limit`: a longer run of letters is none, and nothing better than a cut is left.
        words = [word[start:start + limit] for word in sentence.split() for start in range(0, len(word), limit)]
        pieces += _packed(words, limit)
    return pieces


def _packed(pieces: list[str], limit: int) -> list[str]:
    """Return `pieces` (each at most `limit` characters) joined with spaces into as few runs of at most `limit`
    characters as they fill, in order."""
    packed: list[str] = []
    current = ""
    for piece in pieces:
        joined = f"{current} {piece}" if current else piece
        if len(joined) <= limit:
            current = joined
        else:
            packed.append(current)
            current = piece
    if current:
        packed.append(current)
    return packed
