"""Pure text shaping for Telegram: split long answers, turn model Markdown into Telegram HTML."""

from __future__ import annotations

import html
import re
import unicodedata

TELEGRAM_LIMIT = 4096  # characters after entity parsing, counted in UTF-16 code units


def utf16_len(text: str) -> int:
    """Return the length of `text` as Telegram counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def split_message(text: str, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Return `text` cut into pieces of at most `limit` UTF-16 units, on paragraph, line or word boundaries.

    Only whitespace at the cuts is dropped; every other character is kept, in order.
    """
    chunks = []
    rest = text.strip()
    while rest:
        if utf16_len(rest) <= limit:
            chunks.append(rest)
            break
        end = _fit(rest, limit)
        cut = _boundary(rest, end)
        chunks.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return [chunk for chunk in chunks if chunk]


def _fit(text: str, limit: int) -> int:
    """Return how many code points of `text` fit in `limit` UTF-16 units."""
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return index
    return len(text)


def _boundary(text: str, end: int) -> int:
    """Return the best place to cut `text[:end]`: a paragraph, a line, a space, else a safe character."""
    window = text[:end]
    for separator in ("\n\n", "\n", " "):
        position = window.rfind(separator)
        # A cut in the first third wastes too much of the message; look for a finer boundary.
        if position > end // 3:
            return position + len(separator)
    cut = end
    # Never separate a character from its combining marks, joiners or variation selectors.
    while cut > 1 and (unicodedata.combining(text[cut]) or text[cut] in "\u200d\ufe0e\ufe0f"):
        cut -= 1
    if text[cut - 1] == "\u200d":
        cut -= 1
    return cut


CODE_BLOCK = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\n?(.*?)```", re.DOTALL)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
INLINE_RULES = [
    (re.compile(r"^#{1,6}[ \t]+([^<>\n]+?)[ \t]*#*$", re.MULTILINE), r"<b>\1</b>"),
    (re.compile(r"\*\*(?=\S)([^<>\n]+?)(?<=\S)\*\*"), r"<b>\1</b>"),
    (re.compile(r"~~(?=\S)([^<>\n]+?)(?<=\S)~~"), r"<s>\1</s>"),
    (re.compile(r"(?<![\w*])\*(?=\S)([^<>\n*]+?)(?<=\S)\*(?![\w*])"), r"<i>\1</i>"),
    (re.compile(r"(?<!\w)_(?=\S)([^<>\n_]+?)(?<=\S)_(?!\w)"), r"<i>\1</i>"),
    (re.compile(r"\[([^\[\]<>\n]+)\]\((https?://[^\s()<>\"]+)\)"), r'<a href="\2">\1</a>'),
]


def to_telegram_html(text: str) -> str:
    """Return `text` with common Markdown (bold, italic, code, links, headings) as Telegram HTML.

    Everything else is escaped, so the result is always valid Telegram HTML.
    """
    protected: list[str] = []

    def protect(fragment: str) -> str:
        protected.append(fragment)
        return f"\x00{len(protected) - 1}\x00"

    text = text.replace("\x00", "")
    text = CODE_BLOCK.sub(lambda m: protect(_code_block(m.group(1), m.group(2))), text)
    text = INLINE_CODE.sub(lambda m: protect(f"<code>{html.escape(m.group(1), quote=False)}</code>"), text)
    text = html.escape(text, quote=False)
    for pattern, replacement in INLINE_RULES:
        text = pattern.sub(replacement, text)
    return PLACEHOLDER.sub(lambda m: protected[int(m.group(1))], text)


def _code_block(language: str, body: str) -> str:
    body = html.escape(body.rstrip("\n"), quote=False)
    if language:
        return f'<pre><code class="language-{language}">{body}</code></pre>'
    return f"<pre>{body}</pre>"
