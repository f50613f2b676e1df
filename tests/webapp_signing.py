"""Signs Mini App launch data (initData) as Telegram does, for the memory page's tests and benchmark."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

from handlers.webapp.auth import bot_secret, signature


def init_data(token: str, user_id: int, auth_date: int, language: str = "en", **extra: str) -> str:
    """Return initData for `user_id`, signed with `token`'s key, as Telegram puts it in the launch URL."""
    user = {"id": user_id, "first_name": "Ann", "language_code": language, "allows_write_to_pm": True}
    fields = {"query_id": "AAHdF6IQAAAAAN0XohDhrOrc", "user": json.dumps(user, separators=(",", ":")),
              "auth_date": str(auth_date), **extra}
    fields["hash"] = signature(fields, bot_secret(token))
    return urlencode(fields, quote_via=quote)


def launch_fragment(data: str, theme: dict | None = None) -> str:
    """Return the launch URL's #fragment Telegram opens the page with: tgWebAppData and the theme."""
    parts = {"tgWebAppData": data, "tgWebAppVersion": "9.1", "tgWebAppPlatform": "android"}
    if theme is not None:
        parts["tgWebAppThemeParams"] = json.dumps(theme)
    return "#" + urlencode(parts, quote_via=quote)
