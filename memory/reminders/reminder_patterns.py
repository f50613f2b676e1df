"""Words and compiled patterns of reminder requests: the asking, the time words the date rules leave out, the
repeats, the zones, and the words around a task.

memory/reminders/times.py and requests.py decide what the words mean; this module only knows what they look
like. Days, dates and most clocks come from memory/time/date_patterns.py, which these extend.
"""

from __future__ import annotations

import re

I = re.IGNORECASE

# ---- numbers --------------------------------------------------------------------------------------------

RU_NUMBERS = {
    "один": 1, "одна": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6,
    "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "одиннадцать": 11, "двенадцать": 12, "тринадцать": 13,
    "четырнадцать": 14, "пятнадцать": 15, "шестнадцать": 16, "семнадцать": 17, "восемнадцать": 18,
    "девятнадцать": 19, "двадцать": 20, "тридцать": 30, "сорок": 40, "пятьдесят": 50, "шестьдесят": 60,
    "девяносто": 90, "сто": 100,
}
EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
}
NUMBERS = {**RU_NUMBERS, **EN_NUMBERS}
_WORD_NUMBER = "|".join(sorted(NUMBERS, key=len, reverse=True))
# "25", "1,5", "двадцать пять", "twenty-five": a count
NUMBER = rf"\d{{1,3}}(?:[.,]\d)?|(?:{_WORD_NUMBER})(?:[\s-]+(?:{_WORD_NUMBER}))?"
# Said instead of a count: the time is vague ("через пару минут", "in a few hours").
VAGUE_COUNT = r"пару|пара|несколько|нескольк[оа]|a\s+few|a\s+couple(?:\s+of)?|couple\s+of|few|several"

# ---- weekdays -------------------------------------------------------------------------------------------

# The first letters of each weekday's every form: "пятниц" is пятница, пятницу, пятницам.
WEEKDAY_STEMS = (
    ("понедельник", 0), ("вторник", 1), ("сред", 2), ("четверг", 3), ("пятниц", 4), ("суббот", 5),
    ("воскресень", 6), ("пн", 0), ("вт", 1), ("ср", 2), ("чт", 3), ("пт", 4), ("сб", 5), ("вс", 6),
    ("mon", 0), ("tue", 1), ("wed", 2), ("thu", 3), ("fri", 4), ("sat", 5), ("sun", 6),
)
_RU_WEEKDAY = r"(?:понедельник|вторник|сред[уа]|четверг|пятниц[уа]|суббот[уа]|воскресенье)"
_RU_WEEKDAYS = r"(?:понедельникам|вторникам|средам|четвергам|пятницам|субботам|воскресеньям)"
_EN_WEEKDAY = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|"
               r"fri|sat|sun)")
_EN_WEEKDAYS = r"(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)"
_RU_SHORT_DAY = r"(?:пн|вт|ср|чт|пт|сб|вс)\.?"
_EN_SHORT_DAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?"
# A list of two or more short weekdays ("mon wed fri 7am", "пн, ср, пт в 8:30", "Mon/Wed/Fri") or of weekdays
# after "по" ("по пн, ср и пт", "по понедельникам и средам"): a timetable, a weekly repeat on those days. A list
# of whole singular names with "on"/"в" ("в четверг и пятницу") is not one: it may be two one-offs, so unclear.
_LIST_JOIN = r"(?:\s*(?:,|/|&|\band\b|\bи\b)\s*|\s+)"
WEEKDAY_LIST = re.compile(
    rf"(?<![\w-])(?:(?:on|в|во)\s+)?(?P<weekdays>{_EN_SHORT_DAY}(?:{_LIST_JOIN}{_EN_SHORT_DAY})+|"
    rf"{_RU_SHORT_DAY}(?:{_LIST_JOIN}{_RU_SHORT_DAY})+)(?![\w-])"
    rf"|\bпо\s+(?P<weekdays2>(?:{_RU_SHORT_DAY}|{_RU_WEEKDAYS})(?:{_LIST_JOIN}(?:по\s+)?(?:{_RU_SHORT_DAY}|{_RU_WEEKDAYS}))*)"
    r"(?![\w-])", I)

# ---- relative times: minutes and hours, counted from now --------------------------------------------------

_RU_MINUTES = r"(?:минут[уы]?|мин\b\.?)"
_RU_HOURS = r"(?:час(?:а|ов)?|ч\b\.?)"
_RU_SECONDS = r"(?:секунд[уы]?|сек\b\.?)"  # "через 30 секунд": a test of the bot, due that many seconds on
RU_RELATIVE = re.compile(
    rf"\bчерез\s+(?:(?P<count>{NUMBER}|{VAGUE_COUNT})\s*)?(?P<unit>{_RU_MINUTES}|{_RU_HOURS}|{_RU_SECONDS})"
    rf"(?:\s+(?:и\s+)?(?P<count2>{NUMBER})\s*(?P<unit2>{_RU_MINUTES}))?"
    r"|\bчерез\s+(?P<half>полчаса|пол\s+часа|полтора\s+часа|полторы\s+минуты|четверть\s+часа)", I)
_EN_MINUTES = r"(?:minutes?|mins?|m\b)"
_EN_HOURS = r"(?:hours?|hrs?|h\b)"
_EN_SECONDS = r"(?:seconds?|secs?\b)"
EN_RELATIVE = re.compile(
    rf"\bin\s+(?:(?P<count>{NUMBER}|{VAGUE_COUNT})\s*)(?P<unit>{_EN_MINUTES}|{_EN_HOURS}|{_EN_SECONDS})"
    rf"(?:\s+(?:and\s+)?(?:(?P<and_half>a\s+half)|(?P<count2>{NUMBER})\s*(?P<unit2>{_EN_MINUTES})))?"
    r"(?:\s+from\s+now)?"
    r"|\bin\s+(?P<half>half\s+an\s+hour|a\s+half\s+hour|half\s+hour|an\s+hour\s+and\s+a\s+half|"
    r"(?:a\s+)?quarter\s+of\s+an\s+hour|a\s+quarter\s+hour)"
    rf"|\b(?P<count3>{NUMBER})\s*(?P<unit3>{_EN_MINUTES}|{_EN_HOURS}|{_EN_SECONDS})\s+from\s+now", I)
