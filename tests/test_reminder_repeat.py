"""Repeat: the rule line the store keeps, its next times on the user's wall clock (DST included), its words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from memory.reminders.repeat import Repeat, local, month_day, ordinal_en, plural_ru

BERLIN = ZoneInfo("Europe/Berlin")
MOSCOW = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 12, 3, 10, 15, tzinfo=MOSCOW)  # a Thursday


def at(text: str, zone: ZoneInfo = MOSCOW) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=zone)


def times(rule: str, now: datetime = NOW, count: int = 4) -> list[str]:
    """The first `count` times of `rule` after `now`, as local "YYYY-MM-DD HH:MM"."""
    repeat = Repeat.parse(rule)
    assert repeat is not None, rule
    moment = repeat.first_after(now)
    found = []
    for _ in range(count):
        found.append(moment.strftime("%Y-%m-%d %H:%M"))
        following = repeat.next_after(moment)
        assert following > moment
        moment = following
    return found


# ---- the rule line ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "repeat"),
    [
        ("day 21:00", Repeat("day", clock=(21, 0))),
        ("day/2 21:00", Repeat("day", 2, clock=(21, 0))),
        ("weekdays 07:30", Repeat("weekdays", clock=(7, 30))),
        ("week mon 08:00", Repeat("week", weekdays=(0,), clock=(8, 0))),
        ("week/2 fri 09:00", Repeat("week", 2, (4,), clock=(9, 0))),
        ("week mon,thu 08:00", Repeat("week", weekdays=(0, 3), clock=(8, 0))),
        ("week sat,sun 10:00", Repeat("week", weekdays=(5, 6), clock=(10, 0))),
        ("month 5 12:00", Repeat("month", day=5, clock=(12, 0))),
        ("month/3 31 09:00", Repeat("month", 3, day=31, clock=(9, 0))),
        ("hour", Repeat("hour")),
        ("hour/2", Repeat("hour", 2)),
    ],
)
def test_rules_read_back_what_they_write(rule, repeat):
    assert Repeat.parse(rule) == repeat
    assert repeat.rule() == rule


@pytest.mark.parametrize(
    "text",
    ["", " ", "day", "day 25:00", "day 9:00", "day 21:60", "day/1 21:00", "day/0 21:00", "day/100 21:00",
     "weekdays/2 07:30", "week 08:00", "week mon", "week xyz 08:00", "week thu,mon 08:00", "week mon,mon 08:00",
     "month 08:00", "month 0 08:00", "month 32 08:00", "month 5", "hour 08:00", "hour/2 mon", "year 08:00",
     "DAY 21:00", "day  21:00", "day 21:00 extra", "week mon 08:00;drop table", "🙂", "day\n21:00"],
)
def test_malformed_rules_are_none(text):
    assert Repeat.parse(text) is None


def test_a_rule_that_is_not_text_is_none():
    assert Repeat.parse(None) is None  # type: ignore[arg-type]
    assert Repeat.parse(42) is None  # type: ignore[arg-type]


def test_no_rule_is_too_often():
    assert not any(Repeat.parse(rule).too_often() for rule in ("hour", "hour/2", "day 09:00", "week mon 08:00"))


# ---- next times ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("day 21:00", ["2026-12-03 21:00", "2026-12-04 21:00", "2026-12-05 21:00", "2026-12-06 21:00"]),
        ("day 09:00", ["2026-12-04 09:00", "2026-12-05 09:00", "2026-12-06 09:00", "2026-12-07 09:00"]),
        ("day/2 21:00", ["2026-12-03 21:00", "2026-12-05 21:00", "2026-12-07 21:00", "2026-12-09 21:00"]),
        ("weekdays 07:30", ["2026-12-04 07:30", "2026-12-07 07:30", "2026-12-08 07:30", "2026-12-09 07:30"]),
        ("week mon 08:00", ["2026-12-07 08:00", "2026-12-14 08:00", "2026-12-21 08:00", "2026-12-28 08:00"]),
        ("week thu 10:15", ["2026-12-10 10:15", "2026-12-17 10:15", "2026-12-24 10:15", "2026-12-31 10:15"]),
        ("week thu 10:16", ["2026-12-03 10:16", "2026-12-10 10:16", "2026-12-17 10:16", "2026-12-24 10:16"]),
        ("week/2 fri 09:00", ["2026-12-04 09:00", "2026-12-18 09:00", "2027-01-01 09:00", "2027-01-15 09:00"]),
        ("week mon,thu 08:00", ["2026-12-07 08:00", "2026-12-10 08:00", "2026-12-14 08:00", "2026-12-17 08:00"]),
        ("week/2 mon,thu 08:00", ["2026-12-07 08:00", "2026-12-10 08:00", "2026-12-21 08:00", "2026-12-24 08:00"]),
        ("month 5 12:00", ["2026-12-05 12:00", "2027-01-05 12:00", "2027-02-05 12:00", "2027-03-05 12:00"]),
        ("month 31 09:00", ["2026-12-31 09:00", "2027-01-31 09:00", "2027-02-28 09:00", "2027-03-31 09:00"]),
        ("month 3 09:00", ["2027-01-03 09:00", "2027-02-03 09:00", "2027-03-03 09:00", "2027-04-03 09:00"]),
        ("month/2 30 09:00", ["2026-12-30 09:00", "2027-02-28 09:00", "2027-04-30 09:00", "2027-06-30 09:00"]),
        ("hour/2", ["2026-12-03 12:15", "2026-12-03 14:15", "2026-12-03 16:15", "2026-12-03 18:15"]),
        ("hour", ["2026-12-03 11:15", "2026-12-03 12:15", "2026-12-03 13:15", "2026-12-03 14:15"]),
    ],
)
def test_next_times(rule, expected):
    assert times(rule) == expected


def test_a_repeat_is_planned_from_the_rule_not_from_delivery():
    repeat = Repeat.parse("day 21:00")
    assert repeat.next_after(at("2026-12-03T21:00")) == at("2026-12-04T21:00")
    # delivered late, at 21:37: the next one is still at 21:00
    assert repeat.first_after(at("2026-12-03T21:37")) == at("2026-12-04T21:00")


def test_every_second_week_counts_from_the_first_occurrence():
    repeat = Repeat.parse("week/2 fri 09:00")
    first = repeat.first_after(datetime(2026, 12, 4, 10, 0, tzinfo=MOSCOW))  # Friday, after 09:00
    assert first == at("2026-12-11T09:00")
    assert repeat.next_after(first) == at("2026-12-25T09:00")


def test_first_after_is_strictly_after():
    repeat = Repeat.parse("day 10:15")
    assert repeat.first_after(at("2026-12-03T10:15")) == at("2026-12-04T10:15")
    assert repeat.first_after(at("2026-12-03T10:14")) == at("2026-12-03T10:15")


def test_the_31st_in_a_30_day_month_is_its_last_day():
    repeat = Repeat.parse("month 31 12:00")
    assert repeat.first_after(datetime(2026, 4, 2, tzinfo=MOSCOW)) == at("2026-04-30T12:00")
    assert repeat.next_after(at("2026-04-30T12:00")) == at("2026-05-31T12:00")
    assert repeat.first_after(datetime(2028, 2, 1, tzinfo=MOSCOW)) == at("2028-02-29T12:00")  # a leap year


# ---- daylight saving time -----------------------------------------------------------------------------


def test_a_daily_0230_across_the_spring_change_moves_to_0300_that_night_only():
    assert times("day 02:30", datetime(2026, 3, 27, 12, 0, tzinfo=BERLIN)) == [
        "2026-03-28 02:30", "2026-03-29 03:00", "2026-03-30 02:30", "2026-03-31 02:30"]


def test_a_daily_0230_across_the_autumn_change_is_the_first_0230():
    repeat = Repeat.parse("day 02:30")
    moment = repeat.first_after(datetime(2026, 10, 24, 12, 0, tzinfo=BERLIN))
    assert moment.utcoffset() == timedelta(hours=2)  # summer time: the first of the two 02:30s
    following = repeat.next_after(moment)
    assert following.strftime("%Y-%m-%d %H:%M") == "2026-10-26 02:30"
    assert following.utcoffset() == timedelta(hours=1)
    assert repeat.first_after(moment) == following  # never twice in the repeated hour


def test_wall_clock_rules_keep_the_local_hour_across_changes():
    moments = [Repeat.parse("week sun 09:00").first_after(datetime(2026, 3, 20, 10, 0, tzinfo=BERLIN))]
    moments.append(Repeat.parse("week sun 09:00").next_after(moments[0]))
    assert [moment.hour for moment in moments] == [9, 9]
    assert moments[1].astimezone(UTC) - moments[0].astimezone(UTC) == timedelta(days=7, hours=-1)


def test_hourly_rules_count_real_hours_across_changes():
    repeat = Repeat.parse("hour/2")
    start = datetime(2026, 3, 29, 0, 30, tzinfo=BERLIN)
    moment = repeat.first_after(start)
    assert moment == datetime(2026, 3, 29, 3, 30, tzinfo=BERLIN)  # 02:30 does not exist; two real hours on
    assert moment.astimezone(UTC) - start.astimezone(UTC) == timedelta(hours=2)
    autumn = datetime(2026, 10, 25, 1, 30, tzinfo=BERLIN)
    after = repeat.next_after(autumn)
    assert after.astimezone(UTC) - autumn.astimezone(UTC) == timedelta(hours=2)
    assert after.strftime("%H:%M") == "02:30" and after.utcoffset() == timedelta(hours=1)


def test_local_makes_skipped_times_real():
    assert local(datetime(2026, 3, 29).date(), (2, 0), BERLIN) == datetime(2026, 3, 29, 3, 0, tzinfo=BERLIN)
    assert local(datetime(2026, 3, 29).date(), (2, 59), BERLIN) == datetime(2026, 3, 29, 3, 0, tzinfo=BERLIN)
    assert local(datetime(2026, 3, 29).date(), (3, 0), BERLIN) == datetime(2026, 3, 29, 3, 0, tzinfo=BERLIN)
    moscow = local(datetime(2026, 3, 29).date(), (2, 30), MOSCOW)  # Moscow keeps no summer time
    assert moscow.strftime("%H:%M") == "02:30"


def test_month_day_is_clamped():
    assert month_day(2026, 2, 31).day == 28
    assert month_day(2026, 4, 31).day == 30
    assert month_day(2026, 1, 31).day == 31


# ---- words --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "ru", "en"),
    [
        ("day 21:00", "каждый день в 21:00", "every day at 21:00"),
        ("day/2 21:00", "каждые 2 дня в 21:00", "every 2 days at 21:00"),
        ("day/5 21:00", "каждые 5 дней в 21:00", "every 5 days at 21:00"),
        ("weekdays 07:30", "по будням в 07:30", "every weekday at 07:30"),
        ("week mon 08:00", "каждый понедельник в 08:00", "every Monday at 08:00"),
        ("week wed 08:00", "каждую среду в 08:00", "every Wednesday at 08:00"),
        ("week sun 08:00", "каждое воскресенье в 08:00", "every Sunday at 08:00"),
        ("week/2 fri 09:00", "каждую вторую пятницу в 09:00", "every 2 weeks on Friday at 09:00"),
        ("week/3 tue 09:00", "раз в 3 недели во вторник в 09:00", "every 3 weeks on Tuesday at 09:00"),
        ("week mon,thu 08:00", "по понедельникам и четвергам в 08:00", "every Monday and Thursday at 08:00"),
        ("week mon,wed,fri 08:00", "по понедельникам, средам и пятницам в 08:00",
         "every Monday, Wednesday and Friday at 08:00"),
        ("month 5 12:00", "каждое 5-е число в 12:00", "every month on the 5th at 12:00"),
        ("month/2 21 12:00", "раз в 2 месяца, 21-го числа в 12:00", "every 2 months on the 21st at 12:00"),
        ("hour", "каждый час", "every hour"),
        ("hour/2", "каждые 2 часа", "every 2 hours"),
        ("hour/5", "каждые 5 часов", "every 5 hours"),
    ],
)
def test_describe(rule, ru, en):
    repeat = Repeat.parse(rule)
    assert repeat.describe("ru") == ru
    assert repeat.describe("ru-RU") == ru
    assert repeat.describe("en") == en
    assert repeat.describe("de") == en


@pytest.mark.parametrize(("count", "word"), [(1, "день"), (2, "дня"), (5, "дней"), (11, "дней"), (12, "дней"),
                                             (21, "день"), (22, "дня"), (25, "дней"), (111, "дней")])
def test_plural_ru(count, word):
    assert plural_ru(count, "день", "дня", "дней") == word


@pytest.mark.parametrize(("number", "text"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"),
                                              (12, "12th"), (13, "13th"), (21, "21st"), (22, "22nd"), (31, "31st")])
def test_ordinal_en(number, text):
    assert ordinal_en(number) == text
