"""Word lists, case tables, word-form helpers and trigger patterns for the fact rules in memory/rules/rules.py.

rules.py decides (is this the user's own plain statement?); this module only knows words: which ones are
cities, jobs or statuses, how Russian declines them, what a trigger phrase looks like, and the guards'
patterns. Those of pets and family live in kin_patterns.py, those of likes and states in feeling_patterns.py.
"""

from __future__ import annotations

import re

from memory.text.word_forms import case_forms

I = re.IGNORECASE
WORD = r"[^\W\d_]{2,}(?:-[^\W\d_]{2,})?"
I_AM = r"\bi(?:['’]?m|\s+am)"  # "I'm", "I’m", "im", "I am"
CLAUSE_START = r"(?<![^\W\d_]\s)"  # not right after "word ": at the start of the text or after punctuation
I_HAVE = (r"\b(?:i|we)(?:\s+(?:also\s+|still\s+|now\s+|even\s+)?(?:have\s+got|have|got|own)"
          r"|['’]ve(?:\s+(?:also\s+)?got)?)\s+")


def words(text: str) -> frozenset[str]:
    """Return the whitespace-separated words of `text` as a set."""
    return frozenset(text.split())


def ru_case_forms(noun: str) -> frozenset[str]:
    """Return the case forms of a Russian noun in its number, as pymorphy3 declines it (memory/text/word_forms.py);
    a phrase ("Нижний Новгород") or an indeclinable noun ("Сочи", "США") alone."""
    return case_forms(noun)


def capitalise(name: str) -> str:
    """Return a name with each hyphenated part capitalised: 'анна-мария' -> 'Анна-Мария'."""
    return "-".join(part[:1].upper() + part[1:] for part in name.split("-"))


def gerund(verb: str) -> str:
    """Return the -ing form of an English verb: cook -> cooking, dance -> dancing, swim -> swimming."""
    lowered, vowels = verb.lower(), "aeiou"
    if lowered.endswith("ie"):
        return verb[:-2] + "ying"
    if lowered.endswith("e") and not lowered.endswith(("ee", "ye", "oe")) and len(lowered) > 2:
        return verb[:-1] + "ing"
    # A short verb ending consonant-vowel-consonant doubles its last letter: swim -> swimming.
    short = 3 <= len(lowered) <= 4
    if short and lowered[-1] not in vowels + "wxy" and lowered[-2] in vowels and lowered[-3] not in vowels:
        return verb + verb[-1] + "ing"
    return verb + "ing"


def ru_adjective(word: str, noun: str) -> str:
    """Return the nominative of an instrumental adjective before a job ("старшим" -> "старший "), or ""."""
    feminine = noun.endswith("а")
    for ending, nominative in {"ым": "ый", "им": "ий", "ой": "ая", "ей": "ая"}.items():
        if len(word) > 4 and word.endswith(ending) and (ending in ("ой", "ей")) == feminine:
            return word[: -len(ending)] + nominative + " "
    return ""


def form_table(entries: dict[str, str], irregular: dict[str, str] | None = None) -> dict[str, str]:
    """Return {lowercase case form: canonical} for `entries` ({nominative: canonical}) and irregular forms."""
    table: dict[str, str] = {}
    for nominative, canonical in entries.items():
        for form in ru_case_forms(nominative):
            table.setdefault(form.lower(), canonical)
    for form, canonical in (irregular or {}).items():
        table[form.lower()] = canonical
    return table


# ---- places -------------------------------------------------------------------------------------------