HALVES = {"полчаса": 30, "пол часа": 30, "полтора часа": 90, "полторы минуты": 2, "четверть часа": 15,
          "half an hour": 30, "a half hour": 30, "half hour": 30, "an hour and a half": 90,
          "quarter of an hour": 15, "a quarter of an hour": 15, "a quarter hour": 15}
# Counted from now in days and more: the date rules find the day; this says that the clock is now's.
RELATIVE_DAY = re.compile(
    r"\bчерез\s+(?:\S+\s+)?(?:дн|день|сут|недел|месяц)|\bin\s+\S+\s+(?:days?|weeks?|months?)\b|\bfrom\s+now\b", I)
SAME_TIME = re.compile(
    r"\bв\s+(?:это\s+же|то\s+же(?:\s+самое)?|это)\s+время\b|\b(?:at\s+)?(?:the\s+)?same\s+time\b|\bat\s+this\s+time\b",
    I)

# ---- clocks the date rules leave out ------------------------------------------------------------------

# A counting word after a number: it is no hour ("в 2 раза", "at 5 percent").
_NOT_AN_HOUR = (r"(?!\s*(?:%|процент|класс|раз\b|раза|лет\b|год|минут|мин\b|секунд|этаж|кабинет|аудитор|км|метр|рубл|"
                r"руб|доллар|евро|человек|штук|балл|дн|сут|недел|месяц|числ|-?го\b|-?е\b|percent|years?|people|"
                r"minutes?|mins?\b|seconds?|km|miles|dollars|degrees|pages|times|days?|weeks?|months?|st\b|nd\b|"
                r"rd\b|th\b))")
_RU_HOUR_WORD = (r"(?:час|один|два|три|четыре|пять|шесть|семь|восемь|девять|десять|одиннадцать|двенадцать|"
                 r"тринадцать|четырнадцать|пятнадцать|шестнадцать|семнадцать|восемнадцать|девятнадцать|"
                 r"двадцать(?:\s+(?:один|два|три))?)")
RU_WORD_CLOCK = re.compile(
    rf"\b(?:в|во)\s+(?P<hour>{_RU_HOUR_WORD})(?:\s+(?:часов|часа))?"
    r"(?:\s+(?P<minute>ноль\s+пять|десять|пятнадцать|двадцать(?:\s+пять)?|тридцать(?:\s+пять)?|сорок(?:\s+пять)?|"
    r"пятьдесят(?:\s+пять)?))?"
    r"(?:\s+(?P<marker>утра|дня|вечера|ночи))?\b" + _NOT_AN_HOUR, I)
_EN_HOUR_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
EN_WORD_CLOCK = re.compile(
    rf"\bat\s+(?P<hour>{_EN_HOUR_WORD})(?:[\s-]+(?P<minute>fifteen|thirty|forty[\s-]five|o['’]?clock))?"
    r"(?:\s*(?P<marker>[ap]\.?\s?m\b\.?))?" + _NOT_AN_HOUR, I)
RU_GENITIVE_HOURS = {
    "первого": 1, "второго": 2, "третьего": 3, "четвертого": 4, "четвёртого": 4, "пятого": 5, "шестого": 6,
    "седьмого": 7, "восьмого": 8, "девятого": 9, "десятого": 10, "одиннадцатого": 11, "двенадцатого": 12,
}
_RU_GENITIVE_HOUR = "|".join(RU_GENITIVE_HOURS)
# "в полвосьмого", "в половине восьмого": half an hour before eight.
RU_HALF_CLOCK = re.compile(
    rf"\b(?:в\s+)?(?:пол|половине\s+)(?P<hour>{_RU_GENITIVE_HOUR})(?:\s+(?P<marker>утра|дня|вечера|ночи))?\b", I)
# "в 10 минут восьмого", "в четверть восьмого", "двадцать пять минут девятого": minutes past the hour before the
# named one. The minutes are a count of minutes (a word "минут" after them), or "четверть".
_RU_MINUTES_SAID = (r"(?:\d{1,2}|одну|пять|десять|пятнадцать|двадцать(?:\s+пять)?|тридцать|сорок(?:\s+пять)?|"
                    r"пятьдесят(?:\s+пять)?)")
RU_PAST_CLOCK = re.compile(
    rf"\b(?:(?:в|во)\s+)?(?:(?P<quarter>четверть)|(?P<minute>{_RU_MINUTES_SAID})\s+минут[уы]?)\s+"
    rf"(?P<hour>{_RU_GENITIVE_HOUR})(?:\s+(?P<marker>утра|дня|вечера|ночи))?\b", I)
# "без четверти восемь", "без десяти 7 вечера", "без 5 минут девять": minutes before the named hour.
RU_TO_CLOCK = re.compile(
    r"\b(?:(?:в|во)\s+)?без\s+(?:(?P<quarter>четверти)|(?P<minute>\d{1,2}|одной|пяти|десяти|пятнадцати|"
    r"двадцати(?:\s+пяти)?)(?:\s+минут[ыи]?)?)\s+"
    r"(?P<hour>1[0-2]|[1-9]|час|один|два|три|четыре|пять|шесть|семь|восемь|девять|десять|одиннадцать|двенадцать)"
    r"(?:\s+(?P<marker>утра|дня|вечера|ночи))?\b(?!\s*(?:[:.]\d|минут|мин\b|%|руб|процент))", I)
RU_TO_MINUTES = {"одной": 1, "пяти": 5, "десяти": 10, "пятнадцати": 15, "двадцати": 20, "двадцати пяти": 25}
EN_HALF_CLOCK = re.compile(
    rf"\b(?:at\s+)?(?:a\s+)?(?P<part>half|quarter)\s+(?P<way>past|to)\s+(?P<hour>{_EN_HOUR_WORD}|\d{{1,2}})"
    r"(?:\s*(?P<marker>[ap]\.?\s?m\b\.?))?", I)
# Time words left in a task after the time was read: the rules did not read them, so the time is not certain
# ("около восьми утра", "к 8", "после девяти", "around 7ish", "by 6pm"). The request goes to the model.
_RU_HOUR_GENITIVE_CARDINAL = (r"(?:часу|двух|тр[её]х|четыр[её]х|пяти|шести|семи|восьми|девяти|десяти|одиннадцати|"
                              r"двенадцати)")
