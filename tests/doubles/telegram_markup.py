"""Parsers for Telegram's HTML, MarkdownV2 and legacy Markdown message formatting."""

from __future__ import annotations

import re

HTML_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic",
    "u": "underline", "ins": "underline", "s": "strikethrough", "strike": "strikethrough",
    "del": "strikethrough", "code": "code", "pre": "pre", "a": "text_link",
    "tg-spoiler": "spoiler", "span": "spoiler", "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
ENTITY_RE = re.compile(r"&(?:#([0-9]{1,8})|#[xX]([0-9a-fA-F]{1,8})|([a-zA-Z][a-zA-Z0-9]*));")
NAME_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9-]*")
ATTR_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]*")
MD2_RESERVED = set("_*[]()~`>#+-=|{}.!")
MD2_NAMES = {
    "bold": "Bold", "italic": "Italic", "underline": "Underline", "strikethrough": "Strikethrough",
    "spoiler": "Spoiler", "text_link": "TextUrl", "custom_emoji": "CustomEmoji",
}


class ParseError(ValueError):
    """The text cannot be parsed; str(error) is Telegram's '<reason> at byte offset N'."""


def utf16_len(text: str) -> int:
    """Length of text in UTF-16 code units, as Telegram counts it."""
    return len(text.encode("utf-16-le")) // 2


def parse_text(text: str, parse_mode: str | None) -> tuple[str, list[dict]]:
    """Return (visible text, entities) for text in the given parse mode."""
    mode = (parse_mode or "").lower()
    if not mode:
        return text, []
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text)
    if mode == "markdown":
        return parse_markdown(text)
    raise KeyError(parse_mode)


class _Out:
    """Accumulates visible text and entities, tracking the UTF-16 position."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.entities: list[dict] = []

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.pos += utf16_len(text)

    def entity(self, kind: str, start: int, **extra: object) -> None:
        if self.pos > start:
            self.entities.append({"type": kind, "offset": start, "length": self.pos - start, **extra})

    def result(self) -> tuple[str, list[dict]]:
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.parts), self.entities


def _fail(src: str, index: int, reason: str) -> ParseError:
    return ParseError(f"{reason} at byte offset {len(src[:index].encode('utf-8'))}")


def _html_entity(src: str, i: int) -> tuple[str, int]:
    """Decode the HTML entity starting at src[i] == '&'; return (char, next index)."""
    m = ENTITY_RE.match(src, i)
    if m is None:
        raise _fail(src, i, "Character '&' must start an HTML entity such as &amp;")
    if m.group(3) is not None:
        if m.group(3) not in NAMED_ENTITIES:
            raise _fail(src, i, f'Unsupported HTML entity "&{m.group(3)};"')
        return NAMED_ENTITIES[m.group(3)], m.end()
    code = int(m.group(1), 10) if m.group(1) is not None else int(m.group(2), 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise _fail(src, i, "Invalid numeric HTML entity")
    return chr(code), m.end()


def _html_attributes(src: str, i: int, tag: str, start: int) -> tuple[dict, int]:
    """Parse attributes up to the closing '>' of a start tag; return (attrs, index after '>')."""
    attrs: dict[str, str] = {}
    while True:
        while i < len(src) and src[i].isspace():
            i += 1
        if i >= len(src):
            raise _fail(src, start, "Unclosed start tag")
        if src[i] == ">":
            return attrs, i + 1
        m = ATTR_RE.match(src, i)
        if m is None:
            raise _fail(src, i, f'Empty attribute name in the tag "{tag}"')
        name, i = m.group().lower(), m.end()
        value = ""
        if i < len(src) and src[i] == "=":
            i += 1
            if i < len(src) and src[i] in "'\"":
                end = src.find(src[i], i + 1)
                if end < 0:
                    raise _fail(src, i, "Unclosed end of attribute value")
                raw, i = src[i + 1:end], end + 1
            else:
                m = re.compile(r"[^\s>]+").match(src, i)
                if m is None:
                    raise _fail(src, i, "Empty attribute value")
                raw, i = m.group(), m.end()
            value = _decode_entities(raw, src, i)
        attrs[name] = value


def _decode_entities(raw: str, src: str, at: int) -> str:
    """Decode HTML entities inside an attribute value."""
    out, j = [], 0
    while j < len(raw):
        if raw[j] == "&":
            m = ENTITY_RE.match(raw, j)
            if m is None or (m.group(3) is not None and m.group(3) not in NAMED_ENTITIES):
                raise _fail(src, at, "Unsupported HTML entity in attribute value")
            char, j = _html_entity(raw, j)
            out.append(char)
        else:
            out.append(raw[j])
            j += 1
    return "".join(out)


def parse_html(src: str) -> tuple[str, list[dict]]:
    """Parse Telegram's HTML subset; raise ParseError like the Bot API does."""
    out = _Out()
    stack: list[tuple[str, dict, int, int]] = []  # (tag, attrs, start position, source index)
    i = 0
    while i < len(src):
        c = src[i]
        if c == "&":
            char, i = _html_entity(src, i)
            out.add(char)
        elif c == "<" and src.startswith("</", i):
            end = src.find(">", i)
            if end < 0:
                raise _fail(src, i, "Unclosed end tag")
            name = src[i + 2:end].strip().lower()
            if not stack:
                raise _fail(src, i, "Unexpected end tag")
            tag, attrs, start, _ = stack.pop()
            if name != tag:
                raise _fail(src, i, f'Unmatched end tag, expected "</{tag}>", found "</{name}>"')
            _close_html_tag(out, tag, attrs, start)
            i = end + 1
        elif c == "<":
            m = NAME_RE.match(src, i + 1)
            name = m.group().lower() if m else ""
            if name not in HTML_TAGS:
                raise _fail(src, i, f'Unsupported start tag "{name}"')
            attrs, next_i = _html_attributes(src, m.end(), name, i)
            if name == "span" and attrs.get("class") != "tg-spoiler":
                raise _fail(src, i, 'Tag "span" must have class "tg-spoiler"')
            if name == "tg-emoji" and not attrs.get("emoji-id"):
                raise _fail(src, i, 'Tag "tg-emoji" must have attribute "emoji-id"')
            stack.append((name, attrs, out.pos, i))
            i = next_i
        else:
            out.add(c)
            i += 1
    if stack:
        tag, _, _, index = stack[-1]
        raise _fail(src, index, f'Can\'t find end tag corresponding to start tag "{tag}"')
    return out.result()


