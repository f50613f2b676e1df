"""The pure rules of the user's clock (memory/time/schedule.py: zones, follow-up times) and of writing first
(services/outreach_policy.py: quiet hours, the daily cap)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from memory.due import DueItem
from memory.facts import Fact
from memory.time.schedule import followup_due, local_zone, next_birthday, normalize_when, plan_followup, user_zone
from services.outreach_policy import Manners, decide, earliest_allowed, quiet_end, recurrence, talked_about

MOSCOW = ZoneInfo("Europe/Moscow")
VLADIVOSTOK = ZoneInfo("Asia/Vladivostok")
MANNERS = Manners(quiet_hours=(22 * 60, 9 * 60), daily_max=1, followup_after_hours=3)


def at(text: str, zone: ZoneInfo = MOSCOW) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=zone)


def item(kind: str = "checkin", due: str = "2026-11-30T12:00", **fields) -> DueItem:
    return DueItem(kind=kind, user_id=1, due_at=at(due), **fields)


# ---- the user's zone ------------------------------------------------------------------------------


def test_a_chosen_zone_comes_before_the_city_and_the_default():
    assert user_zone({"timezone": "Asia/Tokyo"}, "Москва", "UTC") == ("Asia/Tokyo", "command")


def test_the_city_gives_the_zone_when_none_was_chosen():
    assert user_zone({}, "Владивосток", "UTC") == ("Asia/Vladivostok", "city")
    assert user_zone({"timezone": None}, "Novosibirsk", "UTC") == ("Asia/Novosibirsk", "city")


def test_the_default_is_used_when_nothing_is_known_or_the_choice_is_broken():
    assert user_zone({}, None, "Europe/Berlin") == ("Europe/Berlin", "default")
    assert user_zone({"timezone": "Mars/Olympus"}, "деревня", "UTC") == ("UTC", "default")
    assert user_zone({"timezone": 42}, None, "UTC") == ("UTC", "default")


def test_local_zone_reads_the_city_fact():
    facts = [Fact("location", "city", "Новосибирск")]
    assert local_zone({}, facts, "UTC").key == "Asia/Novosibirsk"


# ---- dates of facts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-12-04", "2026-12-04"),
        ("2026-12-04T10:00", "2026-12-04T10:00"),
        ("2026-12-04T10:00:30", "2026-12-04T10:00"),
        ("2026-12-04 10:00", "2026-12-04T10:00"),
        ("2026-02-30", None),
        ("2026-12-04T25:00", None),
        ("next friday", None),
        ("", None),
        (None, None),
        (20261204, None),
    ],
)
def test_normalize_when(raw, expected):
    assert normalize_when(raw) == expected


def test_a_follow_up_comes_hours_after_a_time_or_next_morning_after_a_date():
    assert followup_due("2026-12-04T10:00", MOSCOW, 3) == at("2026-12-04T13:00")
    assert followup_due("2026-12-04T10:00", MOSCOW, 1.5) == at("2026-12-04T11:30")
    assert followup_due("2026-12-04", MOSCOW, 3) == at("2026-12-05T10:00")
    assert followup_due("2026-12-31", MOSCOW, 3) == at("2027-01-01T10:00")


def test_plans_ahead_get_a_follow_up_and_plans_already_over_do_not():
    exam = Fact("plans", "plan:exam", "экзамен", when="2026-12-04T10:00")
    now = at("2026-11-30T19:40")
    assert plan_followup(exam, MOSCOW, now, 3) == at("2026-12-04T13:00")
    assert plan_followup(replace(exam, when="2026-11-29"), MOSCOW, now, 3) is None  # "yesterday"
    assert plan_followup(replace(exam, when="2026-11-30"), MOSCOW, now, 3) == at("2026-12-01T10:00")  # today
    assert plan_followup(replace(exam, when=None), MOSCOW, now, 3) is None
    assert plan_followup(replace(exam, category="career"), MOSCOW, now, 3) is None  # only plans


def test_a_birthday_is_greeted_on_its_next_day():
    now = at("2026-11-30T19:40")
    birthday = Fact("personal", "birthday", "12 мая", when="1990-05-12")
    assert plan_followup(birthday, MOSCOW, now, 3) == at("2027-05-12T10:00")
    assert next_birthday("1990-11-30", MOSCOW, at("2026-11-30T12:00")) == at("2026-11-30T10:00")  # today, still
    assert next_birthday("1990-11-30", MOSCOW, at("2026-11-30T20:30")) == at("2027-11-30T10:00")  # window over
    assert next_birthday("2000-02-29", MOSCOW, now) == at("2027-02-28T10:00")
    assert next_birthday("2000-02-29", MOSCOW, at("2027-12-01T00:00")) == at("2028-02-29T10:00")
    assert next_birthday("not a date", MOSCOW, now) is None


def test_a_birthday_comes_back_next_year_and_nothing_else_does():
    birthday = item("birthday", due="2026-05-12T10:00", when="1990-05-12")
    assert recurrence(birthday, MOSCOW) == at("2027-05-12T10:00")
    assert recurrence(item("followup", when="2026-05-12"), MOSCOW) is None


# ---- quiet hours and the day window ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        ("2026-11-30T21:59", None),
        ("2026-11-30T22:00", "2026-12-01T09:00"),
        ("2026-11-30T23:30", "2026-12-01T09:00"),
        ("2026-12-01T03:00", "2026-12-01T09:00"),
        ("2026-12-01T08:59", "2026-12-01T09:00"),
        ("2026-12-01T09:00", None),
    ],
)
def test_quiet_hours_across_midnight(local, expected):
    end = quiet_end(at(local), (22 * 60, 9 * 60))
    assert end == (at(expected) if expected else None)


def test_quiet_hours_within_one_day_and_none():
    assert quiet_end(at("2026-11-30T14:30"), (13 * 60, 15 * 60)) == at("2026-11-30T15:00")
    assert quiet_end(at("2026-11-30T15:00"), (13 * 60, 15 * 60)) is None
    assert quiet_end(at("2026-11-30T03:00"), None) is None


def test_earliest_allowed_respects_both_quiet_hours_and_the_window():
    quiet = (22 * 60, 9 * 60)
    assert earliest_allowed(at("2026-11-30T23:00"), quiet, (10, 20)) == at("2026-12-01T10:00")
    assert earliest_allowed(at("2026-11-30T20:30"), quiet, (10, 20)) == at("2026-12-01T10:00")
    assert earliest_allowed(at("2026-11-30T09:30"), quiet, None) == at("2026-11-30T09:30")
    assert earliest_allowed(at("2026-11-30T09:30"), quiet, (10, 20)) == at("2026-11-30T10:00")


def test_quiet_hours_are_the_users_own():
    # 12:00 UTC is 15:00 in Moscow but 22:00 in Vladivostok.
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    assert decide(item(), now, MANNERS, MOSCOW).action == "send"
    later = decide(item(), now, MANNERS, VLADIVOSTOK)
    assert later.action == "later" and later.at == at("2026-12-01T09:00", VLADIVOSTOK)


# ---- decisions ------------------------------------------------------------------------------------


def test_a_due_check_in_is_sent_in_the_day():
    assert decide(item(), at("2026-11-30T12:00"), MANNERS, MOSCOW).action == "send"


def test_the_daily_cap_moves_it_to_the_next_morning():
    capped = item(proactive_day="2026-11-30", proactive_count=1)
    decision = decide(capped, at("2026-11-30T12:00"), MANNERS, MOSCOW)
    assert decision.action == "later" and decision.at == at("2026-12-01T09:00")
    yesterday = item(proactive_day="2026-11-29", proactive_count=1)
    assert decide(yesterday, at("2026-11-30T12:00"), MANNERS, MOSCOW).action == "send"
    two_a_day = replace(MANNERS, daily_max=2)
    assert decide(capped, at("2026-11-30T12:00"), two_a_day, MOSCOW).action == "send"


def test_opted_out_users_get_nothing_and_memory_off_stops_follow_ups_only():
    now = at("2026-11-30T12:00")
    assert decide(item(settings={"checkins": "off"}), now, MANNERS, MOSCOW).action == "drop"
    followup = item("followup", due="2026-11-30T11:00", when="2026-11-30T08:00", settings={"memory": "off"})
    assert decide(followup, now, MANNERS, MOSCOW).action == "drop"
    assert decide(item(settings={"memory": "off"}), now, MANNERS, MOSCOW).action == "send"


def test_a_follow_up_more_than_two_days_late_is_dropped():
    followup = item("followup", due="2026-11-30T13:00", when="2026-11-30T10:00")
    assert decide(followup, at("2026-12-02T12:59"), MANNERS, MOSCOW).action == "send"
    assert decide(followup, at("2026-12-02T13:00"), MANNERS, MOSCOW) == decide(
        followup, at("2026-12-09T13:00"), MANNERS, MOSCOW
    )
    assert decide(followup, at("2026-12-02T13:01"), MANNERS, MOSCOW).action == "drop"


def test_a_follow_up_on_a_date_alone_waits_for_the_day_window():
    followup = item("followup", due="2026-12-01T10:00", when="2026-11-30")
    assert decide(followup, at("2026-12-01T10:05"), MANNERS, MOSCOW).action == "send"
    evening = decide(followup, at("2026-12-01T20:30"), MANNERS, MOSCOW)
    assert evening.action == "later" and evening.at == at("2026-12-02T10:00")


def test_a_late_birthday_is_dropped_to_next_year():
    birthday = item("birthday", due="2026-05-12T10:00", when="1990-05-12")
    assert decide(birthday, at("2026-05-12T11:00"), MANNERS, MOSCOW).action == "send"
    late = decide(birthday, at("2026-05-13T11:00"), MANNERS, MOSCOW)
    assert late.action == "drop" and late.at == at("2027-05-12T10:00")
    capped = replace(birthday, proactive_day="2026-05-12", proactive_count=1)
    assert decide(capped, at("2026-05-12T11:00"), MANNERS, MOSCOW).action == "drop"  # tomorrow is too late


# ---- talked about already -------------------------------------------------------------------------


def test_talked_about_matches_word_forms_not_unrelated_words():
    assert talked_about("экзамен по химии", ["сдала экзамен на отлично!"])
    assert talked_about("экзамен по химии", ["после экзамена пошла гулять"])
    assert talked_about("job interview", ["The interview went fine"])
    assert not talked_about("job interview", ["so interesting day"])
    assert not talked_about("экзамен по химии", ["как дела?"])
    assert not talked_about("экзамен", [])
    assert not talked_about("!!", ["!!"])


def test_talked_about_compares_lemmas_and_stems_not_prefixes():
    assert talked_about("экзамен по химии", ["химия сдана!"])  # "химии" and "химия": one word, 5 letters apart
    assert talked_about("экзамен по химии", ["на экзамене всё было ок"])
    assert not talked_about("презентация на работе", ["купила презент маме"])  # a shared prefix, another word
    assert not talked_about("job interview", ["the interval was long"])
    assert talked_about("job interviews", ["The interview went fine"])