TIME_LEFT = re.compile(
    r"^\d{2}\b|\b(?:утра|вечера|ночи|o['’]?clock|[ap]\.?m\b\.?|\d{1,2}\s*(?:ish|[ap]\.?m\b\.?|ч\b\.?)|часик(?:ов|а)|"
    r"(?:к|около|после|примерно|ближе\s+к|до|с)\s+(?:\d{1,2}(?=\s*(?:$|[,.!?;:)]|(?:утра|вечера|дня|ночи|час|ч)\b|"
    r"\s(?:[а-яё]+(?:ть|ти|чь|ться|тись)|и|а|или|надо|нужно)\b))|" + _RU_HOUR_GENITIVE_CARDINAL + r"\b)|"
    rf"(?:в|во|к|около|после|до)\s+(?:{_RU_GENITIVE_HOUR})\b|"
    r"(?:around|about|by|after|before|till|until|at)\s+(?:\d{1,2}(?![\d.,/%]|\s*(?:kg|lbs?|percent|people|times|"
    r"st\b|nd\b|rd\b|th\b|days?|weeks?|months?|years?))|" + _EN_HOUR_WORD + r"\b)|"
    r"(?:a\s+)?(?:quarter|half)\s+(?:past|to|after)\b)", I)
# "в 23 50", "at 18 30", "в 23 часа 50 минут": hours and minutes with a space between (a phone's keyboard
# without ":"). The minutes are two digits, and a counting word after them makes them no minutes ("в 5 10 раз").
SPACED_CLOCK = re.compile(
    r"\b(?:в|во|на|at)\s+(?P<hour>[01]?\d|2[0-3])(?:\s+(?:часа|часов|час|ч\.?)|\s*h)?\s+(?P<minute>[0-5]\d)(?!\d)"
    r"(?:\s+(?:минут[уы]?|мин\b\.?))?(?:\s*(?P<marker>[ap]\.?\s?m\b\.?|утра|дня|вечера|ночи\b))?" + _NOT_AN_HOUR, I)
# "@ 9", "@5pm": the sign for "at", before which a word boundary cannot stand.
AT_SIGN_CLOCK = re.compile(
    r"@\s*(?P<hour>\d{1,2})(?:(?P<sep>:)(?P<minute>\d{2}))?(?!\d)(?:\s*(?P<marker>[ap]\.?\s?m\b\.?))?", I)
# "в 24:00", "24:00": the end of the day, which the date rules do not take for an hour.
END_OF_DAY = re.compile(r"\b(?:в|at)\s+24(?:[:.]00)?(?:\s*(?:часа|ч\b\.?))?(?![\d:.])|\b24:00\b", I)
MIDNIGHT = re.compile(r"\b(?:в\s+)?полночь\b|\b(?:at\s+)?midnight\b|\b(?:в\s+)?12\s+ночи\b", I)
NOON = re.compile(r"\b(?:(?:at\s+)?(?:noon|midday)|в\s+полдень|в\s+12\s+дня)\b", I)
# Parts of the day said without an hour; beside an hour they tell its half.
PART_OF_DAY = re.compile(
    r"\b(?:утром|с\s+утра(?:\s+пораньше)?|поутру|утречком|дн[её]м(?!\s+рожден)|в\s+обед|в\s+обеденное\s+время|вечером|"
    r"вечерком|ночью|(?:in\s+the\s+|this\s+)?morning|(?:in\s+the\s+|this\s+)?afternoon|"
    r"(?:in\s+the\s+|this\s+)?evening|tonight|tonite|2nite|(?:at\s+)?night|at\s+lunch(?:\s*time)?|lunchtime"
    r"|during\s+lunch)\b", I)
PART_MARKERS = (("утр", "morning"), ("поутру", "morning"), ("morning", "morning"), ("дн", "day"),
                ("обед", "lunch"), ("afternoon", "day"), ("lunch", "lunch"), ("вечер", "evening"),
                ("evening", "evening"), ("tonight", "evening"),
                ("tonite", "evening"), ("2nite", "evening"), ("ноч", "night"), ("night", "night"))
# Before a clock: a range or a deadline, no moment ("с 9 до 10", "by 5pm").
NOT_A_POINT_BEFORE = re.compile(
    r"(?:\b(?:до|к|ко|с|со|от|после|между|from|until|till|til|by|before|after|between|through|thru)|[-–—])\s*$", I)
# Right after the time words the rules read: more of a time they did not read ("в 23 50", "at 6 30 pm", "в 5
# 10 раз", "at 11am that day"). Then they read only part of the time and must not guess the rest.
LEFT_AFTER_TIME = re.compile(
    r"\s*(?:\d|(?:pm|am|p\.m|a\.m|утра|вечера|ночи|минут\w*|мин|час\w*|секунд\w*|hours?|minutes?|day|days|день|"
    r"дня|дней)\b)", I)
# Anywhere: a day or a time the rules do not read and must not drop ("that day", "в тот же день", "минут за 15",
# "new year's eve", "на Рождество"). A request with these is unclear unless a fix reads them.
UNREAD_TIME = re.compile(
    r"\b(?:that|the\s+same|the\s+next|the\s+following)\s+(?:day|morning|evening|night)\b"
    r"|\b(?:тот|этот|тот\s+же|этот\s+же|тот\s+самый|следующий)\s+день\b"
    r"|\b(?:минут\w*|час\w*|полчаса|дн\w*)\s+за\s+\S"
    # "на"/"for" a holiday is the task's when another day is the reminder's ("завтра купить ёлку на новый год")
    r"|\b(?:(?P<for>for|на)|on|at|by|before|until|till|в|к|до|перед|под)\s+(?:the\s+)?(?:new\s+year|christmas|xmas|easter|"
    r"thanksgiving|halloween|valentine|нов\w+\s+год\w*|новогодн\w+|рождеств\w+|пасх\w+|сочельник\w*|"
    r"(?:my\s+|his\s+|her\s+)?birthday|(?:мой\s+|его\s+|её\s+|ее\s+)?д(?:ень|ня|н[её]м)\s+рождени\w+|др\b)", I)
