from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from memory.facts import KEY_PATTERN, Fact
from memory.rules.events import extract_event_facts
from memory.time.dates import find_mentions, find_when, resolve_when
from memory.time.schedule import plan_followup

MOSCOW = ZoneInfo("Europe/Moscow")
# A Monday evening: "Friday" is 4 December, "tomorrow" is 1 December, 09:00 today has passed.
NOW = datetime(2026, 11, 30, 19, 40, tzinfo=MOSCOW)


def at(*fields: int) -> datetime:
    """An aware Moscow datetime."""
    return datetime(*fields, tzinfo=MOSCOW)


def events(text: str, now: datetime = NOW) -> list[tuple[str, str, str | None]]:
    """The plans the event rule finds in `text`, as (key, value, when)."""
    return [(fact.key, fact.value, fact.when) for fact in extract_event_facts(text, now)]


# ---- one table of expressions against NOW --------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "when"),
    [
        # today, tomorrow, the day after, with a time of day
        ("сегодня", "2026-11-30"),
        ("today", "2026-11-30"),
        ("завтра", "2026-12-01"),
        ("tomorrow", "2026-12-01"),
        ("послезавтра", "2026-12-02"),
        ("the day after tomorrow", "2026-12-02"),
        ("завтра в 10", "2026-12-01T10:00"),
        ("завтра в 10:30", "2026-12-01T10:30"),
        ("tomorrow at 10", "2026-12-01T10:00"),
        ("tomorrow at 3pm", "2026-12-01T15:00"),
        ("tomorrow at 10:30am", "2026-12-01T10:30"),
        ("завтра утром в 9", "2026-12-01T09:00"),
        ("tonight at 9", "2026-11-30T21:00"),
        ("в 9 вечера", "2026-11-30T21:00"),
        ("в 10 вечера", "2026-11-30T22:00"),
        ("at 21:00", "2026-11-30T21:00"),
        ("в 11 ночи", "2026-11-30T23:00"),
        ("at noon tomorrow", "2026-12-01T12:00"),
        ("в полдень в среду", "2026-12-02T12:00"),
        ("tmrw at 10", "2026-12-01T10:00"),
        # a bare hour from 1 to 8 may be morning or afternoon: the day is kept, the hour is not
        ("завтра в 3", "2026-12-01"),
        ("tomorrow at 7", "2026-12-01"),
        # weekdays: the next one after today; "this" may be today; "next" is next calendar week
        ("в пятницу", "2026-12-04"),
        ("on Friday", "2026-12-04"),
        ("Friday", "2026-12-04"),
        ("в эту пятницу", "2026-12-04"),
        ("this Friday", "2026-12-04"),
        ("в следующую пятницу", "2026-12-11"),
        ("next Friday", "2026-12-11"),
        ("во вторник", "2026-12-01"),
        ("в понедельник", "2026-12-07"),
        ("this Monday", "2026-11-30"),
        ("next Monday", "2026-12-07"),
        ("в 7 вечера в пятницу", "2026-12-04T19:00"),
        ("Friday at 7pm", "2026-12-04T19:00"),
        ("в пятницу вечером в 7", "2026-12-04T19:00"),
        ("в среду в 10 утра", "2026-12-02T10:00"),
        ("на следующей неделе в пятницу", "2026-12-11"),
        ("next week on Friday", "2026-12-11"),
        # day of month: this month's if still ahead (today counts), else next month's
        ("on the 12th", "2026-12-12"),
        ("12-го", "2026-12-12"),
        ("12 числа", "2026-12-12"),
        ("30-го", "2026-11-30"),
        ("31-го", "2026-12-31"),  # November has no 31st
        # day and month: this year's if ahead, else next year's
        ("12 декабря", "2026-12-12"),
        ("December 12", "2026-12-12"),
        ("12th of December", "2026-12-12"),
        ("Dec 24", "2026-12-24"),
        ("12.12", "2026-12-12"),
        ("12.12.2026", "2026-12-12"),
        ("12 декабря 2026 года", "2026-12-12"),
        ("2026-12-04", "2026-12-04"),
        ("12 января", "2027-01-12"),
        ("Dec 12 at 3pm", "2026-12-12T15:00"),
        # relative
        ("через неделю", "2026-12-07"),
        ("через 3 дня", "2026-12-03"),
        ("через два дня", "2026-12-02"),
        ("через две недели", "2026-12-14"),
        ("через месяц", "2026-12-30"),
        ("in a week", "2026-12-07"),
        ("in 3 days", "2026-12-03"),
        ("in two weeks", "2026-12-14"),
        ("2 weeks from now", "2026-12-14"),
        ("через 2 часа", "2026-11-30T21:40"),
        ("in an hour", "2026-11-30T20:40"),
    ],
)
def test_an_expression_resolves_against_now(expression, when):
    assert resolve_when(expression, NOW) == when


