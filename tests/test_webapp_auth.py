"""The memory page's identity check: Telegram's signed initData, and the write limit. Pure."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime, timezone
from urllib.parse import parse_qsl, quote, urlencode

import pytest

from handlers.webapp.auth import (
    NotSigned,
    authorization_data,
    bot_secret,
    check_init_data,
    signature,
)
from handlers.webapp.edit_rate import WriteLimit
from tests.webapp_signing import init_data

TOKEN = "123456:AAE-test-token-of-this-bot"
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)
SIGNED = int(NOW.timestamp()) - 60
SECRET = bot_secret(TOKEN)


def check(data: str, max_age: int = 86_400):
    return check_init_data(data, SECRET, NOW, max_age)


def resigned(fields: list[tuple[str, str]], token: str = TOKEN) -> str:
    """Return the fields as initData with a fresh signature (for data that is wrong though well signed)."""
    data = dict(fields)
    data.pop("hash", None)
    data["hash"] = signature(data, bot_secret(token))
    return urlencode(data, quote_via=quote)


def test_good_init_data_names_its_user_and_language():
    user = check(init_data(TOKEN, 1001, SIGNED, language="ru"))
    assert (user.id, user.language_code) == (1001, "ru")
    assert user.signed_at == datetime.fromtimestamp(SIGNED, timezone.utc)


def test_the_secret_key_is_hmac_of_the_token_keyed_with_webappdata():
    assert SECRET == hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()


def test_a_known_signature_from_telegrams_algorithm():
    # Worked by hand: data-check string is the sorted fields but hash, joined by newlines.
    fields = {"auth_date": "1700000000", "user": '{"id":42}', "query_id": "q"}
    check_string = "auth_date=1700000000\nquery_id=q\nuser={\"id\":42}"
    expected = hmac.new(SECRET, check_string.encode(), hashlib.sha256).hexdigest()
    assert signature(fields, SECRET) == expected
    assert signature({**fields, "hash": "ignored"}, SECRET) == expected


@pytest.mark.parametrize("field, value", [("user", json.dumps({"id": 1002, "first_name": "Ann"})),
                                          ("auth_date", str(SIGNED + 1)), ("query_id", "other")])
def test_a_tampered_field_is_refused(field, value):
    fields = dict(parse_qsl(init_data(TOKEN, 1001, SIGNED)))
    fields[field] = value
    with pytest.raises(NotSigned, match="signature"):
        check(urlencode(fields, quote_via=quote))


def test_a_tampered_hash_is_refused():
    fields = dict(parse_qsl(init_data(TOKEN, 1001, SIGNED)))
    fields["hash"] = fields["hash"][:-1] + ("0" if fields["hash"][-1] != "0" else "1")
    with pytest.raises(NotSigned, match="signature"):
        check(urlencode(fields))


def test_data_signed_with_another_bots_token_is_refused():
    with pytest.raises(NotSigned, match="signature"):
        check(init_data("654321:another-bot-token", 1001, SIGNED))


def test_expired_data_is_refused_and_data_just_inside_the_age_is_not():
    old = int(NOW.timestamp()) - 3_601
    with pytest.raises(NotSigned, match="expired"):
        check(init_data(TOKEN, 1001, old), max_age=3_600)
    assert check(init_data(TOKEN, 1001, old + 2), max_age=3_600).id == 1001


def test_data_signed_far_in_the_future_is_refused():
    with pytest.raises(NotSigned, match="future"):
        check(init_data(TOKEN, 1001, int(NOW.timestamp()) + 3_600))


@pytest.mark.parametrize("missing", ["hash", "auth_date", "user"])
def test_a_missing_field_is_refused(missing):
    fields = [(k, v) for k, v in parse_qsl(init_data(TOKEN, 1001, SIGNED)) if k != missing]
    data = urlencode(fields, quote_via=quote) if missing == "hash" else resigned(fields)
    with pytest.raises(NotSigned):
        check(data)


def test_a_duplicated_field_is_refused_even_when_one_copy_is_signed():
    good = init_data(TOKEN, 1001, SIGNED)
    for extra in ("&user=" + quote(json.dumps({"id": 1002})), "&auth_date=" + str(SIGNED)):
        with pytest.raises(NotSigned, match="twice"):
            check(good + extra)


@pytest.mark.parametrize("user", ['{"id": "1001"}', '{"id": true}', '{"id": -5}', '{"id": 1.5}', "[1001]",
                                  "not json", '{"name": "no id"}'])
def test_a_signed_user_without_a_valid_id_is_refused(user):
    with pytest.raises(NotSigned):
        check(resigned([("auth_date", str(SIGNED)), ("user", user)]))


@pytest.mark.parametrize("data", ["", "no-equals-sign", "a=1&&b=2", "x" * 10_000, "%zz=1"])
def test_garbage_is_refused_with_a_reason(data):
    with pytest.raises(NotSigned) as refused:
        check(data)
    assert str(refused.value)


def test_a_non_numeric_auth_date_is_refused():
    with pytest.raises(NotSigned):
        check(resigned([("auth_date", "yesterday"), ("user", '{"id": 1}')]))


@pytest.mark.parametrize("header, data", [("tma abc=1", "abc=1"), ("TMA  abc=1 ", "abc=1")])
def test_the_authorization_header_carries_tma_and_the_data(header, data):
    assert authorization_data(header) == data


@pytest.mark.parametrize("header", [None, "", "tma", "tma ", "Bearer abc=1", "abc=1"])
def test_another_authorization_header_is_refused(header):
    with pytest.raises(NotSigned):
        authorization_data(header)


def test_the_write_limit_allows_a_burst_then_refills_per_user():
    limit = WriteLimit(burst=3, per_second=1)
    assert [limit.allow(1, 0.0) for _ in range(4)] == [True, True, True, False]
    assert limit.allow(2, 0.0)  # another user has their own bucket
    assert not limit.allow(1, 0.5)
    assert limit.allow(1, 1.6)
    assert not limit.allow(1, 1.7)


def test_the_write_limit_forgets_users_whose_bucket_is_full_again():
    limit = WriteLimit(burst=2, per_second=1)
    for user in range(10_001):
        limit.allow(user, 0.0)
    limit.allow(99_999, 100.0)
    assert list(limit.buckets) == [99_999]