# A time said relative to something else ("за час до встречи", "after work"), a deadline ("до пятницы", "by 5"),
# or no time in particular ("позже", "later"): a request with these is unclear.
UNCLEAR_TIME = re.compile(
    rf"\bза\s+(?:(?:{NUMBER})\s+)?(?:минут\w*|час\w*|полчаса|день|дня|дней|сутки|недел\w+)\b(?:\s+до\b)?"
    rf"|\b(?:минут\w*|час\w*)\s+за\s+(?:{NUMBER})\b(?:\s+до\b)?"  # "минут за 15 до созвона": about 15 minutes before
    rf"|\b(?:{NUMBER}|half\s+an|an)\s+(?:minutes?|mins?|hours?|days?)\s+before(?:\s+(?:the|my|our)\s+\w+)?\b"
    r"|\b(?:перед|после|before|after)\s+(?:сном|работы|работой|обеда|обедом|ужина|ужином|завтрака|завтраком|"
    r"встречи|встречей|школы|bed|work|lunch|dinner|breakfast|the\s+meeting|school)\b"
    r"|\b(?:до|к|by|before|until|till)\s+(?:завтра|понедельника|вторника|среды|четверга|пятницы|субботы|"
    r"воскресенья|конца\s+\w+|вечера|утра|обеда|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"the\s+end\s+of\s+\w+|tonight|noon|midnight|lunch|\d{1,2}(?::\d{2})?)\b"
    r"|\b(?:позже|попозже|как-нибудь|когда-нибудь|later|afterwards|some\s*time|when\s+i\s+get\s+\w+|"
    r"(?:когда|как)\s+(?:приду|вернусь|буду|проснусь|доеду|выйду)(?:\s+(?:домой|с\s+работы|на\s+работу|в\s+офис))?|"
    r"в\s+течение\s+(?:дня|недели|часа)|"
    r"during\s+the\s+day|sometime\s+(?:today|tomorrow))\b"
    r"|\bчерез\s+(?:\d+\s+(?:лет|года?)|полгода|пол\s+года|несколько\s+лет)\b|\bin\s+(?:\d+|a\s+few)\s+years?\b|"
    r"\bв\s+\d{4}\s+году\b|\bin\s+(?:half\s+a\s+year|six\s+months)\b"
    r"|\b(?:ежегодно|раз\s+в\s+год|каждый\s+год|yearly|annually|every\s+year|once\s+a\s+year)\b", I)

# ---- zones named with a time ("в 9 по Москве", "9am London time") ----------------------------------------

ZONE_ABBREVIATIONS = {
    "мск": "Europe/Moscow", "msk": "Europe/Moscow", "utc": "UTC", "gmt": "UTC", "cet": "Europe/Berlin",
    "cest": "Europe/Berlin", "eet": "Europe/Kyiv", "bst": "Europe/London", "est": "America/New_York",
    "edt": "America/New_York", "cst": "America/Chicago", "cdt": "America/Chicago", "mst": "America/Denver",
    "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles", "гринвичу": "UTC",
}
# Right after a clock: which zone's clock it is.
ZONE_AFTER_CLOCK = re.compile(
    r"^[\s,(]*(?:"
    r"по\s+(?P<adjective>[а-яё-]+(?:ск|цк)ому)(?:\s+времени)?"
    r"|(?:по\s+|by\s+|in\s+)?(?P<abbreviation>(?i:мск|msk|utc|gmt|cet|cest|eet|bst|est|edt|cst|cdt|mst|pst|pdt|"
    r"гринвичу))"
    r"(?P<offset>\s*[+\-−]\s*\d{1,2}(?::?\d{2})?)?(?:\s+времени)?"
    r"|по\s+(?P<city>[А-ЯЁ][а-яё]+(?:-[А-ЯЁ][а-яё]+)?(?:\s+[А-ЯЁ][а-яё]+)?)"
    r"|(?:in\s+)?(?P<city_en>[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)?)\s+time"
    r")\b\)?")
# Anywhere: "по московскому времени" says whose clock without needing to stand beside it.
ZONE_ANYWHERE = re.compile(r"\bпо\s+(?P<adjective>[а-яё-]+(?:ск|цк)ому)\s+времени\b", I)
LOCAL_ADJECTIVES = frozenset({"местному", "моему", "нашему", "своему"})
# Adjectives whose city the stem does not give ("московскому" is not "Москов", which GeoNames has in Idaho).
ZONE_ADJECTIVES = {"московскому": "Europe/Moscow", "питерскому": "Europe/Moscow", "петербургскому": "Europe/Moscow",
                   "киевскому": "Europe/Kyiv", "алматинскому": "Asia/Almaty", "токийскому": "Asia/Tokyo",
                   "лондонскому": "Europe/London", "гринвичскому": "UTC"}

# ---- repeats ------------------------------------------------------------------------------------------

_RU_EVERY = r"(?:кажд(?:ый|ую|ое|ые|ой|ого)|всяк(?:ий|ую|ое))"
_ORDINAL_TWO = r"(?:втор(?:ой|ую|ое|ые)|second|other|2nd|2-?(?:й|ю|е|ой|ую|ое))"
RU_REPEAT = re.compile(
    rf"\b{_RU_EVERY}\s+(?:(?P<count>{NUMBER}|{_ORDINAL_TWO}|{VAGUE_COUNT})\s+)?(?:божий\s+)?"
    rf"(?P<what>{_RU_WEEKDAY}(?:\s*(?:,|и)\s*(?:{_RU_EVERY}\s+)?{_RU_WEEKDAY})*|будний\s+день|будни|"
    r"рабочий\s+день|рабочие\s+дни|выходные|день|дня|дней|сутки|суток|утро|вечер|ночь|недел[юиь]|недель|"
    r"месяц|месяца|месяцев|час|часа|часов|минут[уы]?|секунд[уы]?|полчаса)\b"
    rf"|\bраз\s+в\s+(?:(?P<count2>{NUMBER}|{VAGUE_COUNT})\s+)?(?P<what2>день|дня|дней|сутки|суток|недел[юи]|недель|"
    r"месяц|месяца|месяцев|час|часа|часов|минут[уы]?|полчаса)\b"
    rf"|\bпо\s+(?P<weekdays>{_RU_WEEKDAYS}(?:\s*(?:,|и)\s*(?:по\s+)?{_RU_WEEKDAYS})*)\b"
    r"|\b(?P<weekdays_word>по\s+будням|в\s+будни|по\s+будним\s+дням|по\s+рабочим\s+дням|в\s+рабочие\s+дни|"
    r"с\s+понедельника\s+по\s+пятницу|кроме\s+(?:выходных|субботы\s+и\s+воскресенья))\b"
    r"|\b(?P<weekend>по\s+выходным|на\s+каждых\s+выходных)\b"
    r"|\bпо\s+(?P<parts>утрам|вечерам|ночам)\b"
    r"|\b(?P<adverb>ежедневно|ежечасно|еженедельно|ежемесячно|ежеминутно)\b"
    r"|\b(?P<other_day>через\s+день)\b", I)