@pytest.mark.parametrize(
    "expression",
    [
        # past
        "вчера", "yesterday", "позавчера", "the day before yesterday", "last Friday", "в прошлую пятницу",
        "3 days ago", "неделю назад", "last week", "на прошлой неделе", "2025-12-04", "12.12.2025",
        "29 ноября",  # passed yesterday: spoken of, not planned eleven months ahead
        # recurring
        "every Friday", "каждую пятницу", "по пятницам", "on Fridays", "каждый день", "on weekends",
        # vague
        "soon", "скоро", "в выходные", "this weekend", "next week", "на следующей неделе", "next month",
        "в декабре", "in December", "на днях", "через пару дней", "in a few days", "через год",
        # ranges, alternatives, deadlines
        "с 12 по 15 декабря", "12-15 декабря", "from Monday to Friday", "в пятницу или в субботу",
        "Friday or Saturday", "by Friday", "до пятницы", "until tomorrow", "in a day or two",
        # times that name no day, or no hour one can trust
        "в 9 утра",  # 09:00 today has passed; tomorrow would be a guess
        "at 3pm", "в 3", "в 2 ночи", "в полночь", "at midnight", "в 15 утра",
        "в 12.12",  # 12:12 or the 12th of December
        # no such day
        "31 февраля",
        # not a date expression at all
        "завтра экзамен", "",
    ],
)
def test_past_recurring_vague_and_ambiguous_expressions_resolve_to_nothing(expression):
    assert resolve_when(expression, NOW) is None


# ---- find_when in running text -------------------------------------------------------------------------


def test_find_when_gives_the_span_and_the_moment():
    text = "Привет! У меня завтра в 10:30 собеседование."
    start, end, when = find_when(text, NOW)
    assert text[start:end] == "завтра в 10:30"
    assert when == "2026-12-01T10:30"


def test_find_when_does_not_read_friday_out_of_last_friday():
    assert find_when("Last Friday was fun", NOW) is None
    assert find_when("в прошлую пятницу", NOW) is None
    start, end, when = find_when("Last Friday was fun, next Friday will be better", NOW)
    assert when == "2026-12-11"


def test_find_when_skips_numbers_that_are_no_hours():
    assert find_when("я учусь в 10 классе", NOW) is None
    assert find_when("it grew at 10 percent", NOW) is None
    assert find_when("в 2026 году", NOW) is None


def test_a_mention_marks_an_hour_it_could_not_place():
    [mention] = find_mentions("завтра в 3", NOW)
    assert mention.hour_dropped and mention.clock is None
    [mention] = find_mentions("завтра в 3 часа дня", NOW)
    assert not mention.hour_dropped and mention.clock == (15, 0)


# ---- the calendar's edges ------------------------------------------------------------------------------


def test_tomorrow_on_new_years_eve_is_next_year():
    assert resolve_when("tomorrow", at(2026, 12, 31, 23, 0)) == "2027-01-01"
    assert resolve_when("завтра в 10", at(2026, 12, 31, 23, 0)) == "2027-01-01T10:00"


