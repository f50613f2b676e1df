"""Which kind of file an import was given, told from its first bytes (`--format` names it instead)."""

from __future__ import annotations

from pathlib import Path

FORMATS = ("pickle", "export", "chatgpt")
PICKLE_PROTOCOL = 0x80  # protocols 2 to 5 open with PROTO (the reference bot's pickle.dump writes protocol 4 or 5)
HEAD_BYTES = 64


def detect_format(head: bytes) -> str | None:
    """Return the format a file's first bytes say: "pickle", "export" (a JSON object: this bot's /export) or
    "chatgpt" (a JSON list: ChatGPT's conversations.json); None when they say none of these."""
    if head[:1] == bytes([PICKLE_PROTOCOL]):
        return "pickle"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")  # a byte order mark, then white space
    if text[:1] == b"{":
        return "export"
    if text[:1] == b"[":
        return "chatgpt"
    return None


def file_format(path: Path) -> str | None:
    """Return the format of the file at `path` (detect_format on its first bytes)."""
    with path.open("rb") as stream:
        return detect_format(stream.read(HEAD_BYTES))