# "каждое 5-е число", "5-го числа каждого месяца", "каждый месяц 5-го"
RU_MONTH_DAY = re.compile(
    r"\bкажд(?:ое|ого)\s+(?P<day>\d{1,2})(?:-?(?:е|го|ое))?(?:\s+(?:число|числа))?(?:\s+(?:каждого\s+)?месяца)?\b"
    r"|\b(?P<day2>\d{1,2})(?:-?(?:го|е|ое))?\s+(?:числа\s+)?(?:каждого|всякого)\s+месяца\b"
    r"|\b(?:каждый\s+месяц|ежемесячно)\s+(?P<day3>\d{1,2})(?:-?(?:го|е))?(?:\s+числа)?\b", I)
EN_REPEAT = re.compile(
    rf"\b(?:every|each)\s+(?:(?P<count>{NUMBER}|{_ORDINAL_TWO}|single|{VAGUE_COUNT})\s+)?"
    rf"(?P<what>{_EN_WEEKDAY}(?:\s*(?:,|and|&)\s*(?:every\s+)?{_EN_WEEKDAY})*|"
    r"week\s*days?|work\s*days?|working\s+days?|business\s+days?|weekends?|days?|mornings?|evenings?|nights?|"
    r"afternoons?|weeks?|fortnight|months?|hours?|minutes?|mins?|seconds?|half\s+(?:an\s+)?hour)\b"
    rf"|\b(?:on\s+)?(?P<weekdays>{_EN_WEEKDAYS}(?:\s*(?:,|and|&)\s*{_EN_WEEKDAYS})*)\b"
    r"|\b(?P<weekdays_word>(?:on\s+)?weekdays|(?:on\s+)?workdays|monday\s+(?:to|through|thru|-)\s+friday|"
    r"mon\s*-\s*fri|except\s+(?:on\s+)?weekends)\b"
    r"|\b(?P<weekend>on\s+weekends|weekends)\b"
    r"|\b(?P<parts>(?:in\s+the\s+)?(?:mornings|evenings|afternoons)|at\s+nights)\b"
    r"|\b(?P<adverb>daily|hourly|weekly|monthly|biweekly|fortnightly)\b", I)
EN_MONTH_DAY = re.compile(
    r"\b(?:on\s+)?the\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+)?of\s+(?:every|each|the)\s+month\b"
    r"|\b(?:every|each)\s+(?P<day2>\d{1,2})(?:st|nd|rd|th)(?:\s+(?:day\s+)?of\s+the\s+month)?\b"
    r"|\b(?:every|each)\s+month\s+on\s+the\s+(?P<day3>\d{1,2})(?:st|nd|rd|th)?\b"
    r"|\bmonthly\s+on\s+the\s+(?P<day4>\d{1,2})(?:st|nd|rd|th)?\b", I)

# ---- asking -------------------------------------------------------------------------------------------

RU_ASK = re.compile(
    r"(?P<neg>\bне\s+(?:надо\s+|нужно\s+)?(?:мне\s+)?(?:больше\s+)?)?"
    r"(?P<verb>\bнапомни(?:те)?(?:-ка)?|\bнапоминай(?:те)?(?:-ка)?|\bнапомнишь|\bнапомните\s+ли)\b"
    r"|(?P<modal>\b(?:(?:ты\s+|вы\s+)?(?:можешь|можете|сможешь|сможете|будешь|будете)(?:\s+ли)?|(?:ты\s+|вы\s+)?(?:не\s+)?"
    r"(?:мог|могла|могли)\s+бы|не\s+забудь(?:те)?|прошу(?:\s+тебя|\s+вас)?|попрошу(?:\s+тебя|\s+вас)?|"
    r"будь\s+(?:добр|добра|другом)(?:\s*,)?)(?:\s+[^\s,.!?;:«»\"]+){0,5}?\s+"
    r"(?P<infinitive>напомнить|напоминать)\b)"
    r"|(?P<wish>\bчтобы\s+(?:ты|вы)\s+(?:мне\s+)?(?:напомнил[аи]?|напоминал[аи]?)\b)"
    r"|(?P<keep>\bне\s+(?:дай(?:те)?|давай(?:те)?|позволяй(?:те)?|позволь(?:те)?)\s+(?:мне\s+)?забыть\b)"
    r"|(?P<make>\b(?:поставь(?:те)?|создай(?:те)?|сделай(?:те)?|установи(?:те)?|добавь(?:те)?|заведи(?:те)?|"
    r"запиши(?:те)?)(?:\s+мне)?\s+(?:напоминани[ея]|напоминалк[уи]|напоминалочк[уи])\b"
    r"|\b(?:напоминани[ея]|напоминалк[уи])\s+(?:мне\s+)?(?:поставь|создай|сделай|установи|добавь|заведи)(?:те)?\b)"
    # everyday verbs for a reminder ("пни меня через час", "дёргай меня раз в час"): a request only with a time
    r"|(?P<ping>\b(?:пни|пните|дёрни|дерни|дёрните|дерните|дёргай|дергай|дёргайте|дергайте|толкни|толкните|"
    r"маякни|маякните|тыкни|ткни|разбуди|разбудите|черкни|звякни)\s+(?:мне|меня)\b)",
    I)
# "that day", "в тот же день": the day is said in another clause of the sentence ("In 3 days, ping me at 11am that
# day"), which is then read whole.
THAT_DAY = re.compile(
    r"\b(?:on\s+)?(?:that|the\s+same)\s+day\b|\b(?:в\s+)?(?:тот|этот)(?:\s+же)?\s+(?:самый\s+)?день\b", I)
EN_ASK = re.compile(
    r"(?P<verb>\bremind\s+me)\b"
    r"|(?P<keep>\b(?:don['’]?t|do\s+not|dont)\s+let\s+me\s+forget\b|\bmake\s+sure\s+i\s+(?:don['’]?t\s+forget|"
    r"do\s+not\s+forget|remember)\b)"
    r"|(?P<make>\b(?:set|create|add|make|schedule|put\s+in|setup|set\s+up)\s+(?:me\s+)?(?:up\s+)?(?:a\s+|an\s+)?"
    r"(?:new\s+)?reminder\b|\bi\s+(?:need|want|would\s+like|['’]d\s+like)\s+a\s+reminder\b|"
    r"\b(?:can|could|may)\s+i\s+(?:get|have)\s+a\s+reminder\b)"
    r"|(?P<ping>\b(?:ping|nudge|poke|buzz|text|message)\s+me|\bwake\s+me(?:\s+up)?)\b", I)
