"""The scope rules: whose memory a message speaks to, member keys, and what a group's prompt may hold."""

from __future__ import annotations

from itertools import islice

import pytest

from memory.facts import Fact
from memory.scopes import MEMBER_KEYS, PROBES, is_member_key, member_keys, private_scope, visible_in_group

TELEGRAM_IDS = [1, 777000, 2**52 - 1, -1, -100, -1001234567890, -1009999999999999, -(2**52)]


def test_a_private_scope_is_the_users_own_memory():
    scope = private_scope(42)
    assert (scope.key, scope.owner, scope.chat_id, scope.private) == (42, 42, None, True)


@pytest.mark.parametrize("telegram_id", TELEGRAM_IDS)
def test_no_telegram_id_is_ever_a_member_key(telegram_id):
    assert not is_member_key(telegram_id)


@pytest.mark.parametrize("user_id, chat_id", [(1, -100), (2**52 - 1, -1009999999999999), (5, -1), (9, 9)])
def test_member_keys_are_below_every_telegram_id_and_fit_64_bits(user_id, chat_id):
    keys = list(member_keys(user_id, chat_id))
    assert len(keys) == PROBES == len(set(keys))
    assert all(is_member_key(key) and -(2**63) <= key < MEMBER_KEYS for key in keys)


def test_member_keys_are_the_same_every_run_and_differ_between_pairs():
    first = next(member_keys(1001, -100500))
    assert first == next(member_keys(1001, -100500))
    others = {next(member_keys(user, chat)) for user in range(1000, 1050) for chat in (-100500, -100501, -7)}
    assert first in others and len(others) == 150
    assert next(member_keys(1, -23)) != next(member_keys(12, -3))  # "1:-23" and "12:-3" are different pairs


def test_probes_follow_the_first_key():
    keys = list(islice(member_keys(3, -4), 3))
    assert keys[1] == keys[0] - 1 and keys[2] == keys[0] - 2


def fact(key: str, value: str, shared: bool = False, fact_id: int = 0) -> Fact:
    return Fact("personal", key, value, shared=shared, id=fact_id)


def test_a_group_sees_what_was_said_there_then_what_is_shared():
    own = [fact("pet:murka", "cat Murka", fact_id=1)]
    shared = [fact("city", "Berlin", True, 2), fact("name", "Olya", True, 3)]
    assert visible_in_group(own, shared) == own + shared


def test_what_was_said_in_the_group_wins_over_a_shared_value_of_the_same_key():
    own = [fact("city", "Kazan", fact_id=1)]
    assert visible_in_group(own, [fact("city", "Berlin", True, 2)]) == own


def test_nothing_shared_means_nothing_private():
    assert visible_in_group([], []) == []
    assert visible_in_group([fact("city", "Kazan")], []) == [fact("city", "Kazan")]
