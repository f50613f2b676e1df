"""The bot's own lines about reminders, in Russian and English: the confirmation, the delivery, the question.

Pure text: every string the user reads about a reminder is here. The language code picks the words ("ru",
"ru-RU" → Russian, anything else → English). Days are said as "сегодня"/"завтра" ("today"/"tomorrow") when
`now` is given, else by weekday and date; times are local, as the reminder holds them.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from memory.reminders.kinds import AskReminder, SetReminder
from memory.reminders.repeat import plural_ru

RU_WEEKDAYS_ON = ("в понедельник", "во вторник", "в среду", "в четверг", "в пятницу", "в субботу", "в воскресенье")
RU_MONTHS = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
             "ноября", "декабря")
EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December")
MARK = "⏰"


def russian(language: str | None) -> bool:
    """True for a Russian language code ("ru", "ru-RU"); anything else is answered in English."""
    return (language or "").lower().startswith("ru")


def confirmation(reminder: SetReminder, language: str, now: datetime | None = None) -> str:
    """Return the line that confirms a reminder: "⏰ Напомню завтра в 09:00: позвонить маме".

    A recurring one says how it repeats and when it first comes: "⏰ Буду напоминать каждый понедельник в 08:00:
    …, первый раз — в понедельник, 7 декабря".
    """
    ru = russian(language)
    at = reminder.at if now is None else reminder.at.astimezone(now.tzinfo)
    task = reminder.task.strip()
    if reminder.repeat is None:
        when = _when(at, now, ru)
        head = f"{MARK} Напомню {when}" if ru else f"{MARK} I'll remind you {when}"
        return f"{head}: {task}" if task else f"{head}."
    first = _when(at, now, ru) if reminder.repeat.clock is None else _day(at, now, ru)  # hourly: say the time
    rule = reminder.repeat.describe(language)
    if ru:
        head = f"{MARK} Буду напоминать {rule}"
        return f"{head}: {task}, первый раз — {first}" if task else f"{head}, первый раз — {first}"
    head = f"{MARK} I'll remind you {rule}"
    return f"{head}: {task}, first {first}" if task else f"{head}, first {first}"


def delivery(task: str, language: str, late: timedelta | None = None) -> str:
    """Return the reminder itself: "⏰ Напоминаю: позвонить маме", and how late it is when the bot was away."""
    ru = russian(language)
    task = task.strip()
    if ru:
        line = f"{MARK} Напоминаю: {task}" if task else f"{MARK} Напоминаю!"
    else:
        line = f"{MARK} Reminder: {task}" if task else f"{MARK} Reminder!"
    if late is None or late < timedelta(minutes=1):
        return line
    span = _span(late, ru)
    return f"{line} (с опозданием на {span}: я был недоступен)" if ru else f"{line} ({span} late: I was unavailable)"


def question(ask: AskReminder, language: str, now: datetime | None = None) -> str:
    """Return the question for a bare hour: "В 07:00 или в 19:00?" (with the days when they differ)."""
    ru = russian(language)
    times = [choice.at if now is None else choice.at.astimezone(now.tzinfo) for choice in ask.choices]
    same_day = len({moment.date() for moment in times}) == 1
    word = "в" if ru else "at"
    said = [f"{word} {moment:%H:%M}" if same_day else _when(moment, now, ru) for moment in times]
    joined = f" {'или' if ru else 'or'} ".join(said)
    return joined[0].upper() + joined[1:] + "?"


# ---- pieces -------------------------------------------------------------------------------------------


def _when(moment: datetime, now: datetime | None, ru: bool) -> str:
    """Return the day and time: "завтра в 09:00", "в пятницу, 5 декабря, в 09:00", "on Friday, 5 December at 09:00"."""
    day = _day(moment, now, ru)
    if not ru:
        return f"{day} at {moment:%H:%M}"
    return f"{day} в {moment:%H:%M}" if day in ("сегодня", "завтра") else f"{day}, в {moment:%H:%M}"


def _day(moment: datetime, now: datetime | None, ru: bool) -> str:
    """Return the day of `moment` in words: "сегодня", "завтра", "в пятницу, 5 декабря", "on Friday, 5 December"."""
    day: date = moment.date()
    if now is not None:
        today = now.date()
        if day == today:
            return "сегодня" if ru else "today"
        if day == today + timedelta(days=1):
            return "завтра" if ru else "tomorrow"
    year = f" {day.year}" if now is not None and day.year != now.year else ""
    if ru:
        return f"{RU_WEEKDAYS_ON[day.weekday()]}, {day.day} {RU_MONTHS[day.month - 1]}{year}"
    return f"on {EN_WEEKDAYS[day.weekday()]}, {day.day} {EN_MONTHS[day.month - 1]}{year}"


def _span(late: timedelta, ru: bool) -> str:
    """Return a delay in words: "25 минут", "2 часа 5 минут", "3 дня"; "25 minutes", "2 hours 5 minutes"."""
    minutes = int(late.total_seconds() // 60)
    days, hours, minutes = minutes // (24 * 60), minutes // 60 % 24, minutes % 60
    if days >= 2:
        return f"{days} {plural_ru(days, 'день', 'дня', 'дней')}" if ru else f"{days} days"
    hours += days * 24
    pieces = []
    if hours:
        pieces.append(f"{hours} {plural_ru(hours, 'час', 'часа', 'часов')}" if ru else _en(hours, "hour"))
    if minutes or not hours:
        pieces.append(f"{minutes} {plural_ru(minutes, 'минуту', 'минуты', 'минут')}" if ru else _en(minutes, "minute"))
    return " ".join(pieces)


def _en(count: int, unit: str) -> str:
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def moment(at: datetime, now: datetime | None, language: str) -> str:
    """Return when a reminder comes, as the confirmation says it: "завтра в 09:00", "on Friday, 5 December at 09:00"
    (for /reminders and the "which one?" buttons), on the clock of `now`'s zone when `now` is given."""
    return _when(at if now is None else at.astimezone(now.tzinfo), now, russian(language))
