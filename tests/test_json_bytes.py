"""json_bytes.py: orjson where it can, and always the values the standard library's json gives."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from telegram.error import TelegramError

from json_bytes import dumps, loads
from transport.http import BotApiRequest

SCALARS = st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.text()
FLOATS = st.floats(allow_nan=False, allow_infinity=False)


def standard(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@given(st.recursive(SCALARS, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=30))
def test_written_as_json_writes_it_without_floats(value):
    assert dumps(value) == standard(value)


@given(st.recursive(SCALARS | FLOATS, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
                    max_leaves=30))
def test_read_back_the_same_value_as_json_reads(value):
    written = json.dumps(value, ensure_ascii=False)
    assert json.loads(dumps(value)) == value
    assert loads(written) == json.loads(written) and loads(written.encode()) == json.loads(written.encode())


@pytest.mark.parametrize("text", [
    '{"a": NaN, "b": Infinity, "c": -Infinity}',  # json takes these; orjson does not
    "[18446744073709551615, -9223372036854775808]",  # the ends of 64 bits
    "[1E400, -1e400, 1e-400]",
    '{"lone": "\\ud800", "pair": "\\ud83d\\ude00"}',  # a lone surrogate
    '{"dup": 1, "dup": 2}',
    '  [1, 2.5e-7, "\\u2028"]  ',
])
def test_what_orjson_refuses_is_read_as_json_reads_it(text):
    assert repr(loads(text)) == repr(json.loads(text))


@pytest.mark.parametrize("text", ["", "{", '{"a": 1} x', "[1,]", "nul", b"\xff\xfe{"])
def test_what_json_refuses_raises_its_value_error(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        loads(text)


def test_an_integer_past_64_bits_is_read_as_a_float_the_one_difference():
    assert loads("[18446744073709551616]") == [float(2**64)] and json.loads("[18446744073709551616]") == [2**64]


def test_a_value_orjson_does_not_write_is_written_by_json():
    assert dumps({1: "a", "b": 2**70}) == b'{"1":"a","b":1180591620717411303424}'
    assert dumps({"x": (1, 2)}) == b'{"x":[1,2]}'
    with pytest.raises(TypeError):
        dumps({"x": {1, 2}})


def test_the_bot_apis_answers_are_read_as_python_telegram_bot_reads_them():
    assert BotApiRequest.parse_json_payload('{"ok": true, "result": [{"update_id": 1}]}'.encode()) == {
        "ok": True, "result": [{"update_id": 1}]}
    odd = b'{"ok": true, "result": "\xff"}'  # no UTF-8: python-telegram-bot replaces the byte
    assert BotApiRequest.parse_json_payload(odd) == {"ok": True, "result": "\ufffd"}
    with pytest.raises(TelegramError, match="Invalid server response"):
        BotApiRequest.parse_json_payload(b"<html>Bad Gateway</html>")