_EN_POLITE = (
    "hey hi hello ok okay so and also oh btw pls please plz kindly just then bot buddy yo now again but well right "
    "alright listen um uh maybe possibly"
).split()
_EN_POLITE_PHRASES = [
    "be able to", "i need you to", "i want you to", "i would like you to", "i'd like you to", "id like you to",
    "i need u to", "i want u to", "don't forget to", "dont forget to", "do not forget to", "never forget to",
    "you should", "you could", "you can", "you need to", "you have to", "you must", "mind to",
    "it would be great if you could", "it would be nice if you could", "it would be helpful if you could",
] + [f"{modal} {you}" for modal in ("could", "can", "would", "will", "won't", "wont") for you in ("you", "u", "ya")]
EN_POLITE = sorted({tuple(phrase.split()) for phrase in _EN_POLITE_PHRASES} | {(word,) for word in _EN_POLITE},
                   key=len, reverse=True)


def without_tail(words: str, tail: frozenset[str]) -> str:
    """Return `words` less the punctuation and the `tail` words at their end ("call mom at, please" → "call mom")."""
    pieces = words.rstrip(TAIL_PUNCTUATION).split()
    while pieces and pieces[-1].lower().rstrip(TAIL_PUNCTUATION) in tail:
        pieces.pop()
        pieces = " ".join(pieces).rstrip(TAIL_PUNCTUATION).split()
    return " ".join(pieces)


def only_politeness(words: str) -> bool:
    """True when `words`, said before an English "remind me" in its clause, only greet, soften or ask the bot
    ("hey", "please", "can you", "I need you to"): the asking is then said to the bot, not of someone else."""
    tokens = re.findall(r"[\w']+", words.lower().replace("’", "'"))
    position = 0
    while position < len(tokens):
        phrase = next((phrase for phrase in EN_POLITE if tuple(tokens[position : position + len(phrase)]) == phrase),
                      None)
        if phrase is None:
            return False
        position += len(phrase)
    return True


# A modal question in English: "can you remind me…?", asked of what the bot can do unless it says what and when.
EN_MODAL = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\b", I)
# Before the asking, in its clause: not an order to the bot ("если бы ты мог напомнить", "if you remind me").
RU_NOT_ASKED_BEFORE = re.compile(
    r"\b(?:если|когда|раньше|обычно|иногда|всегда|никогда|он|она|они|оно|мама|папа|жена|муж)\b", I)
# Anywhere before the asking in its sentence: someone else's words.
REPORTED = re.compile(
    r"\b(?:сказал[аи]?|говорит|говорят|говорю|говорил[аи]?|пишет|пишут|написал[аи]?|попросил[аи]?|просит|"
    r"просил[аи]?|спросил[аи]?|спрашивает|ответил[аи]?|прислал[аи]?|велел[аи]?|кричит|said|says|say|told|tells|"
    r"wrote|writes|asked|asks|texted|replied|messaged|sent|goes|went|was\s+like|is\s+like)\b"
    r"(?P<gap>[^.!?]*)$", I)
# Between a reporting verb and the asking: a colon or dash, or a few words at most, make the asking a quote.
REPORTED_GAP = re.compile(r"[:—–]|^[^,;]{0,30}$", I)
# Right after the asking, words that say nothing of what or when: skipped before the words after are judged.
REST_LEAD = re.compile(
    r"^(?:[\s,:—–-]|(?:мне|меня|me|-ка|ка|пожалуйста|please|pls|plz|а|ну|again|ещё\s+раз|еще\s+раз|пожалуй|плиз|"
    r"плз|заранее|обязательно|тоже|также|вовремя|срочно|снова|опять)\b)+", I)
# After the asking: a question about what the user knows, not something to do.
QUESTION_AFTER = re.compile(
    r"^(?:о\s+ч[её]м|об?\s+(?:этом|том)\s*[,?]|как(?:ой|ая|ое|ие|ого|ую|им|ом)?|кто|кого|кому|где|когда|куда|откуда|"
    r"сколько|почему|зачем|чей|чья|чь[её]|чьи|ли|what|what's|whats|who|whom|whose|where|when|how|which|why|"
    r"whether|if|из-за\s+чего|"
    r"(?:во|в|на|по|к|с|со|до|у|о|об|за|из|для|от|при|про)\s+(?:сколько|как(?:ой|ая|ое|ие|ого|ую|им|ом|ому|их)|"
    r"котор(?:ый|ая|ое|ом|ому|ого|ой|ую|ых)|ч[её]м|чему|чего|что|кого|кому|ком)|"
    r"(?:the|my|your|his|her|our|their)|"
    r"(?:do|does|did|is|are|am|was|were|have|has|had|can|could|should|will)\s+(?:i|we|you|there|it|my|our|he|she|they)"
    r")\b", I)
# Another assistant addressed at the start: the words are said to it, or of it ("Siri, remind me…").
OTHER_ASSISTANT = re.compile(
    r"^\W*(?:(?:hey|ok|okay|эй|окей|слушай)\s+)?(?:siri|alexa|google|cortana|bixby|сири|алиса|алекса|маруся|гугл)\b", I)
# "напомни, что я ел вчера": what the user did or said, asked back; "что завтра у мамы день рождения" is a task.
RU_WHAT_WAS = re.compile(
    r"^что\s+(?:(?:я|мы|ты|вы|он|она|они)\s+(?:\w+\s+){0,3}?\w+(?:л|ла|ли|ло|лся|лась|лись|ли)\b"
    r"|(?:у\s+меня\s+)?(?:было|был|была|были)\b)", I)
# Said before a clock in a repeat: where it starts ("каждые 3 часа начиная с 11", "every 3 hours starting at 1pm").
START_BEFORE = re.compile(r"(?:\bначиная\s+(?:с|со)|\bstarting\s+(?:at|from)?|\bbeginning\s+at|\bfrom|\bс|\bсо)\s*$",
                          I)