_RU_CITIES = """
Москва Санкт-Петербург Новосибирск Екатеринбург Казань Самара Омск Челябинск Уфа Красноярск Пермь Воронеж
Волгоград Краснодар Саратов Тюмень Тольятти Ижевск Барнаул Иркутск Хабаровск Владивосток Томск Оренбург
Кемерово Рязань Астрахань Пенза Липецк Киров Ростов Калининград Тула Курск Сочи Тверь Мурманск Архангельск
Владимир Смоленск Белгород Сургут Минск Киев Харьков Одесса Львов Днепр Алматы Астана Ташкент Бишкек Тбилиси
Ереван Баку Рига Вильнюс Таллин Варшава Прага Вена Берлин Мюнхен Гамбург Лондон Париж Рим Милан Мадрид
Барселона Лиссабон Амстердам Стокгольм Хельсинки Осло Копенгаген Будапешт Белград Стамбул Анкара Дубай
Тель-Авив Нью-Йорк Лос-Анджелес Торонто Токио Пекин Сеул Бангкок Лимассол Батуми Вологда Кострома Иваново
"""
_RU_COUNTRIES = """
Россия Германия Франция Италия Испания Англия Великобритания Канада Америка США Беларусь Белоруссия Украина
Казахстан Польша Чехия Грузия Армения Азербайджан Узбекистан Киргизия Кыргызстан Турция Сербия Черногория
Финляндия Швеция Норвегия Дания Австрия Швейцария Португалия Греция Кипр Бельгия Голландия Япония Китай
Корея Таиланд Вьетнам Индия Индонезия Австралия Бразилия Аргентина Мексика Латвия Литва Эстония Молдова
Болгария Румыния Венгрия Словакия ОАЭ Египет Ирландия Шотландия
"""
# Forms the regular declension misses: masculine "-ль" cities, two-word names, plurals, nicknames.
_RU_PLACE_IRREGULAR = {
    "Ярославль": "Ярославль", "Ярославле": "Ярославль", "Ярославля": "Ярославль",
    "Брюссель": "Брюссель", "Брюсселе": "Брюссель", "Брюсселя": "Брюссель",
    "Израиль": "Израиль", "Израиле": "Израиль", "Израиля": "Израиль",
    "Нижний Новгород": "Нижний Новгород", "Нижнем Новгороде": "Нижний Новгород",
    "Нижнего Новгорода": "Нижний Новгород", "Нижнем": "Нижний Новгород", "Нижнего": "Нижний Новгород",
    "Ростов-на-Дону": "Ростов-на-Дону", "Ростове-на-Дону": "Ростов-на-Дону", "Ростова-на-Дону": "Ростов-на-Дону",
    "Петербург": "Санкт-Петербург", "Петербурге": "Санкт-Петербург", "Петербурга": "Санкт-Петербург",
    "Питер": "Санкт-Петербург", "Питере": "Санкт-Петербург", "Питера": "Санкт-Петербург",
    "СПб": "Санкт-Петербург", "Мск": "Москва",
    "Нидерланды": "Нидерланды", "Нидерландах": "Нидерланды", "Нидерландов": "Нидерланды",
    "Эмираты": "ОАЭ", "Эмиратах": "ОАЭ", "Эмиратов": "ОАЭ", "Штаты": "США", "Штатах": "США", "Штатов": "США",
}
_EN_CITIES = """
London Paris Berlin Moscow Tokyo Madrid Rome Barcelona Amsterdam Vienna Prague Warsaw Kyiv Kiev Minsk Lisbon
Dublin Toronto Vancouver Montreal Sydney Melbourne Chicago Boston Seattle Miami Austin Denver Atlanta Dallas
Houston Munich Hamburg Milan Istanbul Dubai Singapore Seoul Beijing Shanghai Bangkok Riga Tallinn Vilnius
Helsinki Stockholm Oslo Copenhagen Zurich Geneva Brussels Budapest Belgrade Tbilisi Yerevan Almaty Manchester
Edinburgh Glasgow Liverpool Portland Philadelphia Krakow Kazan Novosibirsk Cologne Frankfurt Lyon Marseille
"""
_EN_MULTIWORD_CITIES = ["New York", "San Francisco", "Los Angeles", "Saint Petersburg", "St Petersburg",
                        "Hong Kong", "Tel Aviv", "Las Vegas", "San Diego", "Buenos Aires", "Mexico City"]
_EN_COUNTRIES = """
Germany Canada France Italy Spain Russia Ukraine Poland USA US America UK Britain England Scotland Ireland Wales
Australia Japan China India Brazil Mexico Netherlands Holland Israel Turkey Kazakhstan Belarus Portugal Austria
Switzerland Sweden Norway Finland Denmark Belgium Czechia Serbia Thailand Vietnam Argentina Chile Egypt Greece
Cyprus Estonia Latvia Lithuania Armenia Azerbaijan Uzbekistan Indonesia Philippines Korea UAE Montenegro
Bulgaria Romania Hungary Slovakia Croatia Slovenia Iceland Colombia Peru Nigeria Kenya Malaysia
"""
_EN_PLACE_ALIASES = {
    "the us": "USA", "the usa": "USA", "united states": "USA", "the united states": "USA", "the states": "USA",
    "the uk": "UK", "united kingdom": "UK", "the united kingdom": "UK", "the netherlands": "Netherlands",
    "czech republic": "Czechia", "the czech republic": "Czechia", "new zealand": "New Zealand",
    "south korea": "South Korea", "south africa": "South Africa", "the uae": "UAE",
    "st. petersburg": "Saint Petersburg",
    "nyc": "New York", "la": "Los Angeles", "sf": "San Francisco", "dc": "Washington",
}

