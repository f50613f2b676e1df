"""net/http1.py: the head of a request, and the parser that reads a response from its bytes however they are split
(a length, chunks with extensions and trailers, the rest of the connection, no body where none may come, interim
heads skipped) and refuses malformed ones with BadResponse rather than guessing."""

from __future__ import annotations

import pytest

from net.http1 import MAX_HEAD, BadResponse, ResponseParser, request_head

TEXT = "Привет, мир 😀 — ünïcödé".encode()


def read(*pieces: bytes, head_only: bool = False, eof: bool = False) -> tuple[ResponseParser, bytes]:
    """Feed `pieces` to a fresh parser (then the end of the connection, with `eof`); return it and the body."""
    parser = ResponseParser(head_only=head_only)
    body = []
    for piece in pieces:
        got = parser.feed(piece)
        assert all(got), "the parser returned an empty body piece"
        body += got
    if eof:
        parser.feed_eof()
    return parser, b"".join(body)


def outcome(*pieces: bytes, head_only: bool = False, eof: bool = False) -> tuple:
    """What a reader sees of a response: its head, whether it is whole and reusable, and its body."""
    parser, body = read(*pieces, head_only=head_only, eof=eof)
    return parser.status, parser.version, parser.headers, parser.head_done, parser.done, parser.keep_alive, body


def chunked(body: bytes, sizes: list[int], extension: bytes = b"", trailers: bytes = b"") -> bytes:
    """Return `body` in chunks of `sizes` (cycled; sizes in uppercase hex, each size line with `extension`)."""
    out, at, turn = [], 0, 0
    while at < len(body):
        size = min(sizes[turn % len(sizes)], len(body) - at)
        out.append(b"%X%s\r\n%s\r\n" % (size, extension, body[at:at + size]))
        at, turn = at + size, turn + 1
    return b"".join(out) + b"0\r\n" + trailers + b"\r\n"


# ----- framing -----

def test_a_content_length_body_is_read_to_its_length_and_the_connection_kept():
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello")
    assert (parser.status, parser.version, body) == (200, "HTTP/1.1", b"hello")
    assert parser.headers == {"content-length": "5", "content-type": "text/plain"}
    assert parser.head_done and parser.done and parser.keep_alive


def test_the_parser_is_not_done_until_the_whole_length_has_come():
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel")
    assert parser.head_done and not parser.done and body == b"hel"
    assert parser.feed(b"lo") == [b"lo"] and parser.done


def test_a_zero_length_body_is_done_with_the_head():
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    assert parser.done and parser.keep_alive and body == b""


def test_header_names_are_lowercased_and_repeats_joined():
    parser, _ = read(b"HTTP/1.1 200 OK\r\nX-Thing: a\r\nx-thing:b\r\nVia:  \t1.1 proxy \t\r\nContent-Length: 0\r\n\r\n")
    assert parser.headers == {"x-thing": "a, b", "via": "1.1 proxy", "content-length": "0"}


def test_a_status_line_without_a_reason_is_read():
    parser, _ = read(b"HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n")
    assert parser.status == 404 and parser.done


def test_a_chunked_body_with_extensions_trailers_and_uppercase_hex():
    raw = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"1A;ext=1\r\nabcdefghijklmnopqrstuvwxyz\r\n"
           b"3 ; name=\"v;x\"\r\n123\r\n"
           b"0\r\nX-Checksum: 42\r\nX-More: yes\r\n\r\n")
    parser, body = read(raw)
    assert body == b"abcdefghijklmnopqrstuvwxyz123"
    assert parser.done and parser.keep_alive
    assert "x-checksum" not in parser.headers  # trailers are read past, not taken as headers