# With a repeat: a clock said as where it starts ("начиная с 11", "с 9 утра").
START_CLOCK = re.compile(
    r"\b(?:начиная\s+)?(?:с|со)\s+(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?(?:\s+(?P<marker>утра|дня|вечера|ночи))?\b"
    r"(?![:.\d])" + _NOT_AN_HOUR, I)
DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|my|our|your|his|her|their|this|that)\s+$", I)
# Before "чтобы ты напомнил": what makes it a request ("хочу, чтобы…"), unless denied ("не нужно, чтобы…").
WISH_BEFORE = re.compile(r"\b(?:хочу|хотел[аи]?\s+бы|нужно|надо|прошу|попрошу|можно|важно|давай)\b[\s,]*$", I)
WISH_DENIED = re.compile(r"\bне\s+(?:\w+\s+)?(?:хочу|нужно|надо|прошу|важно)\b[\s,]*$", I)
# Around a clock, words that only soften or stress it: cut from the task with the clock.
CLOCK_BEFORE = re.compile(r"\b(?:around|about|approximately|roughly|около|примерно|где-то|ровно|часиков)\s*$", I)
CLOCK_AFTER = re.compile(r"^\s*(?:sharp|ровно|or\s+so|где-то)\b", I)
# "on Wed", "Fri": short English weekdays, which the date rules do not read.
EN_SHORT_WEEKDAY = re.compile(
    r"(?:\b(?i:on)\s+(?:(?i:this|next)\s+)?(?P<day>(?i:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun))"
    r"|\b(?:(?i:this|next)\s+)?(?P<capital>Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun))\b\.?(?!\w)")
# Holidays with one date everywhere the bot is used: (month, day). New Year's Day, Christmas in Russian
# (7 January or 25 December) and Easter are left out: they are unclear (UNREAD_TIME).
HOLIDAY = re.compile(
    r"\b(?:on|at|for|by)\s+(?:the\s+)?(?:(?P<eve>new\s+year['’]?s\s+eve|nye)|(?P<xmas_eve>christmas\s+eve|xmas\s+eve)|"
    r"(?P<xmas>christmas(?:\s+day)?|xmas(?:\s+day)?)|(?P<halloween>halloween))\b(?!\s+(?:tree|party|gift|present|card)s?\b)"
    r"|\b(?:в\s+|на\s+)?(?P<ru_eve>канун\w*\s+нового\s+года|новогодн(?:юю|ей)\s+ночь\w*|новогодний\s+вечер)\b", I)
HOLIDAY_DATES = {"eve": (12, 31), "xmas_eve": (12, 24), "xmas": (12, 25), "halloween": (10, 31), "ru_eve": (12, 31)}
# "в пт", "в следующий вт": a short Russian weekday, the next one after today (or in next week).
RU_SHORT_WEEKDAY = re.compile(
    r"\b(?:в|во)\s+(?:(?:эт(?:от|у|о)|следующ\w+)\s+)?(?P<day>пн|вт|ср|чт|пт|сб|вс)\.?(?![\w-])", I)
# A message forwarded or quoted whole: its words are someone else's.
FORWARDED = re.compile(r"^\s*(?:переслано|пересланное\s+сообщение|forwarded|fwd?\b|fw:)", I)
QUOTED_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)
# "this afternoon": today, said so that the date rules need not read it.
THIS_PART = re.compile(r"\bthis\s+(?:morning|afternoon|evening)\b|\b(?:tonight|tonite|2nite)\b", I)
# After a Russian "напомни, что…": still a task when it says what must be done.
RU_THAT_TASK = re.compile(
    r"\b(?:надо|нужно|пора|должен|должна|должны|необходимо|следует|стоит|обязательно|хочу|собирал[аи]?сь)\b", I)
# Someone other than the user to be reminded: "напомни Маше", "напомни ему".
RU_OTHER_PERSON = re.compile(
    r"^(?:ему|ей|им|тебе|вам|всем|другу|подруге|маме|папе|брату|сестре|мужу|жене|сыну|дочке|дочери|бабушке|"
    r"дедушке|коллеге|коллегам|начальнику|шефу|детям|ребятам|друзьям|людям|[а-яё]+(?:ому|ему))\b"
    r"|^[а-яё]+(?:е|у|ю|ам|ям|ой|ей)\b", I)
_RU_SELF_WORDS = (r"мне|меня|нам|себе|пожалуйста|плиз|пж|пжлст|пожалуйста|про|о|об|обо|насчёт|насчет|что|чтобы|"
                  r"ещё|еще|снова|опять|раз|тоже|завтра|сегодня|позже|потом|утром|днём|днем|вечером|ночью|каждый|"
                  r"каждую|каждое|в|во|на|к|через|по|это|это\s+же|сразу|тогда|после|перед|до|с|за|все|всё|заранее|"
                  r"попозже|также|срочно|обязательно|вовремя|немедленно|еще\s+раз|ещё\s+раз|мой|моё|мое|мою|мои|"
                  r"свой|свою|своё|свое|свои|когда|как|где|кто|куда|сколько|какой|какая|какое|какие|ли|не|ни")
RU_SELF_WORD = re.compile(rf"^(?:{_RU_SELF_WORDS})\b", I)
RU_CAPITALISED = re.compile(r"^[А-ЯЁ][а-яё]+\b")
RU_INFINITIVE = re.compile(r"^[а-яё-]+(?:ть|ться|ти|тись|чь|чься)\b", I)
# The object of a request said without a time: a task ("позвонить маме", "to call mom", "about the gym"),
# unlike a memory question said without a question word ("напомни мой пароль", "remind me my password").
RU_TASK_START = re.compile(
    r"^(?:(?:мне\s+|себе\s+)?(?:[а-яё-]+(?:ть|ться|ти|тись|чь|чься)|про|о|об|обо|насчёт|насчет|что\s+(?:мне\s+)?"
    r"(?:надо|нужно|пора)|чтобы|не\s+забыть|забрать|оплатить|выпить|сходить|позвонить|купить)\b)", I)
EN_TASK_START = re.compile(r"^(?:to|about|that|of|for|re|regarding|[a-z]+ing)\b", I)
RU_TASK_LIKE = re.compile(r"\b[а-яё]{2,}(?:ть|ться|ти|тись|чь|чься)\b", I)
EN_TASK_LIKE = re.compile(r"\bto\s+[a-z]{2,}", I)