RU_PLACES = form_table({c: c for c in _RU_CITIES.split() + _RU_COUNTRIES.split()}, _RU_PLACE_IRREGULAR)
EN_PLACES = {p.lower(): p for p in _EN_CITIES.split() + _EN_MULTIWORD_CITIES + _EN_COUNTRIES.split()}
EN_PLACES.update(_EN_PLACE_ALIASES)
COUNTRIES = frozenset(_RU_COUNTRIES.split() + _EN_COUNTRIES.split()) | {
    "Нидерланды", "Израиль", "New Zealand", "South Korea", "South Africa", "Czechia"}
# Lowercase words that may sit inside a place name ("Rio de Janeiro", "Ростов-на-Дону" has hyphens instead).
PLACE_JOINERS = words("de del da do dos la le upon on am im al el")

# Residence: what follows is the user's city (or country). Russian past-tense verbs carry no person,
# so "переехал" needs "я" or the start of the clause (checked in rules.py via the "subj" group).
LIVE_TRIGGERS = [
    re.compile(r"\b(?:i|we)\s+(?:currently\s+|now\s+|still\s+|actually\s+|also\s+|happen\s+to\s+)?"
               r"(?:live|reside)\s+in\s+", I),
    re.compile(r"\b(?:i|we)(?:['’]?m|['’]re|\s+am|\s+are|['’]ve\s+been|\s+have\s+been)\s+(?:currently\s+|now\s+)?"
               r"(?:living|based|located)\s+in\s+", I),
    re.compile(r"\b(?:i|we)(?:\s+have|['’]ve)?\s+(?:just\s+|recently\s+|finally\s+|already\s+)?"
               r"(?:moved|relocated)\s+(?:back\s+)?to\s+", I),
    re.compile(r"(?:\b(?:я|мы)\s+)?(?:сейчас\s+|теперь\s+|уже\s+|давно\s+|тоже\s+|вообще\s+)?"
               r"(?:живу|живём|живем|проживаю|обитаю)\s+"
               r"(?:сейчас\s+|теперь\s+|уже\s+|давно\s+)?(?:с\s+[^\W\d_]+\s+(?:и\s+[^\W\d_]+\s+)?)?(?:в|во)\s+", I),
    re.compile(r"(?P<subj>\bя\s+)?(?:недавно\s+|уже\s+|наконец\s+|тоже\s+)?(?:переехал|переехала)\s+"
               r"(?:из\s+\S+\s+)?(?:в|во)\s+", I),
    re.compile(r"\bмы\s+(?:с\s+[^\W\d_]+\s+)?(?:недавно\s+|уже\s+|наконец\s+)?переехали\s+"
               r"(?:из\s+\S+\s+)?(?:в|во)\s+", I),
    # "I'm Dutch, living in Spain", "hi im sarah, 34, living in Manchester": the "I'm" of a short opening
    # carries over. The guards judge the clause from `at` on.
    re.compile(rf"^\W*(?:(?:hi|hello|hey)\W+)?{I_AM}\s+(?:[^\W\d_]+|\d+)(?:\s+[^\W\d_]+)?,"
               r"(?:\s*(?:[^\W\d_]+|\d+),)?\s*(?P<at>)(?:currently\s+|now\s+)?(?:living|based)\s+in\s+", I),
    # "Living in Toronto these days": a message that opens with it speaks of the user ("Living in Leeds is
    # expensive" is judged by the guards from `at` on).
    re.compile(r"^\W*(?P<at>)(?:currently\s+|now\s+)?(?:living|based)\s+in\s+", I),
    # "My city is Amsterdam", "мой город — Самара", "я жительница Иркутска".
    re.compile(r"\bmy\s+(?:home\s+)?city\s+is\s+|\b(?:мой\s+город|город\s+мой)\s*(?:[—–-]|[—–-]?\s*это)\s*", I),
    re.compile(r"\bя\s+(?:житель|жительница)\s+", I),
    # "I'm originally from Glasgow but moved to London".
    re.compile(r"^\W*i(?:['’]?m|\s+am|\s+was|\s+grew|\s+come|\s+came)\b[^.;!?]{0,60}?\b(?:but|and)\s+"
               r"(?:then\s+|later\s+)?(?P<at>)(?:recently\s+|just\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+", I),
]
# "I've lived in Canada most of my life": the present perfect is a residence only with a span or "always".
LIVED_TRIGGER = re.compile(r"\b(?:i|we)(?:['’]ve|\s+have)\s+(?P<always>always\s+)?lived\s+in\s+", I)
LIVED_TAIL = re.compile(
    r"^\s*(?:for\b|since\b|most\s+of\b|all\s+(?:my|our)\s+li(?:fe|ves)|(?:my|our)\s+whole\s+li(?:fe|ves)|"
    r"ever\s+since\b)", I)
