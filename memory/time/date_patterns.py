"""Word lists and compiled patterns for the date expressions of memory/time/dates.py.

dates.py decides what an expression means (which day, which hour, whether it names one at all); this module
only knows words: month and weekday names, number words, the halves of the day, and what each part of an
expression looks like in Russian and English.
"""

from __future__ import annotations

import re

I = re.IGNORECASE

# ---- words ------------------------------------------------------------------------------------------

RU_MONTHS = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
              "ноября", "декабря")
EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december")
MONTHS = {name: number for number, name in enumerate(RU_MONTHS, 1)}
MONTHS.update({name: number for number, name in enumerate(EN_MONTHS, 1)})
MONTHS.update({name[:3]: number for number, name in enumerate(EN_MONTHS, 1)})
MONTHS["sept"] = 9
_RU_MONTH = "|".join(RU_MONTHS)
_EN_MONTH = "|".join(EN_MONTHS) + r"|sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec"
WEEKDAYS = {
    "понедельник": 0, "вторник": 1, "среду": 2, "четверг": 3, "пятницу": 4, "субботу": 5, "воскресенье": 6,
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "один": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
    "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10,
}
_NUMBER = r"\d{1,2}|" + "|".join(NUMBERS)
# "утра", "pm", "вечером": which half of the day a bare hour belongs to.
MARKERS = {
    "утра": "morning", "утром": "morning", "с утра": "morning", "am": "morning", "morning": "morning",
    "дня": "day", "днём": "day", "днем": "day", "afternoon": "day",
    "pm": "pm",
    "вечера": "evening", "вечером": "evening", "evening": "evening", "tonight": "evening",
    "ночи": "night", "ночью": "night", "night": "night",
}
# After a number: it counts something else ("в 10 классе", "at 10 percent"), so it is no hour.
_NOT_AN_HOUR = (r"(?!\s*(?:%|процент|класс|раза?\b|лет|год|минут|секунд|этаж|кабинет|аудитор|км|метр|рубл|руб|доллар|"
                r"евро|человек|штук|балл|дн|сут|недел|месяц|числ|-?го\b|-?е\b|percent|years?|people|minutes?|"
                r"seconds?|km|miles|dollars|degrees|pages|times|days?|weeks?|months?|st\b|nd\b|rd\b|th\b|"
                rf"{_RU_MONTH}|{_EN_MONTH}))")

# ---- patterns: each yields one part of an expression --------------------------------------------------

RU_DAY = re.compile(r"\b(?:послезавтра|завтра|сегодня|завтрашн[а-я]+|сегодняшн[а-я]+|послезавтрашн[а-я]+)\b", I)
EN_DAY = re.compile(r"\b(?:(?:the\s+)?day\s+after\s+tomorrow|tomorrow|tmrw|tmr|2morrow|2moro|2mrw|tomorow|tommorow|"
                    r"tommorrow|tomorro|today|tonight|2day|2nite|tonite|"
                    r"this\s+(?:morning|afternoon|evening))\b", I)
RU_WEEKDAY = re.compile(
    r"(?:\b(?:в|во|на)\s+)?(?:(?P<mod>эт(?:у|от|о)|следующ(?:ую|ий|ее)|ближайш(?:ую|ий|ее)|прошл(?:ую|ый|ое)|"
    r"позапрошл[а-я]+|кажд(?:ую|ый|ое))\s+)?"
    r"(?P<weekday>понедельник|вторник|среду|четверг|пятницу|субботу|воскресенье)\b", I)
EN_WEEKDAY = re.compile(
    r"(?:\bon\s+)?(?:(?P<mod>this\s+coming|this|next|coming|last|every|each)\s+)?"
    r"\b(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", I)
RU_DAY_MONTH = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:-?(?:го|е|ое))?\s+(?P<month>{_RU_MONTH})\b"
    r"(?:\s+(?P<year>\d{4})(?:\s*(?:г\b\.?|года\b))?)?", I)
