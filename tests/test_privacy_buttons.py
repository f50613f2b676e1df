"""The /profile button data the handler accepts: only what render_profile itself writes."""

from __future__ import annotations

import pytest

from handlers.privacy import PROFILE_BUTTON


@pytest.mark.parametrize("data, fact, page", [("pf:pg:0", None, "0"), ("pf:pg:12", None, "12"),
                                              ("pf:del:42:3", "42", "3")])
def test_the_buttons_render_profile_writes_are_accepted(data, fact, page):
    button = PROFILE_BUTTON.fullmatch(data)
    assert button is not None and button["fact"] == fact and button["page"] == page


@pytest.mark.parametrize("data", ["pf:pg:²", "pf:del:¹:0", "pf:del:٣:0", "pf:pg:", "pf:del:1", "pf:del:-1:0",
                                  "pf:del:1:0:0", "pf:del:99999999999999999999999:0", "pf:pg:99999999999",
                                  "pf:pg:1\n", "forget:all", ""])
def test_forged_or_malformed_data_is_not(data):
    # "²".isdigit() is True yet int("²") raises; 23 digits overflow SQLite's integers: both crashed the handler.
    assert PROFILE_BUTTON.fullmatch(data) is None