def test_a_chunked_body_is_not_done_before_its_last_chunk_and_blank_line():
    parser, body = read(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n")
    assert body == b"hello" and not parser.done
    assert parser.feed(b"\r\n") == [] and parser.done


def test_a_body_without_a_length_is_read_to_the_close():
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsome ", b"more")
    assert body == b"some more" and parser.head_done and not parser.done and not parser.keep_alive
    parser.feed_eof()
    assert parser.done and not parser.keep_alive


@pytest.mark.parametrize("status", [204, 304])
def test_no_body_after_204_or_304_even_with_a_content_length(status):
    parser, body = read(b"HTTP/1.1 %d X\r\nContent-Length: 12\r\n\r\n" % status)
    assert parser.status == status and parser.done and parser.keep_alive and body == b""


def test_no_body_after_head_even_with_a_length_or_chunks():
    for framing in (b"Content-Length: 12", b"Transfer-Encoding: chunked"):
        parser, body = read(b"HTTP/1.1 200 OK\r\n" + framing + b"\r\n\r\n", head_only=True)
        assert parser.done and parser.keep_alive and body == b""


def test_interim_100_and_103_heads_are_skipped():
    parser, body = read(b"HTTP/1.1 100 Continue\r\n\r\n"
                        b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                        b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
    assert (parser.status, parser.headers, body) == (201, {"content-length": "2"}, b"ok")
    assert parser.done


def test_an_interim_head_alone_leaves_the_head_unread():
    parser, _ = read(b"HTTP/1.1 100 Continue\r\n\r\n")
    assert not parser.head_done and parser.status == 0


def test_101_switching_protocols_is_refused():
    with pytest.raises(BadResponse, match="switched protocols"):
        read(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n")


@pytest.mark.parametrize("version, connection, kept", [
    (b"HTTP/1.0", b"", False),
    (b"HTTP/1.0", b"Connection: keep-alive\r\n", True),
    (b"HTTP/1.0", b"Connection: Keep-Alive, foo\r\n", True),
    (b"HTTP/1.1", b"", True),
    (b"HTTP/1.1", b"Connection: close\r\n", False),
    (b"HTTP/1.1", b"Connection: foo, Close\r\n", False),
    (b"HTTP/1.1", b"Connection: keep-alive\r\n", True),
])
def test_keep_alive_follows_the_version_and_the_connection_header(version, connection, kept):
    parser, body = read(version + b" 200 OK\r\n" + connection + b"Content-Length: 2\r\n\r\nhi")
    assert parser.version == version.decode() and body == b"hi" and parser.done
    assert parser.keep_alive is kept


def test_a_repeated_equal_content_length_is_taken():
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello")
    assert body == b"hello" and parser.done
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
    assert body == b"hello" and parser.done


@pytest.mark.parametrize("value", [b"5, 6", b"", b"-1", b"+5", b"0x5", b"5.0", b"\xb2"])
def test_a_bad_or_disagreeing_content_length_is_refused(value):
    with pytest.raises(BadResponse, match="content length"):
        read(b"HTTP/1.1 200 OK\r\nContent-Length: " + value + b"\r\n\r\nhello")


def test_gzip_then_chunked_is_chunked():
    parser, body = read(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 99\r\n\r\n"
                        b"3\r\nabc\r\n0\r\n\r\n")
    assert body == b"abc" and parser.done and parser.keep_alive


def test_a_transfer_coding_without_chunked_is_read_to_the_close():
    parser, body = read(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
    assert body == b"3\r\nabc\r\n0\r\n\r\n" and not parser.done and not parser.keep_alive
    parser.feed_eof()
    assert parser.done


def test_bytes_after_a_whole_response_make_the_connection_unsafe():
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiEXTRA")
    assert body == b"hi" and parser.done and not parser.keep_alive
    parser, body = read(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", b"HTTP/1.1 200 OK\r\n")
    assert body == b"hi" and parser.done and not parser.keep_alive


def test_the_end_of_the_connection_after_a_whole_response_is_no_error():
    parser, _ = read(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", eof=True)
    assert parser.done and not parser.keep_alive


# ----- however the bytes are split -----

RESPONSES = {
    "length": (b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-A: 1\r\n\r\n%s" % (len(TEXT), TEXT), False, False),
    "many chunks": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunked(TEXT * 2, [1, 2, 3, 17], b";ext=1", b"X-Trailer: yes\r\n"), False, False),
    "big chunks": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(TEXT * 3, [26, 31]),
                   False, False),
    "to the close": (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + TEXT, False, True),
    "interim heads": (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: <a>\r\n\r\n"
                      b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nbody", False, False),
    "head": (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", True, False),
    "no content": (b"HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n", False, False),
}


@pytest.mark.parametrize("name", RESPONSES)
def test_a_response_split_anywhere_reads_as_it_does_whole(name):
    raw, head_only, eof = RESPONSES[name]
    whole = outcome(raw, head_only=head_only, eof=eof)
    assert whole[0] in (200, 204) and whole[3] and whole[4]  # the whole response reads, to its end
    for at in range(len(raw) + 1):
        assert outcome(raw[:at], raw[at:], head_only=head_only, eof=eof) == whole, f"split at {at}"
    for at in range(0, len(raw) + 1, 7):  # three pieces, the second one across most boundaries
        for stop in range(at, min(len(raw), at + 40) + 1):
            pieces = (raw[:at], raw[at:stop], raw[stop:])
            assert outcome(*pieces, head_only=head_only, eof=eof) == whole, f"split at {at} and {stop}"
    one_at_a_time = [raw[at:at + 1] for at in range(len(raw))]
    assert outcome(*one_at_a_time, head_only=head_only, eof=eof) == whole


def test_the_body_of_a_chunked_response_is_its_chunks_joined():
    raw, _, _ = RESPONSES["many chunks"]
    assert read(raw)[1] == TEXT * 2
    raw, _, _ = RESPONSES["big chunks"]
    assert read(raw)[1] == TEXT * 3


# ----- malformed responses -----

@pytest.mark.parametrize("line", [
    b"HTTP/2 200 OK", b"HTTP/1.1 2x0 OK", "HTTP/1.1 ²00 OK".encode("latin-1"), b"HTTP/1.1 20 OK",
    b"HTTP/1.1 2000 OK", b"HTTP/1.1  200 OK", b"http/1.1 200 OK", b"HTTP/1.2 200 OK", b"ICY 200 OK", b"garbage",
    b"", b"\x00\xff\xfe",
])
def test_a_bad_status_line_is_refused(line):
    with pytest.raises(BadResponse, match="status line"):
        read(line + b"\r\nContent-Length: 0\r\n\r\n")


@pytest.mark.parametrize("line", [
    b"No-Colon-Here", b"Content-Length : 0", b"Content-Length\t: 0", b": no name", b" Folded: value",
    b"\tcontinued line",
])
def test_a_bad_header_line_is_refused(line):
    with pytest.raises(BadResponse, match="header line"):
        read(b"HTTP/1.1 200 OK\r\nX-A: 1\r\n" + line + b"\r\nContent-Length: 0\r\n\r\n")


def test_an_obs_fold_continuation_is_refused():
    with pytest.raises(BadResponse, match="header line"):
        read(b"HTTP/1.1 200 OK\r\nX-Long: first part\r\n  second part\r\nContent-Length: 0\r\n\r\n")


@pytest.mark.parametrize("size", [b"zz", b"", b";ext=1", "²".encode(), "²".encode("latin-1"), b"0x5", b"-1",
                                  b"1 2", b"g"])
def test_a_bad_chunk_size_is_refused(size):
    with pytest.raises(BadResponse, match="chunk size"):
        read(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + size + b"\r\nhello\r\n0\r\n\r\n")


@pytest.mark.parametrize("after", [b"XX", b"x\r\n", b"\n\r", b"\r\r"])
def test_chunk_data_not_followed_by_crlf_is_refused(after):
    raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc" + after + b"0\r\n\r\n"
    with pytest.raises(BadResponse, match="chunk"):
        read(raw)
    with pytest.raises(BadResponse, match="chunk"):  # and when the two bytes come apart
        read(*[raw[at:at + 1] for at in range(len(raw))])


def test_a_head_without_an_end_longer_than_max_head_is_refused():
    parser = ResponseParser()
    parser.feed(b"HTTP/1.1 200 OK\r\nX-Long: ")
    for _ in range(MAX_HEAD // 4096 - 1):
        assert parser.feed(b"a" * 4096) == []
    with pytest.raises(BadResponse, match="too long"):
        parser.feed(b"a" * 4096)


def test_a_chunk_size_line_longer_than_max_head_is_refused():
    parser = ResponseParser()
    parser.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;")
    with pytest.raises(BadResponse, match="too long"):
        parser.feed(b"x" * MAX_HEAD)


def long_head(size: int) -> bytes:
    """A response whose head, its blank line included, is `size` bytes."""
    start, end = b"HTTP/1.1 200 OK\r\nX-Long: ", b"\r\nContent-Length: 2\r\n\r\n"
    return start + b"a" * (size - len(start) - len(end)) + end + b"ok"


def test_a_head_as_long_as_max_head_is_read_however_it_is_split():
    raw = long_head(MAX_HEAD)
    for at in (1, MAX_HEAD - 4, MAX_HEAD - 3, MAX_HEAD - 1, MAX_HEAD, MAX_HEAD + 1, len(raw)):
        parser, body = read(raw[:at], raw[at:])
        assert parser.done and body == b"ok", f"split at {at}"


@pytest.mark.parametrize("size", [MAX_HEAD + 1, MAX_HEAD + 100])
def test_a_head_longer_than_max_head_is_refused_however_it_is_split(size):
    raw = long_head(size)  # whole, or split where the socket happened to split it: the same answer
    for at in (len(raw), 1, MAX_HEAD - 3, MAX_HEAD, MAX_HEAD + 1, MAX_HEAD + 2, MAX_HEAD + 50):
        with pytest.raises(BadResponse, match="too long"):
            read(raw[:at], raw[at:])


@pytest.mark.parametrize("raw", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Trailer: 1\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\n",
    b"",
])
def test_a_response_cut_short_is_refused_at_the_end_of_the_connection(raw):
    parser, _ = read(raw)
    with pytest.raises(BadResponse, match="before the response was whole"):
        parser.feed_eof()
    assert not parser.done and not parser.keep_alive


# ----- the request's head -----

def test_a_request_head_holds_its_line_host_headers_and_length():
    head = request_head("POST", "/bot1:abc/sendMessage?x=1", "api.example.org:8443",
                        {"User-Agent": "bot/1", "Content-Type": "application/json"}, 27)
    assert head == (b"POST /bot1:abc/sendMessage?x=1 HTTP/1.1\r\nHost: api.example.org:8443\r\nUser-Agent: bot/1\r\n"
                    b"Content-Type: application/json\r\nContent-Length: 27\r\n\r\n")


def test_a_request_without_a_body_has_no_content_length():
    assert request_head("GET", "/", "h", {}, None) == b"GET / HTTP/1.1\r\nHost: h\r\n\r\n"
    assert request_head("POST", "/", "h", {}, 0).endswith(b"\r\nContent-Length: 0\r\n\r\n")


@pytest.mark.parametrize("headers, host", [
    ({"X-A": "one\r\nX-Injected: 1"}, "h"), ({"X-A": "one\nX-B: 2"}, "h"), ({"X-A": "a\rb"}, "h"),
    ({"X-A\r\nX-B": "1"}, "h"), ({}, "h\r\nX-B: 1"),
])
def test_a_line_break_in_a_header_is_refused(headers, host):
    with pytest.raises(ValueError, match="line break"):
        request_head("GET", "/", host, headers, None)