# ---- the task: the words left once the asking and the time are cut ---------------------------------------

TASK_LEAD = re.compile(
    r"^(?:[\s,.:;!?—–\-()\"«»“”'…@]|(?:мне|меня|себе|нам|me|us|please|pls|plz|kindly|пожалуйста|плиз|пжлст|пж|"
    r"ну|так|вот|и|а|или|or|and|also|then|ещё|еще|just|once\s+more|again|снова|опять|заранее|обязательно|"
    r"вовремя|срочно|тоже|также|"
    r"о\s+том\s*,?\s*что(?:бы)?|про\s+то\s*,?\s*что(?:бы)?|то\s*,?\s*что(?:бы)?|"
    r"что\s+(?:мне\s+|я\s+)?(?:надо|нужно|нужно\s+будет|надо\s+будет|пора|следует|стоит|должен|должна|необходимо)|"
    r"что(?:бы)?\s+(?:я|мне)|чтобы|что|"
    r"that\s+i\s+(?:need\s+to|have\s+to|should|must|['’]ve\s+got\s+to|got\s+to|gotta|have\s+got\s+to|ought\s+to|"
    r"want\s+to|wanted\s+to|am\s+supposed\s+to|['’]m\s+supposed\s+to|will|['’]ll)|that\s+i|that|"
    r"i\s+(?:need\s+to|have\s+to|should|must)|to|about|of|re|regarding|for|"
    r"про|о|об|обо|насчёт|насчет|на|в|во|at|on|in|by|с|со|со\s+мной|about\s+(?=to\b))(?=[\s,.:;!?]|$))+", I)
# Words that end a task without belonging to it ("…, please", "call mom at", "спасибо"), dropped from its end.
TASK_TAIL = frozenset(
    "please pls plz thanks thx пожалуйста плиз пжлст пж спасибо ок ok okay окей ладно хорошо ага плз at on in by "
    "for to и and или or в во на к с со о об про".split())
TAIL_PUNCTUATION = " \t\n,.:;!?—–-()\"«»“”'…@"
FILLER = re.compile(r"(?<![^\s,])(?:пожалуйста|плиз|плз|пжлст|пжл|пж|please|pls|plz|kindly)(?=[\s,.:;!?]|$)", I)
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+|;\s+")
# Quoted words: «…», “…”, „…“, "…", and '…' opened and closed outside a word (so "don't" opens nothing).
QUOTES = re.compile(r"«[^»]*»|“[^”]*”|„[^“”]*[“”]|\"[^\"]*\"|(?<!\w)'[^'\n]+'(?!\w)")
CLAUSE_BREAK = re.compile(r"[,;:()—–]|\s-\s")

# ---- cancel and move ------------------------------------------------------------------------------------

RU_CANCEL = re.compile(
    r"\b(?:отмени(?:те)?|удали(?:те)?|убери(?:те)?|сотри(?:те)?|выключи(?:те)?|сними(?:те)?|отключи(?:те)?)\s+"
    r"(?:(?:моё|мое|мои|это|эти|все|всё|последнее|своё|свое|то|тот)\s+)?"
    r"(?:напоминани[ея]|напоминаний|напоминалк[уи]|напоминалок)\b(?P<about>.*)"
    r"|\b(?P<stop>(?:больше\s+)?не\s+напоминай(?:те)?(?:\s+мне)?(?:\s+больше)?|не\s+надо(?:\s+мне)?(?:\s+больше)?\s+"
    r"напоминать|хватит(?:\s+мне)?\s+напоминать|перестань(?:те)?(?:\s+мне)?\s+напоминать|"
    r"больше\s+не\s+надо(?:\s+мне)?\s+напоминать)\b(?P<about2>.*)", I)
EN_CANCEL = re.compile(
    r"\b(?:cancel|delete|remove|clear|drop|turn\s+off|kill|scrap)\s+(?:(?:the|my|that|this|all|all\s+my|all\s+the|"
    r"last|the\s+last)\s+)?(?P<before>(?:[\w'-]+\s+){0,3}?)reminders?\b(?P<about>.*)"
    r"|\b(?P<stop>stop\s+reminding\s+me|(?:don['’]?t|do\s+not|dont|never)\s+remind\s+me|"
    r"no\s+more\s+reminders)\b(?P<about2>.*)", I)
CANCEL_ABOUT_LEAD = re.compile(
    r"^(?:[\s,.:;!?—–\-]|(?:про|о|об|обо|насчёт|насчет|что|чтобы|на|для|about|for|to|of|on|re|that|again|anymore|"
    r"any\s+more|больше|мне)(?=[\s,.:;!?]|$))+", I)
CANCEL_ABOUT_TAIL = frozenset("please pls пожалуйста больше anymore again плиз спасибо thanks".split())
# "не напоминай мне, пока не позвоню" and the like are no cancel unless the words name what or say "больше".
RU_MOVE = re.compile(
    r"\b(?:перенеси(?:те)?|передвинь(?:те)?|сдвинь(?:те)?|отложи(?:те)?|переставь(?:те)?)"
    r"(?:\s+(?:мне\s+)?(?:его|её|ее|это|напоминание|напоминалку|последнее(?:\s+напоминание)?))?"
    r"(?=\s+(?:на|в|во|к|через|завтра|послезавтра|сегодня)\b)(?P<rest>.*)", I)
EN_MOVE = re.compile(
    r"\b(?:move|reschedule|push|postpone|shift|snooze|change|delay)"
    r"(?:\s+(?:it|that|this|the\s+reminder|my\s+reminder|the\s+last\s+one|the\s+last\s+reminder))?"
    r"(?:\s+(?:back|forward|off))?(?=\s+(?:to|till|until|for|by|at|on|tomorrow|an?\b|\d)|\s*$)(?P<rest>.*)", I)
SHIFT = re.compile(
    rf"^\s*(?:(?:на|by|for)\s+)?(?:(?P<count>{NUMBER})\s*)?(?P<unit>{_RU_MINUTES}|{_RU_HOURS}|{_EN_MINUTES}|{_EN_HOURS}|"
    r"день|дня|дней|days?|полчаса|half\s+an\s+hour)"
    r"(?:\s+(?P<way>позже|попозже|раньше|пораньше|later|earlier|вперёд|вперед|назад))?\s*[.!]?\s*$", I)