def test_a_january_date_said_in_december_is_next_year():
    assert resolve_when("12 января", at(2026, 12, 20, 12, 0)) == "2027-01-12"
    assert resolve_when("05.01", at(2026, 12, 20, 12, 0)) == "2027-01-05"


def test_a_day_of_month_already_past_is_next_months():
    assert resolve_when("5-го", at(2026, 12, 20, 12, 0)) == "2027-01-05"
    assert resolve_when("on the 20th", at(2026, 12, 20, 12, 0)) == "2026-12-20"


def test_leap_days():
    assert resolve_when("tomorrow", at(2028, 2, 28, 12, 0)) == "2028-02-29"
    assert resolve_when("29 февраля", at(2027, 12, 1, 12, 0)) == "2028-02-29"
    assert resolve_when("29 февраля", at(2026, 11, 30, 12, 0)) is None  # 2027 has none
    assert resolve_when("через месяц", at(2027, 1, 31, 12, 0)) is None  # no 31 February
    assert resolve_when("через месяц", at(2028, 1, 29, 12, 0)) == "2028-02-29"


def test_weekdays_said_on_a_sunday():
    sunday = at(2026, 12, 6, 12, 0)
    assert resolve_when("next Monday", sunday) == "2026-12-07"
    assert resolve_when("в понедельник", sunday) == "2026-12-07"
    assert resolve_when("this Sunday", sunday) == "2026-12-06"
    assert resolve_when("в воскресенье", sunday) == "2026-12-13"  # the next one, not today
    assert resolve_when("в следующее воскресенье", sunday) == "2026-12-13"


def test_a_weekday_said_on_that_day_is_a_week_ahead_unless_this():
    friday = at(2026, 12, 4, 9, 0)
    assert resolve_when("в пятницу", friday) == "2026-12-11"
    assert resolve_when("в эту пятницу", friday) == "2026-12-04"
    assert resolve_when("next Friday", friday) == "2026-12-11"


def test_a_time_alone_is_today_only_while_still_ahead():
    morning = at(2026, 11, 30, 8, 0)
    assert resolve_when("в 9 утра", morning) == "2026-11-30T09:00"
    assert resolve_when("в 9 утра", NOW) is None


def test_the_day_is_the_users_local_day():
    tokyo = datetime(2027, 1, 1, 2, 0, tzinfo=ZoneInfo("Asia/Tokyo"))  # still 31 December in London
    assert resolve_when("tomorrow", tokyo) == "2027-01-02"
    assert resolve_when("tomorrow", tokyo.astimezone(ZoneInfo("Europe/London"))) == "2027-01-01"
    assert resolve_when("в 20:00", tokyo.astimezone(ZoneInfo("Europe/London"))) == "2026-12-31T20:00"