def _close_html_tag(out: _Out, tag: str, attrs: dict, start: int) -> None:
    """Turn a closed HTML tag into an entity."""
    kind = HTML_TAGS[tag]
    if kind == "text_link":
        if attrs.get("href"):
            out.entity(kind, start, url=attrs["href"])
    elif kind == "custom_emoji":
        out.entity(kind, start, custom_emoji_id=attrs["emoji-id"])
    elif kind == "blockquote" and "expandable" in attrs:
        out.entity("expandable_blockquote", start)
    elif kind == "code":
        language = attrs.get("class", "")
        extra = {"language": language[9:]} if language.startswith("language-") else {}
        out.entity(kind, start, **extra)
    elif kind == "pre":
        length = out.pos - start
        inner = [e for e in out.entities
                 if e["type"] == "code" and e["offset"] == start and e["length"] == length]
        extra = {}
        for entity in inner:
            out.entities.remove(entity)
            if entity.get("language"):
                extra["language"] = entity["language"]
        out.entity(kind, start, **extra)
    else:
        out.entity(kind, start)


def parse_markdown_v2(src: str) -> tuple[str, list[dict]]:
    """Parse MarkdownV2; reserved characters must be escaped, entities must be closed."""
    out = _Out()
    stack: list[list] = []  # [kind, start position, source index]
    quote_start: int | None = None
    i = 0
    while i < len(src):
        c = src[i]
        top = stack[-1][0] if stack else None
        if c == "\\" and i + 1 < len(src) and 0 < ord(src[i + 1]) <= 126:
            out.add(src[i + 1])
            i += 2
        elif c == ">" and (i == 0 or src[i - 1] == "\n"):
            if quote_start is None:
                quote_start = out.pos
            i += 1
        elif c == "\n" and quote_start is not None and not src.startswith(">", i + 1):
            out.entity("blockquote", quote_start)
            quote_start = None
            out.add(c)
            i += 1
        elif c == "`":
            i = _md2_code(src, i, out)
        elif c == "_" and top == "underline" and src.startswith("__", i):
            _md2_close(out, stack)
            i += 2
        elif c == "_" and top != "italic" and src.startswith("__", i):
            stack.append(["underline", out.pos, i])
            i += 2
        elif c in "_*~" or src.startswith("||", i):
            kind = {"_": "italic", "*": "bold", "~": "strikethrough", "|": "spoiler"}[c]
            if top == kind:
                _md2_close(out, stack)
            else:
                stack.append([kind, out.pos, i])
            i += 2 if c == "|" else 1
        elif c == "[" or src.startswith("![", i):
            stack.append(["text_link" if c == "[" else "custom_emoji", out.pos, i])
            i += 1 if c == "[" else 2
        elif c == "]" and top in ("text_link", "custom_emoji"):
            i = _md2_link_end(src, i, out, stack)
        elif c in MD2_RESERVED:
            raise _fail(src, i, f"Character '{c}' is reserved and must be escaped with the preceding '\\'")
        else:
            out.add(c)
            i += 1
    if stack:
        kind, _, index = stack[-1]
        raise _fail(src, index, f"Can't find end of {MD2_NAMES[kind]} entity")
    if quote_start is not None:
        out.entity("blockquote", quote_start)
    return out.result()