# "I have lived in Moscow for 5 years, then moved to Berlin": the span is over.
LIVED_ENDED = re.compile(r"\b(?:then|moved|left|until|till|before|but)\b", I)
# Origin: what follows is the user's hometown.
FROM_TRIGGERS = [
    re.compile(rf"{I_AM}\s+(?:originally\s+|actually\s+|also\s+)?from\s+", I),
    re.compile(r"\bi\s+(?:originally\s+)?come\s+from\s+", I),
    re.compile(r"\bi\s+was\s+born\s+(?:and\s+raised\s+)?in\s+", I),
    re.compile(r"\bi\s+grew\s+up\s+in\s+", I),
    re.compile(r"\bя\s+(?:(?:сам|сама|вообще|вообще-то|тоже|родом)\s+)*(?:из|с|со)\s+|\bродом\s+из\s+", I),
    re.compile(r"(?P<subj>\bя\s+)?(?:родился|родилась|вырос|выросла)\s+(?:и\s+вырос(?:ла)?\s+)?(?:в|во)\s+", I),
]
# "I'm from Google support": after a plain "I'm from", an unknown name must end the clause.
PLACE_CLAUSE_END = re.compile(
    r"^\s*(?:$|[,.!;:)]|(?:and|but|originally|though|btw|и|а|но|если|кстати|вообще|родом)\b)", I)
# "я из Москвы" / colloquial "я с Казани": after these only a known place counts; after "с" it must end the
# clause too ("я с Питера еду" says where from today).
FROM_RU = re.compile(r"(?:^|\s)(?:из|с|со)\s+$", I)
FROM_WITH_RU = re.compile(r"(?:^|\s)(?:с|со)\s+$", I)
PLACE_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")
# "я из Москвы приехала": where they came from today, not where they are from.
NEXT_IS_PAST_VERB = re.compile(r"^\s+[^\W\d_]+(?:л|ла|ли|лся|лась)\b", I)
# After a residence: the stay is short, so it is no city of theirs.
TEMPORARY_STAY = re.compile(
    r"^\W*(?:for\s+(?:the|a|two|a\s+few|some)\s+(?:weekend|week|days?|months?|holidays?|trip|while)|temporarily|"
    r"на\s+(?:выходные|неделю|пару|несколько|время|месяц)|временно|в\s+командировке|в\s+отпуске)\b", I)

# ---- age ----------------------------------------------------------------------------------------------

AGE_TRIGGERS = [
    re.compile(rf"{I_AM}\s+(?:now\s+|already\s+|only\s+)?(?P<age>\d{{1,3}})"
               r"(?P<unit>\s*(?:years?|yrs?)\s+old\b|\s*y\.?\s?o\b\.?)?", I),
    re.compile(rf"{I_AM}\s+an?\s+(?P<age>\d{{1,3}})(?P<unit>[-\s]years?[-\s]old)\b", I),
    re.compile(r"\bi\s+(?:just\s+)?turned\s+(?P<age>\d{1,3})(?P<unit>\s*years?\s+old\b)?", I),
    # "Hi, I'm Anna, 34", "Я Аня, 25 лет": an age right after a one-word introduction.
    re.compile(r"^\W*(?:(?:hi|hello|hey|привет)\W+)?(?:i['’]?m|i\s+am|я)\s+(?P<intro>[^\W\d_]+),\s*(?P<age>\d{1,3})"
               r"(?P<unit>\s*(?:лет|года|год|years?\s+old)\b)?", I),
    re.compile(r"\bмне\s+(?:уже\s+|сейчас\s+|(?:только\s+что\s+|недавно\s+)?исполнилось\s+)?(?P<age>\d{1,3})"
               r"(?P<unit>\s*(?:лет|года|год)\b)?", I),
]
# Before an age: it is not yet, or not exactly, the user's age.
AGE_NOT_BEFORE = re.compile(r"\b(?:скоро|почти|около|almost|nearly|soon|about|через|next\s+year)\b", I)
# With a unit the age is clear unless it is in the future or past ("мне 30 лет исполнится").
AGE_NOT_AFTER = re.compile(r"^\s*(?:исполнится|будет|было|стукнет|назад|ago|from\s+now|next|в\s+следующем)\b", I)
# Without one the number must end the clause: "I'm 25, and…", not "I'm 5 minutes late".
AGE_CLAUSE_END = re.compile(
    r"^\s*(?:$|[,.!;:)(]|(?:and|but|now|already|today|yesterday|last\s+(?:week|month)|this\s+(?:week|month|year)|"
    r"btw|lol|"
    r"haha|too|myself|и|а|но|уже|сейчас|сегодня|вчера)\b)", I)

