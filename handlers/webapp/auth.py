"""Who is asking: Telegram's signed Mini App launch data (initData), checked as Telegram documents it. Pure."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import parse_qsl

MAX_LENGTH = 8_192  # Telegram's initData is a few hundred bytes; anything far longer is not one
FUTURE_SKEW_S = 60  # a clock a little ahead of ours is fine; a launch from the future is not


class NotSigned(Exception):
    """The initData is missing, malformed, wrongly signed or too old; the reason is safe to log and show."""


@dataclass(frozen=True)
class WebAppUser:
    """The Telegram user the page was opened by, as the signed initData names them."""

    id: int
    language_code: str | None
    signed_at: datetime


def bot_secret(token: str) -> bytes:
    """Return the key initData is signed with: HMAC-SHA256 of the bot token, keyed with "WebAppData"."""
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def signature(fields: dict[str, str], secret: bytes) -> str:
    """Return the hex HMAC-SHA256 of the data-check string: every field but `hash`, sorted, as key=value lines."""
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()) if key != "hash")
    return hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()


def authorization_data(header: str | None) -> str:
    """Return the initData of an `Authorization: tma <initData>` header."""
    scheme, _, data = (header or "").partition(" ")
    if scheme.lower() != "tma" or not data.strip():
        raise NotSigned("no 'Authorization: tma <initData>' header")
    return data.strip()


def check_init_data(init_data: str, secret: bytes, now: datetime, max_age_s: int) -> WebAppUser:
    """Return the user a valid initData names; raise NotSigned for anything else.

    `secret` is bot_secret(token). The signature is compared in constant time; a duplicated field, a missing
    `hash`, `auth_date` or `user`, or an `auth_date` more than `max_age_s` old is refused.
    """
    if len(init_data) > MAX_LENGTH:
        raise NotSigned("initData is too long")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True, max_num_fields=64)
    except ValueError:
        raise NotSigned("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise NotSigned("initData names a field twice")
    given = fields.get("hash", "")
    if not hmac.compare_digest(given.encode(), signature(fields, secret).encode()):
        raise NotSigned("initData's signature does not match this bot")
    try:
        signed_at = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, ValueError, TypeError):
        raise NotSigned("initData lacks auth_date or the user") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise NotSigned("initData's user has no valid id")
    age = now.timestamp() - signed_at
    if age > max_age_s:
        raise NotSigned("initData has expired: open the page again from the bot")
    if age < -FUTURE_SKEW_S:
        raise NotSigned("initData is signed in the future")
    language = user.get("language_code")
    return WebAppUser(
        id=user_id,
        language_code=language if isinstance(language, str) else None,
        signed_at=datetime.fromtimestamp(signed_at, now.tzinfo),
    )