EN_DAY_MONTH = re.compile(
    rf"(?:\bon\s+)?(?:\bthe\s+)?\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{_EN_MONTH})\b\.?"
    r"(?:,?\s+(?P<year>\d{4})\b)?", I)
EN_MONTH_DAY = re.compile(
    rf"(?:\bon\s+)?\b(?P<month>{_EN_MONTH})\b\.?\s+(?:the\s+)?(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.]\d)"
    r"(?:,?\s+(?P<year>\d{4})\b)?", I)
NUMERIC_DATE = re.compile(
    r"(?<![\d.,:/$€£₽])\b(?P<day>[0-3]?\d)\.(?P<month>0[1-9]|1[0-2])(?:\.(?P<year>\d{4}|\d{2}))?(?!\d|\.\d)")
ISO_DATE = re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b")
RU_DAY_OF_MONTH = re.compile(
    r"\b(?P<day>\d{1,2})(?:-?го(?:\s+числа)?|\s+числа)\b(?!\s*(?:этаж|класс|век|ряд|мест|уровн|раз|курс))", I)
EN_DAY_OF_MONTH = re.compile(
    r"(?:\bon\s+)?\bthe\s+(?P<day>\d{1,2})(?:st|nd|rd|th)\b"
    r"(?!\s+(?:floor|time|place|grade|row|century|try|attempt|round|page|chapter|episode|season|lesson|"
    r"anniversary|birthday|street|avenue|day|week|year|hour|minute))", I)
RU_RELATIVE = re.compile(
    rf"\bчерез\s+(?:(?P<count>{_NUMBER}|пару|несколько|полтора|полторы)\s+)?"
    r"(?P<unit>дней|дня|день|сутки|суток|недел[юиь]|недель|месяц|месяца|месяцев|час|часа|часов|год|года|лет)\b", I)
EN_RELATIVE = re.compile(
    rf"\bin\s+(?P<count>{_NUMBER}|a\s+few|a\s+couple(?:\s+of)?|couple\s+of|few|several)\s+"
    r"(?P<unit>days?|weeks?|months?|hours?|years?)\b"
    rf"|\b(?P<count2>{_NUMBER})\s+(?P<unit2>days?|weeks?)\s+from\s+(?:now|today)\b", I)
# Parts of the day: alone they say nothing, beside a day or an hour they tell its half.
RU_PART_OF_DAY = re.compile(r"\b(?:утром|с\s+утра|дн[её]м(?!\s+рожден)|вечером|ночью)\b", I)
EN_PART_OF_DAY = re.compile(r"\b(?:in\s+the\s+)?(?:morning|afternoon|evening)\b|\b(?:at\s+)?night\b", I)
RU_CLOCK = re.compile(
    r"\b(?P<prep>в|во|на)\s+(?P<hour>\d{1,2})(?:(?P<sep>[:.])(?P<minute>\d{2}))?(?!\d)"
    r"(?P<unit>\s*(?:часов|часа|час|ч)\b\.?)?(?:\s+(?P<marker>утра|дня|вечера|ночи)\b)?" + _NOT_AN_HOUR, I)
EN_CLOCK = re.compile(
    r"\b(?:at|@)\s+(?P<hour>\d{1,2})(?:(?P<sep>:|\.(?=[0-5]\d(?![\d.,])))(?P<minute>\d{2}))?(?!\d)"
    r"(?:\s*(?P<marker>[ap]\.?\s?m\b\.?))?(?P<unit>\s+o['’]?clock\b)?" + _NOT_AN_HOUR, I)
