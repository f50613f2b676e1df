"""One HTTP/1.1 exchange as bytes: the head of a request, and a parser that reads a response as its bytes arrive.

No I/O here (net/connections.py owns the sockets), so every way a response can be framed is tested byte by
byte (tests/test_http1.py): a length, chunks (with extensions and trailers), or the rest of the connection; no
body after HEAD, 1xx, 204 or 304; interim 1xx heads skipped. A head or chunk line too long, a bad status line or
header, a malformed chunk or a body cut short is a BadResponse, never a guess.
"""

from __future__ import annotations

MAX_HEAD = 64 * 1024  # a response head, or a chunk's size line or trailers, longer than this is refused
NO_BODY_STATUSES = (204, 304)


class HttpError(Exception):
    """A request that got no whole answer. The message names the server, never the URL (it may hold a key)."""


class BadResponse(HttpError):
    """The server's bytes are not an HTTP/1.1 response."""


def request_head(method: str, target: str, host: str, headers: dict[str, str], length: int | None) -> bytes:
    """Return the head of a request: its line, Host, the headers, and Content-Length when there is a body."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    if any("\n" in line or "\r" in line for line in lines):
        raise ValueError("a header name or value holds a line break")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


# What the parser is reading.
HEAD, LENGTH, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, UNTIL_CLOSE, DONE = range(8)


class ResponseParser:
    """Reads one response from its bytes in whatever pieces they come; `feed` returns the body's pieces.

    After the head: `status`, `headers` (names lowercased, repeated ones joined with ", "), and `keep_alive`,
    whether the connection may carry another request once `done`.
    """

    def __init__(self, head_only: bool = False) -> None:
        self.head_only = head_only  # the request was HEAD: whatever the head says, no body follows
        self.status = 0
        self.headers: dict[str, str] = {}
        self.version = ""
        self.keep_alive = False
        self.head_done = False
        self.done = False
        self._state = HEAD
        self._left = 0  # bytes of the body, or of the chunk, still to come
        self._rest = b""  # the start of a line (or head) whose end has not come yet

    def feed(self, data: bytes) -> list[bytes]:
        """Read the next bytes; return the body pieces they hold (none empty)."""
        if self._rest:
            data, self._rest = self._rest + data, b""
        pieces: list[bytes] = []
        at, end = 0, len(data)
        while at < end:
            state = self._state
            if state == LENGTH or state == CHUNK_DATA:
                take = min(self._left, end - at)
                pieces.append(data[at:at + take])
                at += take
                self._left -= take
                if not self._left and state == LENGTH:
                    self._state, self.done = DONE, True
                elif not self._left:
                    self._state = CHUNK_END
            elif state == UNTIL_CLOSE:
                pieces.append(data[at:] if at else data)
                at = end
            elif state == CHUNK_END:
                if end - at < 2:
                    self._rest = data[at:]
                    break
                if data[at:at + 2] != b"\r\n":
                    raise BadResponse("a chunk of the body does not end where its size says")
                at += 2
                self._state = CHUNK_SIZE
            elif state == DONE:
                self.keep_alive = False  # bytes after the response: the connection cannot be trusted again
                break
            else:
                ending = b"\r\n\r\n" if state == HEAD else b"\r\n"
                stop = data.find(ending, at)
                # Its length with its ending, whole or not yet: the same answer however the bytes were split.
                if (stop + len(ending) if stop >= 0 else end) - at > MAX_HEAD:
                    raise BadResponse("the response's head, or a chunk line, is too long")
                if stop < 0:
                    self._rest = data[at:]
                    break
                line = data[at:stop]
                at = stop + len(ending)
                if state == HEAD:
                    self._read_head(line)
                elif state == CHUNK_SIZE:
                    self._read_chunk_size(line)
                elif not line:  # the blank line after the trailers
                    self._state, self.done = DONE, True
        return pieces

    def feed_eof(self) -> None:
        """The server closed the connection: the end of a body read to the close, else BadResponse if unfinished."""
        self.keep_alive = False
        if self._state == UNTIL_CLOSE:
            self._state, self.done = DONE, True
        elif not self.done:
            raise BadResponse("the server closed the connection before the response was whole")

    def _read_head(self, head: bytes) -> None:
        lines = head.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if version not in ("HTTP/1.1", "HTTP/1.0") or not _digits(code, 3) or rest[3:4] not in ("", " "):
            raise BadResponse(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
        status = int(code)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon or not name or name != name.strip(" \t"):
                raise BadResponse(f"not a header line: {line[:80]!r}")
            name, value = name.lower(), value.strip(" \t")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        if 100 <= status < 200:
            if status == 101:
                raise BadResponse("the server switched protocols, which no request here asks for")
            return  # an interim head (100 Continue, 103 Early Hints): the real one follows
        self.status, self.headers, self.version, self.head_done = status, headers, version, True
        tokens = {token.strip().lower() for token in headers.get("connection", "").split(",")}
        self.keep_alive = "keep-alive" in tokens if version == "HTTP/1.0" else "close" not in tokens
        coding = headers.get("transfer-encoding")
        if self.head_only or status in NO_BODY_STATUSES:
            self._state, self.done = DONE, True
        elif coding is not None:
            chunked = coding.rsplit(",", 1)[-1].strip().lower() == "chunked"
            self._state = CHUNK_SIZE if chunked else UNTIL_CLOSE
            self.keep_alive = self.keep_alive and chunked
        elif "content-length" in headers:
            self._left = _length(headers["content-length"])
            self._state = LENGTH if self._left else DONE
            self.done = not self._left
        else:
            self._state, self.keep_alive = UNTIL_CLOSE, False

    def _read_chunk_size(self, line: bytes) -> None:
        digits = line.split(b";", 1)[0].strip(b" \t")
        if not digits or digits.strip(b"0123456789abcdefABCDEF"):
            raise BadResponse(f"not a chunk size: {line[:40]!r}")
        self._left = int(digits, 16)
        self._state = CHUNK_DATA if self._left else TRAILERS


def _length(value: str) -> int:
    """Content-Length, which a server may repeat ("5, 5"), but only with one value."""
    values = {part.strip() for part in value.split(",")}
    if len(values) != 1 or not _digits(next(iter(values))):
        raise BadResponse(f"not a content length: {value[:40]!r}")
    return int(values.pop())


def _digits(text: str, count: int | None = None) -> bool:
    """True for ASCII digits only (str.isdigit takes "²" too), `count` of them when given."""
    return text.isascii() and text.isdigit() and (count is None or len(text) == count)