# ---- extract_event_facts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "when"),
    [
        ("У меня в пятницу экзамен по химии.", "экзамен по химии", "2026-12-04"),
        ("Завтра экзамен!", "экзамен", "2026-12-01"),
        ("Exam tomorrow. Wish me luck!", "exam", "2026-12-01"),
        ("My interview is tomorrow at 10.", "interview", "2026-12-01T10:00"),
        ("I have a job interview on Friday at 3pm", "job interview", "2026-12-04T15:00"),
        ("Wish me luck, I have an exam tomorrow!", "exam", "2026-12-01"),
        ("My chemistry exam is on the 12th", "chemistry exam", "2026-12-12"),
        ("у мамы день рождения в субботу", "день рождения мамы", "2026-12-05"),
        ("у мамы в субботу день рождения", "день рождения мамы", "2026-12-05"),
        ("my mom's birthday is on Saturday", "mom's birthday", "2026-12-05"),
        ("Завтра иду к стоматологу в 10 утра", "приём у стоматолога", "2026-12-01T10:00"),
        ("Записалась к врачу на пятницу на 9:30", "приём у врача", "2026-12-04T09:30"),
        ("I have a dentist appointment tomorrow at 4pm", "dentist appointment", "2026-12-01T16:00"),
        ("I'm flying to Paris on Friday", "trip to Paris", "2026-12-04"),
        ("Улетаю в пятницу в Турцию", "поездка в Турцию", "2026-12-04"),
        ("Послезавтра защита диплома", "защита диплома", "2026-12-02"),
        ("I start my new job on Monday", "first day at the new job", "2026-12-07"),
        ("Через неделю свадьба!", "свадьба", "2026-12-07"),
        ("Interview at Google tomorrow at 11", "interview", "2026-12-01T11:00"),
        ("иду на концерт Земфиры в субботу", "концерт", "2026-12-05"),
        ("В эту субботу соревнования по плаванию", "соревнования", "2026-12-05"),
        ("у нас с мужем годовщина свадьбы 26 декабря", "годовщина свадьбы", "2026-12-26"),
        ("Вылет 12.12 в 10:40", "вылет", "2026-12-12T10:40"),
        ("Сегодня в 21:00 концерт", "концерт", "2026-11-30T21:00"),
    ],
)
def test_the_users_own_dated_event_is_found(text, value, when):
    [(key, found_value, found_when)] = events(text)
    assert (found_value, found_when) == (value, when)
    assert KEY_PATTERN.match(key) and key.startswith("plan:")


def test_an_event_fact_carries_the_plan_fields():
    [fact] = extract_event_facts("У меня в пятницу экзамен по химии", NOW, message_id=42)
    assert fact.category == "plans"
    assert fact.key == "plan:экзамен_по_химии"
    assert (fact.importance, fact.confidence, fact.source) == (6, 0.9, "rule")
    assert (fact.source_message_id, fact.when) == (42, "2026-12-04")


@pytest.mark.parametrize(
    ("text", "value", "when"),
    [
        ("My birthday is on 14 March", "14 March", "2027-03-14"),
        ("у меня день рождения 14 марта", "14 марта", "2027-03-14"),
        ("мой день рождения в субботу", "5 декабря", "2026-12-05"),
        ("у меня день рождения 12 декабря", "12 декабря", "2026-12-12"),
        ("Мой день рождения — 14 марта", "14 марта", "2027-03-14"),
        ("у меня завтра днюха!", "1 декабря", "2026-12-01"),
        ("It's my birthday tomorrow!", "1 December", "2026-12-01"),
        ("my bday is March 14th", "14 March", "2027-03-14"),
        ("my birthday is tomorrow at 7pm", "1 December", "2026-12-01"),  # the day is kept, not the party's hour
    ],
)
def test_the_users_own_birthday_fills_the_birthday_slot(text, value, when):
    assert extract_event_facts(text, NOW, message_id=7) == [
        Fact(category="personal", key="birthday", value=value, importance=8, confidence=0.9, source="rule",
             source_message_id=7, when=when)
    ]


def test_the_users_own_birthday_is_greeted_on_the_day_not_followed_up_after():
    [fact] = extract_event_facts("мой день рождения в субботу", NOW)
    assert plan_followup(fact, MOSCOW, NOW, 3) == at(2026, 12, 5, 10, 0)
    [plan] = extract_event_facts("у мамы день рождения в субботу", NOW)
    assert plan_followup(plan, MOSCOW, NOW, 3) == at(2026, 12, 6, 10, 0)