# ---- jobs ---------------------------------------------------------------------------------------------

EN_JOBS = words("""
teacher nurse doctor physician surgeon dentist engineer developer programmer coder designer manager accountant
lawyer attorney driver chef cook waiter waitress bartender barista cashier student writer journalist editor
translator interpreter psychologist therapist analyst scientist researcher architect electrician plumber
mechanic carpenter hairdresser photographer artist musician actor actress lecturer professor tutor consultant
marketer recruiter pilot firefighter paramedic pharmacist veterinarian vet farmer baker librarian secretary
receptionist administrator sysadmin tester intern freelancer economist salesman saleswoman salesperson cleaner
courier soldier policeman policewoman officer nanny babysitter banker entrepreneur founder ceo cto director
supervisor technician clerk builder welder dancer singer youtuber blogger streamer coach trainer copywriter
midwife caregiver guard illustrator animator producer teaching assistant dev devops scientist statistician
mathematician physicist chemist biologist historian linguist nutritionist dietitian optometrist radiologist
paralegal auditor cook butcher tailor jeweler florist gardener janitor plumber postman mailman miner sailor
""")
# "I'm a good cook" says how well they cook, not what they do for a living.
EN_JOB_BLOCKERS = words("""
good great bad terrible awful decent excellent amazing better worse best horrible lousy fast slow natural born
real true aspiring wannabe would-be future former ex retired amateur hobby wanna failed frustrated struggling
big huge little total complete proper bit kind sort
""")
_RU_JOBS = """
программист разработчик инженер учитель учительница врач медсестра медбрат дизайнер менеджер бухгалтер юрист
адвокат водитель повар продавец продавщица официант официантка журналист журналистка переводчик переводчица
психолог аналитик тестировщик архитектор строитель электрик механик сантехник парикмахер фотограф художник
художница музыкант актёр актер актриса преподаватель преподавательница воспитатель воспитательница экономист
маркетолог курьер кассир охранник администратор директор руководитель тренер ветеринар стоматолог хирург
фармацевт редактор копирайтер блогер консультант рекрутер сисадмин студент студентка пилот стюардесса
бариста няня инженер-программист фронтендер бэкендер тимлид аспирант аспирантка педиатр терапевт
айтишник фрилансер предприниматель бизнесмен сварщик слесарь логист риелтор визажист косметолог массажист
кондитер пекарь столяр плотник грузчик таксист дальнобойщик
"""
RU_JOBS = form_table({job: job for job in _RU_JOBS.split()})
RU_JOB_NOMINATIVES = frozenset(_RU_JOBS.split())
# "I'm a teacher by training" / "я врач по образованию": what they studied, not what they do.
JOB_NOT_CURRENT = re.compile(
    r"^\W*(?:by\s+(?:training|education)|in\s+the\s+past|по\s+образованию|в\s+прошлом|в\s+душе)\b", I)
EN_JOB_STOPS = words("""
at in for with since and but who from on because so which that where when here there now full part during
over to by of as or while till until than my your his her their our this btw lol haha though actually too
myself currently anyway
""")
RU_COMPANIES = form_table({c: c for c in words("Яндекс Сбер Сбербанк Газпром Озон Мегафон Ростелеком Лукойл Аэрофлот "
                                                "Тинькофф Авито МТС ВТБ")})