AMPM_CLOCK = re.compile(r"\b(?P<hour>\d{1,2})(?:(?P<sep>:)(?P<minute>\d{2}))?\s*(?P<marker>[ap]\.?m\b\.?)", I)
BARE_CLOCK = re.compile(r"(?<![\d:.])\b(?P<hour>[01]?\d|2[0-3])(?P<sep>:)(?P<minute>[0-5]\d)\b(?![:.]?\d)")
NOON = re.compile(r"\b(?:(?:at\s+)?(?:noon|midday)|в\s+полдень)\b", I)
# Expressions that name no single day ahead: past, recurring, vague. Found so they are not read otherwise.
VOID = re.compile(
    r"\b(?:позавчера|вчера|вчерашн[а-я]*|на\s+прошлой\s+неделе|в\s+прошлом\s+(?:месяце|году)|"
    r"(?:\d+|[а-я]+)\s+(?:дн[а-я]*|недел[а-я]*|месяц[а-я]*|лет|год[а-я]*|час[а-я]*)\s+назад|"
    r"(?:день|неделю|месяц|год|час)\s+назад|недавно|на\s+днях|"
    r"в\s+(?:этом|следующем)\s+(?:месяце|году)|"
    r"(?:в|на)\s+(?:эти\s+|ближайшие\s+|следующие\s+)?выходн[а-я]+|скоро|вскоре|в\s+ближайш[а-я]+\s+(?:время|дни)|"
    r"по\s+(?:понедельникам|вторникам|средам|четвергам|пятницам|субботам|воскресеньям|выходным|будням|утрам|"
    r"вечерам|ночам)|кажд(?:ый|ую|ое|ые)\s+[а-я]+|ежедневно|еженедельно|через\s+день|"
    r"в\s+(?:январе|феврале|марте|апреле|мае|июне|июле|августе|сентябре|октябре|ноябре|декабре)|"
    r"(?:этим\s+|следующим\s+)?(?:летом|зимой|весной|осенью)|"
    r"в\s+(?:конце|начале|середине)\s+[а-я]+|когда-нибудь|как-нибудь|в\s+полночь|"
    r"(?:the\s+)?day\s+before\s+yesterday|yesterday|last\s+(?:night|week|month|year|weekend|time)|"
    r"(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|several)\s+"
    r"(?:days?|weeks?|months?|years?|hours?)\s+ago|recently|the\s+other\s+day|"
    r"(?:this|next)\s+(?:month|year)|(?:this|next|the|on\s+the|at\s+the|over\s+the)\s+weekend|"
    r"(?:on\s+)?weekends|(?:on\s+)?(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|"
    r"soon|someday|some\s+day|one\s+day|sometime|daily|weekly|every\s+\w+|each\s+(?:day|week|morning|evening)|"
    rf"in\s+(?:{'|'.join(EN_MONTHS)})|(?:this|next|last)\s+(?:summer|winter|spring|fall|autumn)|"
    r"(?:at|by)\s+the\s+end\s+of\s+\w+|(?:at\s+)?midnight)\b", I)
# "next week" and "на следующей неделе" are vague alone, but with a weekday they name its day.
WEEK = re.compile(r"\b(?P<this>на\s+этой\s+неделе|this\s+week)\b|\b(?:на\s+следующей\s+неделе|next\s+week)\b", I)

# Right before an expression: a deadline, a range or the end of one ("до пятницы", "by Friday", "с 12-го").
NOT_A_POINT_BEFORE = re.compile(
    r"(?:\b(?:до|к|ко|по|с|со|от|после|перед|между|from|until|till|til|by|before|after|since|between|through|"
    r"thru|around|about|около|примерно|часов)|\d\s*[-–—]|[~≈])\s*$", I)
# Between two expressions: a range or a choice, so neither is the day.
JOINED = re.compile(r"^\s*(?:or|или|либо|and|и|to|till|until|through|по|до|[-–—/])\s*$", I)
# Right after an expression: a range or a choice ("in a day or two", "Friday-ish").
NOT_A_POINT_AFTER = re.compile(
    r"^(?:\s*(?:or|или|либо|[-–—])\s*(?:\d|one|two|three|a\b|два|две|три|пол)|-?ish\b|\s+назад\b|\s+ago\b)", I)
GROUP_GAP = re.compile(r"^[\s,]*$")
