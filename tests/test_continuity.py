"""Conversation boundaries, merging a conversation's passes, and the "Last time you talked" lines."""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from memory.continuity import (
    Topic,
    continues,
    conversation_start,
    conversation_topic,
    first_conversation,
    recalled_topics,
)

UTC = timezone.utc
GAP = timedelta(minutes=180)
T0 = datetime(2026, 11, 27, 21, 0, tzinfo=UTC)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def message(role: str, hours: float, id_: int = 0) -> dict:
    return {"id": id_, "role": role, "content": "…", "at": at(hours)}


@pytest.mark.parametrize(
    "hours, start",
    [
        ([0], 0),
        ([0, 1, 2, 2.5], 0),  # gaps under 3 h: one conversation
        ([0, 3], 0),  # exactly the gap still continues
        ([0, 3.01], 3.01),  # a minute more starts a new one
        ([0, 1, 5, 6], 5),
        ([0, 10, 10.5, 11], 10),
    ],
)
def test_a_conversation_starts_after_the_last_gap_longer_than_the_setting(hours, start):
    assert conversation_start([at(h) for h in hours], GAP) == at(start)


def test_no_messages_no_start():
    assert conversation_start([], GAP) is None


def test_midnight_does_not_split_a_conversation_in_any_zone():
    # 23:50 and 00:20 in Vladivostok (UTC+10) are one conversation, whatever the date says.
    vladivostok = ZoneInfo("Asia/Vladivostok")
    late = datetime(2026, 11, 29, 23, 50, tzinfo=vladivostok)
    times = [late, late + timedelta(minutes=30)]
    assert times[0].date() != times[1].date()
    assert conversation_start(times, GAP) == late


def test_a_tiny_gap_setting_splits_every_pause():
    assert conversation_start([at(0), at(0.02)], timedelta(minutes=0.5)) == at(0.02)


def test_one_pass_reads_one_conversation_and_replies_go_with_it():
    pending = [message("user", 0, 1), message("assistant", 0.01, 2), message("user", 1, 3),
               message("assistant", 4.5, 4), message("user", 5, 5), message("user", 5.5, 6)]
    assert [m["id"] for m in first_conversation(pending, GAP)] == [1, 2, 3, 4]
    assert [m["id"] for m in first_conversation(pending[4:], GAP)] == [5, 6]
    assert first_conversation([message("assistant", 0)], GAP) == [message("assistant", 0)]


def test_a_pass_continues_the_latest_line_only_within_the_gap():
    latest = Topic("exam", at(0), at(1), id=4)
    assert continues(latest, at(3.5), GAP)
    assert not continues(latest, at(4.5), GAP)
    assert not continues(None, at(1), GAP)
    assert not continues(latest, at(0.5), GAP)  # an older message than the line: not a continuation


def test_merging_passes_the_last_line_wins_and_the_conversation_reaches_further():
    ongoing = Topic("волнуется перед экзаменом", at(0), at(1), id=4)
    merged = conversation_topic("волнуется перед экзаменом; смотрела квартиру", ongoing, [at(2), at(2.5)])
    assert merged == Topic("волнуется перед экзаменом; смотрела квартиру", at(0), at(2.5), id=4)
    kept = conversation_topic(None, ongoing, [at(3)])  # nothing new to say: the line stays, its end moves
    assert kept == Topic("волнуется перед экзаменом", at(0), at(3), id=4)


def test_a_new_conversation_gets_a_new_line_and_small_talk_none():
    assert conversation_topic("flat viewing", None, [at(7), at(8)]) == Topic("flat viewing", at(7), at(8))
    assert conversation_topic(None, None, [at(7)]) is None
    assert conversation_topic("x", None, []) is None


def test_recalled_lines_are_earlier_conversations_not_carried_from_their_start_newest_first_at_most_three():
    topics = [Topic(f"t{i}", at(24 * i), at(24 * i + 1), id=i) for i in range(6)]  # one a day
    newest_first = topics[::-1]
    started, window = at(24 * 5), at(24 * 4)  # the current one began on day 5; the prompt carries day 4 whole
    assert [t.text for t in recalled_topics(newest_first, started, window, GAP)] == ["t3", "t2", "t1"]
    # The prompt carries only the tail of day 3's conversation: its line is recalled all the same.
    assert [t.text for t in recalled_topics(newest_first, started, at(24 * 3 + 0.5), GAP)] == ["t3", "t2", "t1"]
    assert [t.text for t in recalled_topics(newest_first, started, None, GAP, limit=2)] == ["t4", "t3"]
    assert recalled_topics([], started, window, GAP) == []


def test_the_current_conversations_own_line_is_never_recalled_even_when_the_session_hides_its_start():
    own = Topic("привет; как дела", at(100), at(100.2), id=9)  # written mid-conversation by the extractor
    earlier = Topic("экзамен", at(30), at(31), id=8)
    # The session shows only the newest message: the conversation seems to start at 100.3.
    assert recalled_topics([own, earlier], at(100.3), at(100.3), GAP) == [earlier]
    assert recalled_topics([own, earlier], at(100 + 3.5), None, GAP) == [own, earlier]  # after a real gap


def test_writing_first_recalls_what_the_session_no_longer_shows_from_its_start():
    lines = [Topic("b", at(50), at(51), id=2), Topic("a", at(1), at(2), id=1)]
    assert recalled_topics(lines, None, at(50), timedelta(0)) == [lines[1]]
    assert recalled_topics(lines, None, at(50.5), timedelta(0)) == lines  # b's start is no longer shown