@pytest.mark.parametrize(
    ("text", "value", "when"),
    [
        ("у мамы день рождения в субботу", "день рождения мамы", "2026-12-05"),
        ("my mom's birthday is on Saturday", "mom's birthday", "2026-12-05"),
        ("у меня в субботу день рождения мамы", "день рождения мамы", "2026-12-05"),
        ("our anniversary is on Saturday", "anniversary", "2026-12-05"),
        ("у меня завтра юбилей", "юбилей", "2026-12-01"),  # a jubilee may be a firm's or a marriage's
        # a party may be held on another day than the birthday itself
        ("My birthday party is on Saturday", "birthday", "2026-12-05"),
        ("в субботу отмечаю день рождения", "день рождения", "2026-12-05"),
        # someone else's birthday that the user goes to
        ("I'm going to a birthday on Saturday", "birthday", "2026-12-05"),
    ],
)
def test_a_relatives_birthday_an_anniversary_or_a_party_stays_a_plan(text, value, when):
    [fact] = extract_event_facts(text, NOW)
    assert (fact.category, fact.value, fact.when, fact.importance) == ("plans", value, when, 6)
    assert fact.key.startswith("plan:")


def test_two_events_on_one_day_are_both_kept():
    found = {value: when for _, value, when in events("Tomorrow I have an exam and a job interview")}
    assert found == {"exam": "2026-12-01", "job interview": "2026-12-01"}


@pytest.mark.parametrize(
    "text",
    [
        # past
        "I had an exam yesterday",
        "вчера был экзамен",
        "В пятницу был экзамен по химии",
        "The exam was on Monday",
        "Last Friday I went to the dentist",
        # hypothetical, unsure
        "if I had an interview tomorrow",
        "If I had an interview tomorrow I'd totally panic",
        "если бы у меня был экзамен завтра",
        "Наверное, в пятницу пойду к врачу",
        "I might have surgery on Friday",
        # someone else's
        "my friend's exam is tomorrow",
        "у брата завтра экзамен",
        "My sister has a job interview on Monday",
        "Sam has an exam tomorrow",
        "Маша завтра сдаёт экзамен",
        "Завтра у коллеги защита диссертации",
        "У подруги завтра день рождения",  # a friend is no relative
        "My brother's wedding is on Saturday",  # only a relative's birthday or anniversary is the user's
        "my friend's birthday is on Saturday",  # a friend's birthday is neither a plan nor the user's own
        "у друга в субботу день рождения",
        "My birthday was on Saturday",
        "is my birthday on Saturday?",
        # recurring
        "every Friday I have yoga",
        "по пятницам у меня бассейн",
        "Каждый вторник хожу к психологу",
        # questions
        "у тебя завтра экзамен?",
        "do you have an exam tomorrow?",
        "Экзамен завтра ли?",
        # negations and cancellations
        "у меня нет экзамена завтра",
        "I don't have an interview tomorrow",
        "Завтра не экзамен, а консультация",
        "My flight got cancelled, so no trip on Saturday",
        # quoted and reported speech
        "он сказал, что у меня завтра экзамен",
        "«Завтра экзамен», — написала мне одногруппница",
        'She said "my exam is tomorrow"',
        # vague, ranges, alternatives, two days
        "На следующей неделе собеседование",
        "Экзамены с 21 по 25 декабря",
        "The interview is either Monday or Tuesday",
        "Вчера сдала химию, а завтра экзамен по физике",
        # an hour that cannot be placed: the when would be coarser than what was said
        "Завтра в 3 собеседование",
        # about the event, not the event
        "My exam results come out tomorrow",
        # no event word
        "Завтра буду весь день дома",
    ],
)
def test_look_alikes_give_no_event(text):
    assert events(text) == []


def test_each_sentence_is_judged_on_its_own():
    found = events("Вчера был ужасный день. Зато завтра собеседование в 11!")
    assert [(value, when) for _, value, when in found] == [("собеседование", "2026-12-01T11:00")]


def test_an_event_today_that_is_still_today_is_kept_and_a_past_date_is_not():
    assert [when for *_, when in events("Сегодня экзамен")] == ["2026-11-30"]
    assert events("Экзамен 2026-11-29") == []


def test_a_run_on_wall_of_text_is_not_judged():
    # No full stop in 400+ characters: pasted text, whose owner and tense cannot be told.
    assert events("Завтра экзамен " + "и ещё одно и ещё " * 30) == []
    assert events("Завтра экзамен. " + "и ещё одно и ещё " * 30) != []