# "As a teacher, I get summers off."
AS_JOB_EN = re.compile(r"^\W*as\s+(?=an?\s)", I)
JOB_TRIGGERS_EN = [
    re.compile(r"\bi\s+(?:currently\s+|now\s+|also\s+|still\s+|actually\s+)?work\s+(?P<prep>as|at|for)\s+", I),
    re.compile(rf"{I_AM}\s+(?:currently\s+|now\s+|also\s+|actually\s+)?an?\s+", I),
]
JOB_TRIGGER_RU = re.compile(r"(?:\bя\s+)?(?:сейчас\s+|теперь\s+|уже\s+|тоже\s+|официально\s+)?работаю\s+", I)
JOB_NOMINATIVE_RU = re.compile(
    r"(?:\bя\s*(?:[—–-]\s*)?(?:(?:тоже|сейчас|вообще|вот|как|по\s+профессии)\s+)?|\bпо\s+профессии\s+я\s+)"
    r"(?P<job>[^\W\d_]+(?:-[^\W\d_]+)?)(?P<of>\s+[^\W\d_]+(?:ого|его|и|ы))?", I)
JOB_TOKEN = re.compile(r"[^\W\d_][\w-]*")
ORGANISATION = re.compile(
    r"\s*(?:the\s+)?(?P<name>«[^»]+»|\"[^\"]+\"|“[^”]+”|"
    r"[^\W_][\w&'’-]*(?:\.[\w-]+)*(?:\s+(?:[A-ZА-ЯЁ0-9][\w&'’-]*|&)){0,3})")
NOT_EMPLOYERS = words("IT ИТ HR QA PR ML AI UX UI SMM SEO DevOps Devops")
RU_CLAUSE_END = re.compile(r"[,.!;:()]|\s(?:и|а|но|зато|хотя|потому)\s", I)
RU_INSTRUMENTAL_PREPOSITIONS = words("с со над под за перед между рядом вместе")
# What may follow "я программист": the end of the clause or a preposition, not "музыки" or "?".
RU_JOB_TAIL = re.compile(r"^(?:\s*$|\s*[,.!;:)—–-]|\s+(?:в|во|на|из|и|а|но|уже|с|со|тоже|сейчас|по)\b)", I)
SCHOOL_TRIGGERS = [
    re.compile(r"\bi\s+(?:currently\s+|now\s+)?study\s+at\s+", I),
    re.compile(r"(?:\bя\s+)?(?:сейчас\s+|теперь\s+)?учусь\s+(?:в|во|на)\s+", I),
    re.compile(r"\bi\s+(?:currently\s+|now\s+)?study\s+(?:[a-z]+\s+){1,3}?at\s+", I),  # "I study law at UCL"
]

# ---- marital status, diet, retirement ----------------------------------------------------------------------

# "I'm married", "я замужем", "I'm vegetarian", "я веган", "я на пенсии": a status said in one or two words,
# which must end the clause ("I'm married to my job", "I'm a vegan chef" say something else).
STATUS_TRIGGERS = [
    ("marital_status", re.compile(rf"{I_AM}\s+(?:happily\s+|now\s+|still\s+)?"
                                  r"(?P<status>married|divorced|single|widowed|separated)(?![\w-])", I)),
    ("marital_status", re.compile(r"\bя\s+(?:(?:уже|давно|тоже|счастливо)\s+)?"
                                  r"(?P<status>замужем|женат|разведена|разведён|разведен|в\s+разводе|холост|вдова|"
                                  r"вдовец)"
                                  r"(?![\w-])", I)),
    ("diet", re.compile(rf"{I_AM}\s+(?:a\s+)?(?:(?:strict|full)\s+)?(?P<status>vegetarian|vegan|pescatarian)(?![\w-])",
                        I)),
    ("diet", re.compile(r"\bя\s+(?:(?:тоже|вообще|уже|давно|теперь|строгий|строгая)\s+)*"
                        r"(?P<status>вегетарианка|вегетарианец|веганка|веган)(?![\w-])", I)),
    ("job_title", re.compile(rf"{I_AM}\s+(?:now\s+)?(?P<status>retired)(?![\w-])", I)),
    ("job_title", re.compile(r"\bя\s+(?:уже\s+)?(?P<status>на\s+пенсии)(?![\w-])", I)),
]
STATUS_END = re.compile(
    r"^\s*(?:$|[,.!;:)(…—–-]|(?:and|but|so|now|since|for|with|lol|haha|btw|too|и|а|но|уже|давно|кстати|если|с|со|"
    r"тоже)\b)", I)