def _md2_close(out: _Out, stack: list[list]) -> None:
    kind, start, _ = stack.pop()
    out.entity(kind, start)


def _md2_link_end(src: str, i: int, out: _Out, stack: list[list]) -> int:
    """Finish [text](url) or ![emoji](tg://emoji?id=N) at src[i] == ']'; return next index."""
    kind, start, index = stack.pop()
    if not src.startswith("(", i + 1):
        if kind == "custom_emoji":
            raise _fail(src, index, "Custom emoji entity must contain a tg://emoji URL")
        return i + 1
    url, j = [], i + 2
    while j < len(src) and src[j] != ")":
        if src[j] == "\\" and j + 1 < len(src):
            j += 1
        url.append(src[j])
        j += 1
    if j >= len(src):
        raise _fail(src, i + 1, "Can't find end of a URL")
    link = "".join(url)
    if kind == "custom_emoji":
        m = re.fullmatch(r"tg://emoji\?id=(\d+)", link)
        if m is None:
            raise _fail(src, index, "Custom emoji URL must be tg://emoji?id=<id>")
        out.entity(kind, start, custom_emoji_id=m.group(1))
    else:
        out.entity(kind, start, url=link)
    return j + 1


def _md2_code(src: str, i: int, out: _Out) -> int:
    """Parse `code` or ```pre``` starting at src[i]; return the index after it."""
    fence = "```" if src.startswith("```", i) else "`"
    j, chars = i + len(fence), []
    while j < len(src) and not src.startswith(fence, j):
        if src[j] == "\\" and j + 1 < len(src) and 0 < ord(src[j + 1]) <= 126:
            j += 1
        elif src[j] in "`\\":
            raise _fail(src, j, f"Character '{src[j]}' is reserved and must be escaped with the preceding '\\'")
        chars.append(src[j])
        j += 1
    if j >= len(src):
        raise _fail(src, i, f"Can't find end of {'Pre' if fence == '```' else 'Code'} entity")
    body, extra = "".join(chars), {}
    if fence == "```":
        first, newline, rest = body.partition("\n")
        if newline and first and not any(ch.isspace() for ch in first):
            body, extra = rest, {"language": first}
    start = out.pos
    out.add(body)
    out.entity("pre" if fence == "```" else "code", start, **extra)
    return j + len(fence)


def parse_markdown(src: str) -> tuple[str, list[dict]]:
    """Parse legacy Markdown: *bold*, _italic_, `code`, ```pre``` and [text](url)."""
    out = _Out()
    i = 0
    while i < len(src):
        c, start = src[i], out.pos
        if c == "\\" and i + 1 < len(src) and src[i + 1] in "_*`[":
            out.add(src[i + 1])
            i += 2
        elif src.startswith("```", i):
            end = src.find("```", i + 3)
            if end < 0:
                raise _fail(src, i, "Can't find end of the entity starting")
            out.add(src[i + 3:end])
            out.entity("pre", start)
            i = end + 3
        elif c in "_*`":
            end = src.find(c, i + 1)
            if end < 0:
                raise _fail(src, i, "Can't find end of the entity starting")
            out.add(src[i + 1:end])
            out.entity({"_": "italic", "*": "bold", "`": "code"}[c], start)
            i = end + 1
        elif c == "[":
            end = src.find("](", i + 1)
            close = src.find(")", end + 2) if end >= 0 else -1
            if close < 0:
                raise _fail(src, i, "Can't find end of the entity starting")
            out.add(src[i + 1:end])
            out.entity("text_link", start, url=src[end + 2:close])
            i = close + 1
        else:
            out.add(c)
            i += 1
    return out.result()
