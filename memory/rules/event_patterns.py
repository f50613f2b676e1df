"""Event words and the guards around them, for the dated-event rule in memory/rules/events.py.

events.py decides (is this the user's own event, on one day from today on?); this module only knows
words: what each event is called and the name it is kept under ("экзамена по химии" -> "экзамен по химии"),
how a relative's birthday is said, and which words make a sentence unsure, past, cancelled, habitual or
someone else's.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memory.rules import fact_patterns as p
from memory.rules import kin_patterns as kin

I = re.IGNORECASE

# ---- events: (pattern, value) ------------------------------------------------------------------------

_EXAM_TOPICS_EN = p.words("""
chemistry physics math maths biology history english french german spanish russian chinese italian law
economics statistics stats calculus algebra geometry literature philosophy psychology anatomy driving bar
entrance final finals oral written language piano theory programming accounting finance medical board
""")
DOCTORS_RU = ("врач", "доктор", "стоматолог", "терапевт", "гинеколог", "окулист", "офтальмолог", "невролог",
              "кардиолог", "хирург", "лор", "ортодонт", "дерматолог", "эндокринолог", "уролог", "психотерапевт",
              "психолог", "педиатр", "ортопед", "маммолог", "гастроэнтеролог", "аллерголог", "физиотерапевт")
_DOCTOR_RU = "|".join(DOCTORS_RU)
_APPOINTMENTS_EN = {"doctor": "doctor's appointment", "dentist": "dentist appointment", "dental": "dentist appointment",
               "gp": "GP appointment", "vet": "vet appointment", "therapist": "therapist appointment",
               "optician": "optician appointment", "dermatologist": "dermatologist appointment",
               "gynecologist": "gynecologist appointment", "orthodontist": "orthodontist appointment",
               "physio": "physio appointment", "hospital": "hospital appointment", "clinic": "clinic appointment",
               "eye doctor": "eye doctor appointment", "hair": "hair appointment", "haircut": "haircut"}
_APPOINTMENT_EN = r"eye\s+doctor|doctor|dentist|dental|gp|vet|therapist|optician|dermatologist|gynecologist|" \
             r"orthodontist|physio|hospital|clinic|hair|haircut"
RU_NOMINATIVE = {
    "экзамен": "экзамен", "зачёт": "зачёт", "зачет": "зачёт", "контрольн": "контрольная", "егэ": "ЕГЭ", "огэ": "ОГЭ",
    "поездк": "поездка", "рейс": "рейс", "вылет": "вылет", "перелёт": "перелёт", "перелет": "перелёт",
    "командировк": "командировка", "отпуск": "отпуск", "концерт": "концерт", "спектакл": "спектакль",
    "презентаци": "презентация", "доклад": "доклад", "выступлени": "выступление", "соревновани": "соревнования",
    "турнир": "турнир", "матч": "матч", "забег": "забег", "марафон": "марафон", "олимпиад": "олимпиада",
    "чемпионат": "чемпионат", "свадьб": "свадьба", "операци": "операция", "собеседовани": "собеседование",
    "переезд": "переезд", "юбиле": "юбилей", "годовщина свадьбы": "годовщина свадьбы",
    "годовщину свадьбы": "годовщина свадьбы", "годовщины свадьбы": "годовщина свадьбы", "годовщин": "годовщина",
    "днюх": "день рождения",
    "день рождения": "день рождения", "дня рождения": "день рождения", "дню рождения": "день рождения",
}
_DEFENDED = {"диплом": "диплома", "диссертацию": "диссертации", "курсовую": "курсовой", "проект": "проекта",
             "магистерскую": "магистерской", "дипломную": "дипломной"}
# A word after "по" that is an adjective ("по высшей математике") takes the next word along.
_ADJECTIVE_ENDINGS = ("ой", "ей", "ому", "ему", "ым", "им")


def _ru_noun(match: re.Match[str]) -> str:
    """Return the nominative of the Russian event noun in `match` ("экзамена" -> "экзамен")."""
    noun = " ".join(match.group("noun").lower().split())
    for stem, nominative in RU_NOMINATIVE.items():
        if noun.startswith(stem):
            return nominative
    return noun


def _ru_with_topic(match: re.Match[str]) -> str:
    """Return "экзамен по химии" from "экзамена по химии"; the noun alone when no subject follows."""
    topic = match.group("topic")
    if not topic:
        return _ru_noun(match)
    first, _, second = topic.partition(" ")
    if second and not first.lower().endswith(_ADJECTIVE_ENDINGS):
        topic = first
    return f"{_ru_noun(match)} по {topic.lower()}"


def _ru_trip(match: re.Match[str]) -> str:
    """Return "поездка в Париж" for "улетаю в Париж", "поездка" when no destination is given."""
    noun = _ru_noun(match) if match.groupdict().get("noun") else "поездка"
    place = match.groupdict().get("place")
    return f"{noun} {match.group('prep').lower()} {place}" if place else noun


def _en_exam(match: re.Match[str]) -> str:
    """Return "chemistry exam" for "my chemistry exam", "exam" when no known subject comes before it."""
    topic, noun = (match.group("topic") or "").lower(), match.group("noun").lower()
    if noun in ("exams", "midterms"):
        noun = noun[:-1]
    return f"{topic} {noun}" if topic in _EXAM_TOPICS_EN and topic != noun else noun


def _en_trip(match: re.Match[str]) -> str:
    """Return "trip to Paris" / "flight to Paris" / "vacation"."""
    noun = (match.groupdict().get("noun") or "trip").lower()
    place = match.groupdict().get("place")
    return f"{noun} to {place}" if place else noun


def _en_interview(match: re.Match[str]) -> str:
    """Return "job interview" for "job/work interview", "visa interview", or "interview"."""
    kind = (match.group("kind") or "").lower()
    return "job interview" if kind in ("job", "work") else f"{kind} interview".strip()


def _ru_doctor(match: re.Match[str]) -> str:
    """Return "приём у стоматолога" for "к стоматологу" or "приём у стоматолога"."""
    doctor = match.group("doctor").lower()
    return "приём у " + ("зубного" if doctor.startswith("зубно") else doctor[:-1] + "а")


def _en_appointment(match: re.Match[str]) -> str:
    """Return "dentist appointment" for "dentist's appointment", "going to the dentist"."""
    return _APPOINTMENTS_EN[" ".join(match.group("who").lower().split())]


def _fixed(value: str) -> Callable[[re.Match[str]], str]:
    """Return a value builder that always gives `value`."""
    return lambda match: value


# A destination is no date: "улетаю в пятницу" says when, not where.
_NOT_A_PLACE = (r"(?!(?:понедельник|вторник|среду|четверг|пятницу|субботу|воскресенье|эт[уиоа]|следующ|ближайш|выходн|"
                r"недел|месяц|днях|утро|вечер|ночь|полдень|обед)[^\W\d_]*\b)")
# "улетаю завтра в Париж", "улетаю в пятницу в Париж": the day may come between the verb and the place.
_RU_DAY_FIRST = (r"(?:(?:завтра|послезавтра|сегодня|(?:в|во)\s+(?:понедельник|вторник|среду|четверг|пятницу|субботу|"
                 r"воскресенье))\s+)?")
_RU_PLACE = (rf"{_RU_DAY_FIRST}(?P<prep>в|во|на|к|ко)\s+{_NOT_A_PLACE}"
             r"(?P<place>[^\W\d_]+(?:-[^\W\d_]+)*(?:\s+(?-i:[A-ZА-ЯЁ])[^\W\d_]+)?)")
# After "еду"/"поеду" only a trip counts, not the daily way to work.
_RU_TRIP_PLACE = (rf"{_RU_DAY_FIRST}(?P<prep>в|во|на|к|ко)\s+"
                  r"(?P<place>(?-i:[A-ZА-ЯЁ])[^\W\d_]+(?:-[^\W\d_]+)*(?:\s+(?-i:[A-ZА-ЯЁ])[^\W\d_]+)?|"
                  r"море|дачу|юг|отпуск|командировку|отдых)\b")
_EN_PLACE = r"\s+to\s+(?P<place>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)"
EVENTS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    # exams
    (re.compile(r"\b(?P<noun>экзамен(?:а|у|ом|ы|ов|ам)?|зач[её]т(?:а|у|ом)?|ЕГЭ|ОГЭ|контрольн(?:ая|ую|ой))\b"
                r"(?:\s+по\s+(?P<topic>[^\W\d_]{3,}(?:\s+[^\W\d_]{3,})?))?", I), _ru_with_topic),
    (re.compile(rf"\b(?:(?P<topic>{'|'.join(sorted(_EXAM_TOPICS_EN))})\s+)?(?P<noun>exams?|finals|midterms?)\b", I),
     _en_exam),
    (re.compile(r"\bdriving\s+test\b", I), _fixed("driving test")),
    (re.compile(r"\b(?:сдаю|экзамен)\s+на\s+права\b", I), _fixed("экзамен на права")),
    # interviews
    (re.compile(r"\b(?P<noun>собеседовани(?:е|я|ю|ем|и)|собес)\b", I), _fixed("собеседование")),
    (re.compile(r"\b(?:(?P<kind>job|work|phone|visa|final)\s+)?interview\b(?!ing|ed)", I), _en_interview),
    # doctors
    (re.compile(rf"\b(?:к|ко)\s+(?P<doctor>(?:{_DOCTOR_RU})у|зубному)\b", I), _ru_doctor),
    (re.compile(rf"\b(?:при[её]м|запись)\s+(?:у|к)\s+(?P<doctor>(?:{_DOCTOR_RU})[ау]|зубно(?:го|му))\b", I),
     _ru_doctor),
    (re.compile(r"\bна\s+при[её]м\b", I), _fixed("приём у врача")),
    (re.compile(rf"\b(?P<who>{_APPOINTMENT_EN})(?:['’]s)?\s+appointment\b", I), _en_appointment),
    (re.compile(rf"\b(?:appointment\s+(?:with|at)|going\s+to|go\s+to|see|seeing)\s+(?:the|my|a|our)\s+"
                rf"(?P<who>{_APPOINTMENT_EN})\b(?!['’]s)", I), _en_appointment),
    (re.compile(r"\bappointment\b", I), _fixed("appointment")),
    # surgery
    (re.compile(r"\b(?P<noun>операци(?:я|ю|и|ей))\b", I), _ru_noun),
    (re.compile(r"\b(?P<noun>surgery|operation)\b", I), lambda m: m.group("noun").lower()),
    # trips
    (re.compile(rf"\b(?:улетаю|уезжаю|вылетаю|улетаем|уезжаем|вылетаем|отправляюсь|отправляемся)\b"
                rf"(?:\s+{_RU_PLACE})?", I), _ru_trip),
    (re.compile(rf"\b(?:лечу|летим)\s+{_RU_PLACE}", I), _ru_trip),
    (re.compile(rf"\b(?:еду|едем|поеду|поедем)\s+{_RU_TRIP_PLACE}", I), _ru_trip),
    (re.compile(r"\b(?P<noun>поездк[аиуе]|рейс|вылет|перел[её]т|командировк[аиуе]|отпуск)\b"
                rf"(?:\s+{_RU_PLACE})?", I), _ru_trip),
    (re.compile(rf"\b(?:(?P<noun>flight|trip|business\s+trip)\b(?:{_EN_PLACE})?)", I), _en_trip),
    (re.compile(rf"\b(?:fly(?:ing)?(?:\s+out)?|leav(?:e|ing)\s+for|head(?:ing)?(?:\s+off|\s+out)?|off){_EN_PLACE}", I),
     _en_trip),
    (re.compile(r"\b(?:go(?:ing)?\s+on\s+(?P<noun>vacation|holiday)|(?P<noun2>vacation)\s+starts)\b", I),
     lambda m: (m.group("noun") or "vacation").lower()),
    # weddings, concerts, talks
    (re.compile(r"\b(?P<noun>свадьб(?:а|у|ы|е|ой))\b|\b(?:женюсь|женимся|выхожу\s+замуж|расписываемся)\b", I),
     _fixed("свадьба")),
    (re.compile(r"\bwedding\b|\bget(?:ting)?\s+married\b", I), _fixed("wedding")),
    (re.compile(r"\b(?P<noun>концерт(?:а|у|ом|е)?|спектакл(?:ь|я|ю|е))\b", I), _ru_noun),
    (re.compile(r"\b(?P<noun>concert|gig|recital|audition|graduation)\b", I), lambda m: m.group("noun").lower()),
    (re.compile(r"\b(?P<noun>презентаци(?:я|ю|и|ей)|доклад(?:а|ом|у)?|выступлени(?:е|я|ем))\b", I), _ru_noun),
    (re.compile(r"\bвыступаю\b", I), _fixed("выступление")),
    (re.compile(r"\b(?P<noun>presentation|pitch|demo)\b", I), lambda m: m.group("noun").lower()),
    # defences
    (re.compile(r"\bзащит(?:а|у|ы|е)\s+(?P<what>диплома|диссертации|курсовой|проекта|магистерской|дипломной|ВКР)\b",
                I), lambda m: "защита " + m.group("what").lower().replace("вкр", "ВКР")),
    (re.compile(r"\bзащищаю(?:сь)?\b(?:\s+(?P<what>диплом|диссертацию|курсовую|проект|магистерскую|дипломную)\b)?",
                I), lambda m: "защита " + _DEFENDED[m.group("what").lower()] if m.group("what") else "защита"),
    (re.compile(r"\b(?P<what>thesis|dissertation|phd|diploma)\s+defen[cs]e\b|\bdefend(?:ing)?\s+my\s+"
                r"(?P<what2>thesis|dissertation)\b", I),
     lambda m: f"{(m.group('what') or m.group('what2')).lower().replace('phd', 'PhD')} defence"),
    # competitions
    (re.compile(r"\b(?P<noun>соревновани(?:я|й|ях|ям)|турнир(?:а|е)?|матч(?:а|е)?|забег(?:а|е)?|марафон(?:а|е)?|"
                r"олимпиад(?:а|у|е|ы)|чемпионат(?:а|е)?)\b", I), _ru_noun),
    (re.compile(r"\b(?P<noun>competition|tournament|match|race|marathon|championship)\b", I),
     lambda m: m.group("noun").lower()),
    # a new job, a move
    (re.compile(r"\bпервый\s+(?:рабочий\s+)?день\s+на\s+(?:новой\s+)?работе\b|\bпервый\s+рабочий\s+день\b|"
                r"\bвыхожу\s+на\s+(?:новую\s+)?работу\b", I), _fixed("первый рабочий день")),
    (re.compile(r"\bstart(?:ing)?\s+(?:my\s+|a\s+|the\s+)?new\s+job\b|\bfirst\s+day\s+(?:at|of)\s+(?:my\s+|the\s+)?"
                r"(?:new\s+)?(?:job|work)\b", I), _fixed("first day at the new job")),
    (re.compile(r"\b(?P<noun>переезд(?:а|е)?)\b|\bпереезжа(?:ю|ем)\b", I), _fixed("переезд")),
    (re.compile(r"\bmov(?:e|ing)\s+(?:house|out)\b", I), _fixed("move")),
]
# Birthdays and anniversaries: the user's own, or a relative's ("у мамы день рождения").
BIRTHDAY_RU = re.compile(r"\b(?P<noun>д(?:е|н)(?:нь|я|ю)\s+рождения|днюх[аиу]|юбиле(?:й|я|ю)|годовщин(?:а|у|ы)"
                         r"(?:\s+свадьбы)?)\b", I)
BIRTHDAY_EN = re.compile(r"\b(?P<noun>birthday|b-?day|anniversary)\b", I)
RELATIVE_RU = re.compile(r"\bу\s+(?:(?:моей|моего|нашей|нашего|моих|наших)\s+)?(?P<rel>[а-яё]+)\b", I)
RELATIVE_AFTER_RU = re.compile(r"^\s+(?:(?:моей|моего|нашей|нашего|моих|наших)\s+)?(?P<rel>[а-яё]+)\b", I)
RELATIVE_ADJECTIVES_RU = {"мамин": "мамы", "папин": "папы", "бабушкин": "бабушки", "дедушкин": "дедушки"}
RELATIVE_ADJECTIVE_RU = re.compile(r"\b(?P<adj>мамин|папин|бабушкин|дедушкин)\s*$", I)
RELATIVE_EN = re.compile(r"\b(?P<rel>[a-z]+)(?:['’]s|s['’])\s+(?:(?:\d+\w*|big|surprise|\w+th)\s+)?$", I)
# The user's own birthday goes to the "birthday" slot, not to plans. Only "my birthday", "мой день рождения" or
# "у меня … день рождения" make it theirs: "I'm going to a birthday on Saturday" is someone else's.
# The names events.py gives a birthday (not an anniversary or a "юбилей") that has no relative named.
BIRTHDAY_NAMES = frozenset({"birthday", "день рождения"})
MY_BEFORE = re.compile(r"\b(?:my(?:\s+own)?|мой|моя|мою|моей|моего|моему|моём|моем|моим)\s+$", I)
AT_MINE_RU = re.compile(r"\bу\s+меня\b", I)
# A party or a celebration may fall on another day than the birthday itself, so such a sentence stays a plan.
CELEBRATION = re.compile(r"\b(?:part(?:y|ies)|celebrat\w*|dinner|drinks|bash|праздн\w*|отмеча\w*|отмечу|справля\w*|"
                         r"вечеринк\w*|тусовк\w*|туса|банкет\w*|застоль\w*)\b", I)

# Around an event word: its results, its preparation or its tickets, which are no event on that day.
NOT_THE_EVENT_BEFORE = re.compile(
    r"(?:\b(?:результат\w*|оценк\w*\s+за|подготовк\w*\s+к|билет\w*\s+на|results?\s+(?:of|from)|"
    r"tickets?\s+(?:to|for)|prep(?:aration)?\s+for|ready\s+for)\s+(?:(?:the|my|a|an|мой|моего|моему|мою)\s+)?)$", I)
NOT_THE_EVENT_AFTER = re.compile(
    r"^\s+(?:results?|grades?|scores?|marks|prep|preparation|notes|revision|schedule|timetable|tickets?|"
    r"результат\w*|билет\w*)\b", I)

# ---- guards -------------------------------------------------------------------------------------------

# Said anywhere in the sentence, each of these makes the event unsure, past, cancelled or someone else's.
HEDGE = re.compile(
    r"\b(?:if|unless|would|could|might|maybe|perhaps|probably|possibly|suppose|supposed|imagine|wish|hope|"
    r"whether|think|guess|want|wanna|dream|pretend|roleplay|as\s+if|in\s+case|\w+['’]d|"
    r"если|бы|б|может|возможно|наверное|наверно|вероятно|допустим|представь\w*|вдруг|хочу|хотел\w*|хотим|"
    r"мечта\w*|мечтаю|пусть|вроде|кажется|думаю|будто|типа|якобы|мол|говорят|надеюсь|планиру\w*)\b", I)
# "Wish me luck", "держи кулачки": asking for support, not doubting the event.
GOOD_LUCK = re.compile(r"\bwish\s+me\s+luck\b|\bfingers\s+crossed\b|\bпожелай(?:те)?\s+(?:мне\s+)?удачи\b|"
                       r"\bдержи(?:те)?\s+(?:за\s+меня\s+)?(?:кулачки|кулаки)\b", I)
PAST_TENSE = re.compile(
    r"\b(?:был|была|было|были|прош[её]л|прошла|прошло|прошли|сдал|сдала|сдали|сдавал\w*|ходил\w*|ездил\w*|"
    r"съездил\w*|слетал\w*|летал\w*|вернул\w*|отметил\w*|справил\w*|завалил\w*|провалил\w*|выступил\w*|"
    r"защитил\w*|закончил\w*|кончил\w*|состоял\w*|прошедш\w*|недавно|had|was|were|went|did|passed|failed|"
    r"finished|took|sat|attended|gave|aced|bombed|survived|ended|happened|flew|returned|came\s+back|got\s+back|"
    r"used\s+to|last)\b", I)
CANCELLED = re.compile(r"\b(?:отмен\w*|перен[её]с\w*|перенос\w*|cancel\w*|called\s+off|postpon\w*|reschedul\w*|"
                       r"moved)\b", I)
HABIT = re.compile(r"\b(?:обычно|всегда|часто|иногда|постоянно|каждый|каждую|каждое|каждые|usually|always|often|"
                   r"sometimes|every|each|whenever)\b", I)
NEGATED = re.compile(r"\b(?:никак\w*|ничего|no|nothing|none)\b", I)
FIRST_PERSON = re.compile(
    r"\b(?:я|мне|меня|мной|мой|моя|моё|мое|мою|моего|моей|моём|моем|мои|моих|мы|нам|нас|наш|наша|наше|нашу|"
    r"нашего|нашей|наши|наших|иду|идём|идем|пойду|пойдём|еду|едем|поеду|поедем|лечу|летим|сдаю|сдаём|"
    r"выступаю|защищаю\w*|улетаю|уезжаю|вылетаю|записал(?:ся|ась)|записан[аы]?|выхожу|ложусь|начинаю|"
    r"переезжа(?:ю|ем)|отмечаю|отмечаем|празднуем|праздную|женюсь|женимся|"
    r"i|i['’]m|im|i['’]ve|ive|i['’]ll|me|my|mine|we|we['’]re|we['’]ve|we['’]ll|us|our)\b", I)
THIRD_PERSON = re.compile(
    r"\b(?:он|она|они|его|её|ее|их|него|неё|нее|них|ему|ним|ней|ты|тебе|тобой|вы|вам|вами|твой|твоя|твоё|твое|"
    r"твою|твоего|твоей|твои|твоих|ваш|ваша|ваше|вашу|вашего|вашей|ваши|ваших|"
    r"he|she|they|his|her|hers|their|theirs|him|them|your|yours|ur|"
    r"(?:you|u)\s+(?:have|has|got|are|were|will|['’]ve|['’]re|['’]ll))\b", I)
# "у брата", "у Маши": the event belongs to whoever follows "у".
OWNER_RU = re.compile(r"\bу\s+(?!меня\b|нас\b)(?P<who>[^\W\d_]+)", I)
POSSESSOR_EN = re.compile(r"\b(?P<who>[A-Za-z]+)(?:['’]s|s['’])(?=\s)", I)
NOT_POSSESSORS = p.words("""
it that there here what who let he she today tomorrow tonight monday tuesday wednesday thursday friday saturday
sunday everyone everybody nobody somebody someone one doctor dentist gp vet year week month day night
""")
_FRIENDS_RU = ("друг", "подруга", "коллега", "начальник", "начальница", "босс", "сосед", "соседка", "одноклассник",
               "одноклассница", "одногруппник", "одногруппница", "однокурсник", "однокурсница", "знакомый",
               "знакомая", "приятель", "приятельница", "жених", "невеста")
PEOPLE_RU = {form for noun in _FRIENDS_RU for form in p.ru_case_forms(noun)} | set(kin.RU_RELATIVES) | p.words(
    "друзья друзей друзьям знакомого знакомой ребята ребят")
PEOPLE_EN = set(kin.EN_RELATIVES) | p.words("""
friend friends buddy bestie colleague colleagues coworker coworkers boss roommate classmate classmates neighbour
neighbor bf gf
""")
# Before a person: the user goes with them or to them, so the plan is still the user's.
COMPANION = p.words("with to for visit visiting see seeing meet meeting и с со к ко для навестить проведать вместе")
POSSESSIVES = p.words("my our the a his her моей моего моим моему мою моих моими нашей нашего нашу наших мой моя мои")
EN_SUBJECT_VERB = re.compile(r"^\s+(?:has|is|will|got|gets|takes|flies|starts|goes|leaves|had|was)\b", I)
PLACE_PREPOSITIONS = p.words("""
в во на из по от до за для к ко концерт концерта концерте спектакль at in to from for with on by of
""")
EN_FUNCTION_WORDS = p.words("my our the a an this that it i we so and but also just")
DATE_WORDS = p.words("""
today tomorrow tonight monday tuesday wednesday thursday friday saturday sunday january february march april may
june july august september october november december i
""")
# What may come before an event with no owner named, at the start of its clause ("Ну всё, завтра экзамен").
FILLERS = p.words("""
ну всё все кстати ура блин короче так вот уже наконец опять снова и а ещё еще тоже важный важное важная
большой большая первый первая финальный итоговый главный последний очередной целый у нас будет
so well ok okay finally yay ugh oh wow big important first final the a an another also and one more huge
guess what omg argh s is
""")
QUOTES = "«»“”„\""
# As patterns.SENTENCE, but "28.12" and "12.12.2026" stay whole.
SENTENCE = re.compile(r"(?:[^.!?\n;]|(?<=\d)\.(?=\d))+[.!?\n;]*")
WORD = re.compile(r"[^\W\d_][\w'’-]*")