# ---- guards -------------------------------------------------------------------------------------------

# Within the clause before a match: the statement is denied, or it was true only in the past.
NEGATION = re.compile(
    r"(?:^|[^\w'’])(?:не|нет|ни|никогда|not|never|no|n['’]t|dont|doesnt|didnt|cant|isnt|no\s+longer|hardly)(?:$|\W)|"
    r"\w+n['’]t\b", I)
PAST = re.compile(
    r"\b(?:used\s+to|раньше|когда-то|в\s+детстве|as\s+a\s+(?:kid|child)|back\s+then|previously|formerly|"
    r"in\s+the\s+past|"
    r"до\s+того|once)\b", I)
# Anywhere before a match in the sentence: a wish, a plan, a condition, a story or a game.
HYPOTHETICAL = re.compile(
    r"(?:^|\W)(?:if(?!\s+(?:i['’]?m\s+(?:honest|being\s+honest)|you\s+ask\s+me))|imagine|suppose|would|wish|hope|"
    r"maybe|perhaps|might|could|should|want|wanna|dream|dreaming|plan|"
    r"planning|going\s+to|gonna|will|someday|one\s+day|pretend|roleplay|role-play|let['’]s|"
    r"(?<!i['’]d\s)say|when|whenever|unless|"  # "I'd say I'm pretty stressed" hedges, it does not imagine
    r"act\s+(?:as|like)|play\s+(?:the\s+)?(?:role|part)|притворись|сыграй|играй|будь|будьте|стань|"
    r"(?!i['’]d\s+say\b)\w+['’](?:d|ll)|"
    r"если(?!\s+честно)|представь|представим|допустим|пусть|бы|хочу|хотела?|хотим|мечтаю|мечтала?|"
    r"планирую|"
    r"собираюсь|может|возможно|наверное|когда-нибудь|вдруг|когда|давай|игра\w*)(?:\W|$)", I)
REPORTED = re.compile(
    r"\b(?:said|says|told|tells|asked|asks|wrote|writes|claims|claimed|quote|quoting|movie|film|book|song|lyrics|"
    r"character|hero|heroine|сказал|сказала|сказали|говорит|говорила|говорил|говорят|пишет|написал|написала|"
    r"спросил|спросила|ответил|ответила|фильме|книге|песне|герой|героиня|персонаж|цитата|цитирую)\b", I)
# After a match: "…, — сказала она", '…," he said'.
REPORTED_AFTER = re.compile(
    r"(?:[\"»”]|[,—–]|\s-)\s*[—–-]?\s*(?:[^\W\d_]+\s+){0,2}?(?:said|says|asked|replied|сказал\w*|говорит|"
    r"ответил\w*|спросил\w*|добавил\w*)\b", I)
CLAUSE_BOUNDARY = re.compile(r"[,;:—–()]|\b(?:and|but|so|though|although|и|а|но|зато|однако|хотя)\b", I)
# What may stand before a Russian past-tense verb at the start of a clause without hiding another subject.
CLAUSE_OPENERS = re.compile(
    r"^(?:\W|и|а|но|ну|кстати|вот|короче|честно|вообще|да|ох|ой|эх|блин|так|уф|фух|сегодня|вчера|весь|день|с|утра|"
    r"опять|снова|уже|что-то|очень|прям|ужасно|жутко|немного|совсем|слушай|знаешь)*$", I)
QUESTION_START = re.compile(
    r"^\W*(?:what|where|why|how|who|whom|whose|which|do|does|did|is|are|am|can|could|would|should|will|shall|"
    r"почему|зачем|где|куда|откуда|кто|разве|неужели)\b(?!['’])", I)
QUESTION_PARTICLE = re.compile(r"\bли\b", I)
# "I live in Berlin, and you?": only the tag is a question.
TAG_QUESTION = re.compile(
    r"^(?P<body>.+?)[,;—–-]\s*(?:(?:and|what\s+about|how\s+about|а|и)\s+)?"
    r"(?:you|u|yours|ты|вы|тебя|тебе|у\s+тебя|у\s+вас)"
    r"\s*\?+\W*$", I)
SENTENCE = re.compile(r"[^.!?\n;]+[.!?\n;]*")
