"""Word lists, case tables, word-form helpers and trigger patterns for the fact rules in memory/rules.py.

rules.py decides (is this the user's own plain statement?); this module only knows words: which ones are
cities, jobs, animals or relatives, how Russian declines them, and what a trigger phrase looks like.
"""

from __future__ import annotations

import re

I = re.IGNORECASE
WORD = r"[^\W\d_]{2,}(?:-[^\W\d_]{2,})?"
I_AM = r"\bi(?:['’]?m|\s+am)"  # "I'm", "I’m", "im", "I am"
CLAUSE_START = r"(?<![^\W\d_]\s)"  # not right after "word ": at the start of the text or after punctuation
I_HAVE = (r"\b(?:i|we)(?:\s+(?:also\s+|still\s+|now\s+|even\s+)?(?:have\s+got|have|got|own)"
          r"|['’]ve(?:\s+(?:also\s+)?got)?)\s+")


def words(text: str) -> frozenset[str]:
    """Return the whitespace-separated words of `text` as a set."""
    return frozenset(text.split())


def ru_case_forms(noun: str) -> set[str]:
    """Return the singular case forms of a regular Russian noun (a superset, used only to recognise them)."""
    if " " in noun:  # multi-word names are listed with their forms
        return {noun}
    stem = noun[:-1]
    if noun.endswith("а"):
        return {noun, stem + "у", stem + "ы", stem + "и", stem + "е", stem + "ой", stem + "ей"}
    if noun.endswith("я"):
        return {noun, stem + "ю", stem + "и", stem + "е", stem + "ей"}
    if noun.endswith(("ь", "й")):
        return {noun, stem + "я", stem + "ю", stem + "ем", stem + "е", stem + "и"}
    if noun.endswith("ец"):
        return {noun, noun[:-2] + "ца", noun[:-2] + "цу", noun[:-2] + "цом", noun[:-2] + "цем"}
    if noun[-1] in "оиуыэюеё" or noun.isupper():
        return {noun}  # Сочи, Токио, США: indeclinable
    return {noun, noun + "а", noun + "у", noun + "ом", noun + "ем", noun + "е"}


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
               r"(?:живу|живём|живем|проживаю)\s+"
               r"(?:сейчас\s+|теперь\s+|уже\s+|давно\s+)?(?:с\s+[^\W\d_]+\s+(?:и\s+[^\W\d_]+\s+)?)?(?:в|во)\s+", I),
    re.compile(r"(?P<subj>\bя\s+)?(?:недавно\s+|уже\s+|наконец\s+|тоже\s+)?(?:переехал|переехала)\s+"
               r"(?:из\s+\S+\s+)?(?:в|во)\s+", I),
    re.compile(r"\bмы\s+(?:с\s+[^\W\d_]+\s+)?(?:недавно\s+|уже\s+|наконец\s+)?переехали\s+"
               r"(?:из\s+\S+\s+)?(?:в|во)\s+", I),
    # "I'm Dutch, living in Spain", "hi im sarah, 34, living in Manchester": the "I'm" of a short opening
    # carries over. The guards judge the clause from `at` on.
    re.compile(rf"^\W*(?:(?:hi|hello|hey)\W+)?{I_AM}\s+(?:[^\W\d_]+|\d+)(?:\s+[^\W\d_]+)?,"
               r"(?:\s*(?:[^\W\d_]+|\d+),)?\s*(?P<at>)(?:currently\s+|now\s+)?(?:living|based)\s+in\s+", I),
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
    ("diet", re.compile(r"\bя\s+(?:(?:тоже|вообще|уже|давно|строгий|строгая)\s+)*"
                        r"(?P<status>вегетарианка|вегетарианец|веганка|веган)(?![\w-])", I)),
    ("job_title", re.compile(rf"{I_AM}\s+(?:now\s+)?(?P<status>retired)(?![\w-])", I)),
    ("job_title", re.compile(r"\bя\s+(?:уже\s+)?(?P<status>на\s+пенсии)(?![\w-])", I)),
]
STATUS_END = re.compile(
    r"^\s*(?:$|[,.!;:)(…—–-]|(?:and|but|so|now|since|for|with|lol|haha|btw|too|и|а|но|уже|давно|кстати|если|с|со|"
    r"тоже)\b)", I)

# ---- pets and family ----------------------------------------------------------------------------------

EN_SPECIES = {
    "cat": "cat", "cats": "cat", "kitten": "cat", "kittens": "cat", "kitty": "cat", "dog": "dog", "dogs": "dog",
    "puppy": "dog", "puppies": "dog", "parrot": "parrot", "parrots": "parrot", "hamster": "hamster",
    "hamsters": "hamster", "rabbit": "rabbit", "rabbits": "rabbit", "bunny": "rabbit", "turtle": "turtle",
    "tortoise": "turtle", "guinea pig": "guinea_pig", "ferret": "ferret", "snake": "snake", "lizard": "lizard",
    "goldfish": "fish", "budgie": "parrot", "chinchilla": "chinchilla", "rat": "rat", "horse": "horse",
    # Dog breeds people name instead of "dog" ("a golden retriever named Max").
    "retriever": "dog", "labrador": "dog", "beagle": "dog", "poodle": "dog", "husky": "dog", "corgi": "dog",
    "dachshund": "dog", "pug": "dog", "terrier": "dog", "chihuahua": "dog", "spaniel": "dog", "bulldog": "dog",
}
_RU_SPECIES = {
    "кот": "cat", "кошка": "cat", "котик": "cat", "кошечка": "cat", "собака": "dog", "собачка": "dog",
    "попугай": "parrot", "хомяк": "hamster", "кролик": "rabbit", "черепаха": "turtle", "шиншилла": "chinchilla",
    "крыса": "rat", "хорёк": "ferret", "хорек": "ferret", "ящерица": "lizard", "змея": "snake", "лошадь": "horse",
    "мопс": "dog", "хаски": "dog", "корги": "dog", "овчарка": "dog", "лабрадор": "dog", "шпиц": "dog", "бигль": "dog",
}
_RU_SPECIES_IRREGULAR = {
    "коты": "cat", "котов": "cat", "кошки": "cat", "кошек": "cat", "котики": "cat", "котиков": "cat",
    "котёнок": "cat", "котенок": "cat", "котёнка": "cat", "котенка": "cat", "котята": "cat", "котят": "cat",
    "собаки": "dog", "собак": "dog", "пёс": "dog", "пес": "dog", "пса": "dog", "псы": "dog", "щенок": "dog",
    "щенка": "dog", "щенки": "dog", "щенков": "dog", "попугаи": "parrot", "попугаев": "parrot", "хомяки": "hamster",
    "хомяков": "hamster", "кролики": "rabbit", "кроликов": "rabbit", "рыбки": "fish", "рыбок": "fish",
    "черепахи": "turtle", "черепах": "turtle",
}
RU_SPECIES = form_table(_RU_SPECIES, _RU_SPECIES_IRREGULAR)
# The nominative singular of a Russian species word, for values like "кот Барсик".
RU_SPECIES_NOMINATIVE = {form: nom for nom in _RU_SPECIES for form in ru_case_forms(nom)}
RU_SPECIES_NOMINATIVE.update({"котёнка": "котёнок", "котенка": "котенок", "пса": "пёс", "щенка": "щенок"})

EN_RELATIVES = {
    "wife": "wife", "husband": "husband", "son": "son", "daughter": "daughter", "sister": "sister",
    "brother": "brother", "mom": "mother", "mum": "mother", "mother": "mother", "mommy": "mother",
    "dad": "father", "father": "father", "daddy": "father", "kid": "child", "child": "child",
    "kids": "children", "children": "children", "sons": "son", "daughters": "daughter", "sisters": "sister",
    "brothers": "brother", "grandma": "grandmother", "grandmother": "grandmother", "granny": "grandmother",
    "grandpa": "grandfather", "grandfather": "grandfather", "girlfriend": "girlfriend", "boyfriend": "boyfriend",
    "partner": "partner", "fiance": "fiance", "fiancé": "fiance", "fiancee": "fiance", "fiancée": "fiance",
    "aunt": "aunt", "uncle": "uncle", "cousin": "cousin", "niece": "niece", "nephew": "nephew",
    "parents": "parents", "siblings": "siblings", "grandson": "grandson", "granddaughter": "granddaughter",
    "grandkids": "grandchildren", "grandchildren": "grandchildren", "stepson": "stepson",
    "stepdaughter": "stepdaughter", "stepmother": "stepmother", "stepfather": "stepfather", "twin": "twin",
}
_RU_RELATIVES = {
    "сестра": "sister", "сестрёнка": "sister", "сестренка": "sister", "брат": "brother", "братик": "brother",
    "мама": "mother", "мать": "mother", "папа": "father", "отец": "father", "муж": "husband", "жена": "wife",
    "сын": "son", "сынок": "son", "дочь": "daughter", "дочка": "daughter", "бабушка": "grandmother",
    "дедушка": "grandfather", "девушка": "girlfriend", "парень": "boyfriend", "тётя": "aunt", "тетя": "aunt",
    "дядя": "uncle", "племянник": "nephew", "племянница": "niece", "внук": "grandson", "внучка": "granddaughter",
    "жених": "fiance", "невеста": "fiance",
}
_RU_RELATIVES_IRREGULAR = {
    "отца": "father", "отцу": "father", "отцом": "father", "матери": "mother", "матерью": "mother",
    "дочери": "daughter", "дочерью": "daughter", "парня": "boyfriend", "парню": "boyfriend", "парнем": "boyfriend",
    "дети": "children", "детей": "children", "детям": "children", "детьми": "children", "ребёнок": "child",
    "ребенок": "child", "ребёнка": "child", "ребенка": "child", "сыновья": "son", "сыновей": "son",
    "дочки": "daughter", "дочерей": "daughter", "сестры": "sister", "сестёр": "sister", "сестер": "sister",
    "братья": "brother", "братьев": "brother", "родители": "parents", "родителей": "parents", "внуки": "grandchildren",
    "внуков": "grandchildren", "сёстры": "sister",
}
RU_RELATIVES = form_table(_RU_RELATIVES, _RU_RELATIVES_IRREGULAR)
RU_RELATIVE_NOMINATIVE = {form: nom for nom in _RU_RELATIVES for form in ru_case_forms(nom)}
RU_RELATIVE_NOMINATIVE.update({"отца": "отец", "отцу": "отец", "отцом": "отец", "матери": "мать", "матерью": "мать",
                               "дочери": "дочь", "дочерью": "дочь", "парня": "парень", "парню": "парень",
                               "парнем": "парень", "ребёнка": "ребёнок", "ребенка": "ребенок"})
# One word allowed between "my"/"a" and the relative or animal ("my little sister", "a black cat").
EN_RELATIVE_MODIFIERS = words("little older younger big elder baby twin step half eldest oldest youngest")
EN_PET_MODIFIERS = words("little black white ginger grey gray orange tabby fluffy big small new rescue lazy pet tiny "
                         "cute golden")
RU_MODIFIERS = words("""
младшая младший старшая старший маленькая маленький взрослая взрослый любимая любимый родная родной младшую
старшую младшего старшего рыжий рыжая чёрный черный чёрная черная белый белая серый серая пушистый пушистая
""")
# "my cat videos", "my mother tongue": the animal or relative is only the first half of another noun.
COMPOUND_HEADS = words("""
allergy allergies person people food toy toys bed video videos meme memes sitter walker tattoo mug shirt picture
pictures photo photos costume hair tongue land country board ship figure joke jokes nature in-law hen show
years days friend friends bite bites breed park owner owners lover lovers treat treats collar leash sitting
""")
MODIFIERS = {"pet": EN_PET_MODIFIERS | RU_MODIFIERS, "family": EN_RELATIVE_MODIFIERS | RU_MODIFIERS}
NUMBER_WORDS = words("""
a an one two three four five six seven eight nine ten several some few couple
один одна одно два две три четыре пять шесть двое трое четверо пятеро несколько
""")
# A name tied to the animal or relative just named: "named Luna", "'s name is Rex", ", её зовут Мурка".
NAME_LINKS = re.compile(
    r"^(?:['’]s\s+(?:name\s+is|called|named)|\s+is\s+(?:called|named)|"
    r"\s*,?\s*(?:named|called|whose\s+name\s+is|(?:and\s+)?(?:his|her|its)\s+name\s+is|"
    r"по\s+кличке|по\s+имени|(?:(?:которого|которую|её|его|ее)\s+)?зовут))\s+"
    rf"(?P<name>{WORD})", I)
DIRECT_NAME = re.compile(rf"^(?P<comma>\s*,)?\s+(?P<name>{WORD})\b")
_HEADS = sorted(set(EN_SPECIES) | set(RU_SPECIES) | set(EN_RELATIVES) | set(RU_RELATIVES), key=len, reverse=True)
_MODIFIER_WORDS = sorted(EN_PET_MODIFIERS | EN_RELATIVE_MODIFIERS | RU_MODIFIERS, key=len, reverse=True)
KIN_ITEM = re.compile(
    rf"(?:(?P<count>{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))}|\d+)\s+)?"
    rf"(?:(?P<modifier>{'|'.join(_MODIFIER_WORDS)})\s+)?(?P<head>{'|'.join(re.escape(h) for h in _HEADS)})(?![\w-])", I)
# Words after which a capitalised word is the animal's or relative's name ("кот Барсик", not "кота Барсика").
NOMINATIVES = frozenset(set(EN_SPECIES) | set(EN_RELATIVES) | set(_RU_SPECIES) | set(_RU_RELATIVES)
                        | {"пёс", "пес", "щенок", "котёнок", "котенок"})
# "I have rabbit stew": in English a singular animal or relative needs "a" or a number after "I have".
EN_SINGULAR = frozenset(w for w in set(EN_SPECIES) | set(EN_RELATIVES) if not w.endswith(("s", "ren")))
RU_NEGATED_AFTER = re.compile(r"^\s+(?:нет|не\s+было|больше\s+нет|уже\s+нет)\b", I)
# "Муж у меня врач", "Кот у меня рыжий": the relative or animal comes first, "у меня" after it.
INVERTED_HAVE_RU = re.compile(r"(?:^|[,;—–]\s*|\b(?:а|и|но)\s+)(?P<head>[^\W\d_]+)\s+у\s+(?:меня|нас)\b", I)
IDIOMS = re.compile(
    r"\b(?:partner\s+in\s+crime|mother\s+nature|brother\s+from\s+another\s+mother|sick\s+as\s+a\s+dog|"
    r"raining\s+cats\s+and\s+dogs|dog\s+days|cat\s+got\s+your\s+tongue|big\s+brother\s+is|"
    r"dog\s+in\s+(?:the|this)\s+fight|"
    r"let\s+the\s+cat\s+out)\b", I)
# In the clause before "my …": the bot is addressed ("You're my girlfriend", "ты моя девушка").
ADDRESSEE = re.compile(r"\b(?:you|you['’]re|u|ur|be|become|ты|вы|тебя|тебе|будь|будьте|стань)\b", I)
POSSESSIVE_EN = re.compile(r"\b(?:my|our)\s+", I)
POSSESSIVE_RU = re.compile(r"\b(?:мой|моя|моё|мое|мои|моего|моему|моим|моём|моем|мою|моей|моих|моими|наш|наша|наши|"
                           r"нашего|нашему|нашим|нашу|нашей|наших)\s+", I)
HAVE_RU = re.compile(r"\bу\s+(?:меня|нас)\s+(?:(?:есть|живёт|живет|живут|тоже|ещё|еще|уже|дома)\s+)*", I)
# "Есть дочка по имени Соня": in chat a bare "есть" opening a clause is the user's; its relative or animal must
# be in the nominative or counted ("есть двое детей"), and nobody else may own it ("у подруги …, есть дочка").
BARE_HAVE_RU = re.compile(r"(?:^\W*|[,;:—–]\s*|\b(?:а|и|но)\s+)(?:(?:ещё|еще|также|тоже)\s+)?есть\s+"
                          r"(?:(?:ещё|еще|тоже)\s+)?", I)
OTHER_OWNER_RU = re.compile(r"\bу\s+(?!(?:меня|нас)\b)[^\W\d_]+", I)
# "Есть кот у соседей": the owner named after the animal.
OWNER_AFTER_RU = re.compile(r"^\s+у\s+(?!(?:меня|нас)\b)", I)
# "Сына зовут Миша", "Кошку зовут Муся": a relative or animal named at the start of a clause, with no owner.
BARE_NAMED_RU = re.compile(rf"(?:^\W*|[,;:—–]\s*|\b(?:а|и|но)\s+)(?P<head>[^\W\d_]+)\s+зовут\s+(?P<name>{WORD})", I)
# "Я обожаю свою собаку Лайку": "свой" is the subject's, so the clause before must be the user's ("я", "обожаю").
OWN_RU = re.compile(r"\b(?:свой|своя|своё|свое|свои|своего|своему|своим|своём|своем|свою|своей|своих|своими)\s+", I)
FIRST_PERSON_RU = re.compile(r"(?:^|\s)(?:я|[^\W\d_]{2,}(?:ю|у))\s+(?:[^\W\d_]+\s+)?$", I)
# "I'm a mom of two boys", "I'm 41 and a dad of three", "Я мама двоих детей".
PARENT_OF_EN = re.compile(
    rf"(?:{I_AM}|^\W*{I_AM}\s[^.;]{{0,40}}?\band)\s+(?:a\s+)?(?:(?:proud|single|working|busy|tired)\s+)?"
    r"(?:mom|mum|mother|dad|father|parent|mommy|daddy)\s+(?:of|to)\s+(?P<count>two|three|four|five|six|\d)"
    r"(?:\s+(?P<head>kids|children|boys|girls|sons|daughters))?\b", I)
PARENT_OF_RU = re.compile(
    r"\bя\s+(?:[—–-]\s*)?(?:(?:счастливая|молодая|многодетная|гордая)\s+)?(?:мама|мать|папа|отец)\s+"
    r"(?P<count>двоих|троих|четверых|пятерых|двух|трёх|трех|четырёх|четырех)\s+"
    r"(?P<head>детей|детишек|сыновей|дочек|дочерей|мальчиков|мальчишек|девочек)\b", I)
PARENT_COUNTS = {"двоих": "двое", "двух": "двое", "троих": "трое", "трёх": "трое", "трех": "трое",
                 "четверых": "четверо", "четырёх": "четверо", "четырех": "четверо", "пятерых": "пятеро"}
PARENT_HEADS = {"boys": "son", "sons": "son", "girls": "daughter", "daughters": "daughter", "сыновей": "son",
                "мальчиков": "son", "мальчишек": "son", "дочек": "daughter", "дочерей": "daughter",
                "девочек": "daughter"}
# "We just adopted a kitten", "Я недавно завела кота": a new pet, past tense but theirs now.
ADOPTED_EN = re.compile(r"\b(?:i|we)(?:\s+have|['’]ve)?\s+(?:just\s+|recently\s+|finally\s+)?(?:adopted|rescued)\s+", I)
ADOPTED_RU = re.compile(r"(?P<subj>\b(?:я|мы)\s+)?(?:недавно\s+|наконец\s+|тоже\s+|вчера\s+)?"
                        r"(?:завела|завёл|завел|завели)\s+(?:себе\s+)?", I)
HAVE_EN = re.compile(I_HAVE, I)
# "мы с мужем", "живу с мамой и сестрой": the people the user lives or does things with.
WITH_RU = re.compile(r"\b(?:мы|живу|живём|живем)\s+с\s+", I)
LIST_JOINER = re.compile(r"\s*(?:,\s*(?:and\s+|и\s+)?|\s+and\s+|\s+и\s+|\s+а\s+ещё\s+|\s+plus\s+)", I)
DEATH = re.compile(
    r"\b(?:died|dead|passed\s+away|passed|rip|lost|ran\s+away|умер|умерла|умерли|погиб|погибла|не\s+стало|скончал\w*|"
    r"сдох\w*|убежал\w*|сбежал\w*|пропал\w*)\b", I)



def kind_of(word: str) -> tuple[str | None, str]:
    """Return ("pet", species) or ("family", relation) for an animal or relative word, else (None, "")."""
    lowered = word.lower()
    for kind, table in (("pet", EN_SPECIES), ("pet", RU_SPECIES), ("family", EN_RELATIVES), ("family", RU_RELATIVES)):
        if lowered in table:
            return kind, table[lowered]
    return None, ""


def ru_nominative(word: str) -> str | None:
    """Return the nominative singular of a Russian animal or relative word ("кота" -> "кот"), or None."""
    lowered = word.lower()
    return RU_SPECIES_NOMINATIVE.get(lowered) or RU_RELATIVE_NOMINATIVE.get(lowered)

# ---- likes and dislikes -------------------------------------------------------------------------------

_ADV_EN = (r"(?:(?:really|absolutely|just|truly|also|totally|genuinely|do|still|honestly|simply|so|kinda|always|"
           r"both|all)\s+)*")
_ADV_RU = (r"(?:(?:очень|просто|реально|тоже|ещё|еще|безумно|так|всегда|правда|вообще|прям|сильно|совсем|"
           r"категорически|честно)\s+)*")
# A run of adverbs before a Russian verb may start only after "я" or at a clause start: a match that could
# start anywhere inside "очень очень очень…" would make the search quadratic in the message length.
_LEAD_RU = rf"(?:(?:\bя\s+|{CLAUSE_START}){_ADV_RU})?"
LIKE_TRIGGERS = [
    re.compile(rf"\bi\s+{_ADV_EN}(?:love|like|adore|enjoy)\s+", I),
    re.compile(rf"{I_AM}\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+|massive\s+)?fan\s+of\s+", I),
    re.compile(rf"{I_AM}\s+(?:really\s+|very\s+|super\s+|totally\s+)?"
               r"(?:into|obsessed\s+with|passionate\s+about|crazy\s+about)\s+", I),
    re.compile(r"\bmy\s+favou?rite\s+(?:[a-z]+\s+){1,2}(?:is|are)\s+", I),
    re.compile(r"\bя\s+(?:(?:большой|огромный|большая|огромная|настоящий|настоящая)\s+)?"
               r"(?:фанат|фанатка|поклонник|поклонница)\s+", I),
    re.compile(rf"{_LEAD_RU}(?:люблю|обожаю)\s+", I),
    re.compile(rf"\bмне\s+{_ADV_RU}(?:нравится|нравятся)\s+", I),
    re.compile(r"\bмо[йяеёи]\s+любим(?:ый|ая|ое|ые)\s+[^\W\d_]+\s*(?:[—–:-]\s*(?:это\s+)?|это\s+|\s)", I),
]
DISLIKE_TRIGGERS = [
    re.compile(rf"\bi\s+{_ADV_EN}(?:hate|dislike|detest|loathe|despise)\s+", I),
    re.compile(rf"\bi\s+{_ADV_EN}(?:can['’]?t|cannot|can\s+not)\s+stand\s+", I),
    re.compile(rf"\bi\s+{_ADV_EN}(?:don['’]?t|do\s+not)\s+(?:really\s+|much\s+|particularly\s+)?"
               r"(?:like|love|enjoy)\s+", I),
    re.compile(rf"{I_AM}\s+not\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?fan\s+of\s+", I),
    re.compile(rf"{_LEAD_RU}не\s+(?:очень\s+)?(?:люблю|перевариваю|выношу|переношу)\s+", I),
    re.compile(rf"{_LEAD_RU}(?:ненавижу|терпеть\s+не\s+могу)\s+", I),
    re.compile(rf"\bмне\s+{_ADV_RU}не\s+нрав(?:ится|ятся)\s+", I),
    re.compile(rf"\bменя\s+{_ADV_RU}(?:бесит|бесят|раздражает|раздражают)\s+", I),
]
# "I'm a huge Arsenal fan": the thing comes before "fan".
FAN_NOT_THINGS = words("a an the not no such big huge real true total biggest number one")
FAN_EN = re.compile(
    rf"{I_AM}\s+(?:an?\s+)?(?:(?:big|huge|massive|great|die-hard|lifelong)\s+)?"
    r"(?P<thing>[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*)?)"
    r"\s+fan\b(?!\s+of)", I)
# A liked thing ends at the first of these; what follows is another clause.
OBJECT_END = re.compile(
    r"[.!?;:()\"«»“”]|\s[—–]\s|\b(?:but|because|cause|cuz|since|when|whenever|if|though|although|while|which|that|"
    r"who|where|so|especially|particularly|except|unless|than|instead|но|а|потому|поскольку|когда|если|хотя|"
    r"который|которая|которое|которые|что|чтобы|зато|ведь|особенно|кроме|пока|чем|больше|меньше|вместо)\b|"
    r"\b(?:more|better|less)\s+than\b", I)
OBJECT_SPLIT = re.compile(r"\s*,\s*(?:and\s+|и\s+|or\s+|или\s+)?|\s+(?:and|or|и|или|&)\s+|\s*/\s*", I)
# "A, B and C" is a list; "coffee, it wakes me up" is one thing and another clause.
LIST_END = re.compile(r",[^,]*\s(?:and|or|и|или|&)\s[^,]*$", I)
# Things whose name holds "and", kept whole when a list is split.
FIXED_PHRASES = re.compile(
    r"rock\s+and\s+roll|mac\s+and\s+cheese|fish\s+and\s+chips|drum\s+and\s+bass|rhythm\s+and\s+blues|"
    r"salt\s+and\s+pepper|peanut\s+butter\s+and\s+jelly|dungeons\s+and\s+dragons|pride\s+and\s+prejudice", I)
# A liked "thing" that starts like this is about the bot, the moment or another person, or is another clause.
OBJECT_REJECT_START = words("""
you u ya your yours it it's its this that these those them him her how when what the-way why there here
me myself i i'm we he she they being getting people someone somebody everyone everything anything nothing
my our his their one another each every such whatever
тебя тебе тобой вас вам вами твой твою твоё твое твои твоих твоего вашу ваш ваши это этот эту эти этого
его её ее их как когда что чтобы так свою свой своё свое свои своего моего мою мой моя мои моих меня мне я
мы он она они кого всё все всех ничего
""")
# A liked thing that mentions the bot anywhere is about the conversation ("the way you talk", "болтать с тобой").
ABOUT_THE_BOT = words("you u ya your yours you're тебя тебе тобой твой твоя твою твоё твое твои твоих твоим "
                      "вас вам вами ваш")
OBJECT_TRAILING = re.compile(
    r"(?:\s+(?:too|also|as\s+well|so\s+much|very\s+much|a\s+lot|a\s+ton|lately|the\s+most|more\s+than\s+anything|"
    r"to\s+death|a\s+bunch|тоже|очень|сильно|больше\s+всего|безумно|также|просто|всегда|до\s+безумия))+$", I)
# A list item that starts with a verb is a new clause ("I love jazz and play guitar").
EN_VERB_STARTS = words("""
play go have want work live write read make do am was can will would need think know try get got use hate like
love enjoy spend watch listen see feel hope prefer also then really always sometimes never often usually just
""")
RU_VERB_STARTS = words("""
пишу хожу езжу вожу сижу вижу живу учусь могу хочу иду еду люблю готовлю пою сплю тоже ещё еще всегда иногда
часто обычно никогда
""")
RU_VERB_ENDINGS = ("аю", "яю", "ею", "ую", "юсь", "усь", "ишь", "ешь")
# "cooking for my family and friends": after a preposition, "and" continues that phrase, not the list.
OBJECT_PREPOSITIONS = words("for with to in on about at from of по с со для на в во о об у от из за")
ACTIVITY_ENDINGS = ("ing", "ть", "ться", "чь")  # gerunds and infinitives name activities
NOT_A_LIKING = words("think believe imagine say know pretend assume call point help")  # "I like to think ..."

# ---- states -------------------------------------------------------------------------------------------

EN_STATES = words("""
tired exhausted sleepy sad depressed lonely bored stressed anxious nervous worried upset angry frustrated
overwhelmed sick ill unwell happy excited scared heartbroken hungover homesick grumpy miserable relaxed
jetlagged jet-lagged drained
""")
EN_STATE_PHRASES = ["stressed out", "burned out", "burnt out", "worn out", "under the weather"]
_STATE_ADV_EN = (r"(?:(?:so|really|very|a\s+bit|a\s+little(?:\s+bit)?|kind\s+of|kinda|sort\s+of|pretty|super|quite|"
                 r"dead|totally|completely|extremely|incredibly|too|just|honestly|rather|absolutely|utterly|insanely|"
                 r"bloody|damn|feeling|getting|still|also|seriously|literally|somewhat|soo+)\s+)*")
_EN_STATE_WORDS = "|".join(sorted([re.escape(p).replace(r"\ ", r"\s+") for p in EN_STATE_PHRASES]
                                  + sorted(EN_STATES), key=len, reverse=True))
_FEELING_WORDS = rf"{_EN_STATE_WORDS}|down|low|blue"  # "feeling down", never "I'm down" (that agrees)
STATE_TRIGGERS_EN = [
    re.compile(rf"{I_AM}\s+{_STATE_ADV_EN}(?P<state>{_EN_STATE_WORDS})(?![\w-])", I),
    re.compile(rf"\bi(?:\s+feel|['’]ve\s+been\s+feeling|\s+have\s+been\s+feeling)\s+{_STATE_ADV_EN}"
               rf"(?P<state>{_FEELING_WORDS})(?![\w-])", I),
    re.compile(rf"{I_AM}\s+(?:just\s+|still\s+|also\s+)?feeling\s+{_STATE_ADV_EN}(?P<state>down|low|blue)\b", I),
    # Subjectless at a clause start: "Been feeling kind of lonely", "feeling really down today".
    re.compile(rf"{CLAUSE_START}(?:(?:been|still|just|also|honestly)\s+)*feel(?:ing|in['’]?)\s+{_STATE_ADV_EN}"
               rf"(?P<state>{_FEELING_WORDS})(?![\w-])", I),
    re.compile(r"\bi\s+(?:have|['’]ve\s+got|have\s+got|got)\s+(?:a\s+|the\s+)?"
               r"(?:bad\s+|terrible\s+|slight\s+|little\s+)?"
               r"(?P<state>cold|flu|fever|headache|migraine|hangover|covid|sore\s+throat|toothache|stomachache)\b", I),
]
# Subjectless with an intensifier at a clause start ("really sad today", "so so tired"): the clause must end
# there, after a time word at most, and an emotion needs the time word ("So sad!" answers a story).
_INTENSIFIER_EN = (r"(?:so+|really|very|super|too|kinda|pretty|quite|extremely|incredibly|totally|completely|dead|"
                   r"bloody|damn|utterly|insanely|a\s+bit|a\s+little)")
SUBJECTLESS_STATE_EN = re.compile(rf"{CLAUSE_START}(?:(?:honestly|just|still|also)\s+)?(?:{_INTENSIFIER_EN}\s+)+"
                                  rf"(?P<state>{_EN_STATE_WORDS})(?![\w-])", I)
EN_BODILY_STATES = words("tired exhausted sleepy sick ill unwell hungover jetlagged jet-lagged drained stressed "
                         "overwhelmed") | {"stressed out", "burned out", "burnt out", "worn out"}
_EN_NOW = (r"(?:today|tonight|right\s+now|rn|atm|now|lately|these\s+days|this\s+(?:morning|evening|afternoon|week)|"
           r"all\s+day)")
NOW_EN = re.compile(rf"^\s*{_EN_NOW}\b", I)
SUBJECTLESS_END_EN = re.compile(
    rf"^\s*(?:{_EN_NOW}\b)?\s*(?!,\s*when)(?:$|[,.!;:)(…]|(?:and|but|lol|haha|ugh|tbh|honestly|af)\b)", I)
# "Feeling lonely is normal": the gerund is the subject of another verb.
GERUND_SUBJECT = re.compile(r"^\s+(?:is|was|isn['’]t|can|could|will|makes?|means?|sucks)\b", I)
# "tired of", "happy to help", "happy for you", "sick and tired": not the user's condition.
STATE_NOT_AFTER = re.compile(
    r"^\s*(?:of|to|for|and\s+tired|enough|as|with\s+(?:you|it|this|that)|от\s+(?:тебя|вас|этого|всего|всех|тво\w+|"
    r"людей|жизни|разговор\w*))\b", I)
_RU_STATES = {
    "устал": "устал", "устала": "устал", "вымотался": "вымотался", "вымоталась": "вымотался",
    "заболел": "болею", "заболела": "болею", "болею": "болею", "простыл": "простыл", "простыла": "простыл",
    "простудился": "простыл", "простудилась": "простыл", "не выспался": "не выспался", "не выспалась": "не выспался",
    "выгорел": "выгорел", "выгорела": "выгорел", "грущу": "грущу", "нервничаю": "нервничаю", "волнуюсь": "волнуюсь",
    "переживаю": "волнуюсь", "злюсь": "злюсь", "тоскую": "грущу", "счастлив": "счастлив", "счастлива": "счастлив",
    "в стрессе": "в стрессе", "в депрессии": "в депрессии", "на нервах": "нервничаю",
}
RU_STATES = _RU_STATES
# Past tense and short adjectives carry no person ("она устала"), so they need "я" or a clause start.
RU_STATES_NEED_SUBJECT = frozenset(form for form in _RU_STATES if not form.endswith(("ю", "усь", "юсь")))
RU_FEELINGS = words("грустно плохо одиноко скучно тревожно страшно тоскливо весело хреново паршиво обидно тяжело "
                    "нехорошо")
RU_AILMENTS = {"стресс": "стресс", "депрессия": "депрессия", "температура": "температура", "простуда": "простуда",
               "похмелье": "похмелье", "мигрень": "мигрень", "насморк": "насморк", "болит голова": "болит голова",
               "болит горло": "болит горло", "болит живот": "болит живот"}
_RU_STATE_ADVERB = (r"(?:так|очень|сильно|немного|немножко|ужасно|жутко|совсем|дико|страшно|капец|прям|реально|"
                    r"просто|уже|опять|снова|чуть|что-то|вообще|сегодня|сейчас|чертовски|смертельно|адски|как-то|"
                    r"тоже|ещё|еще)")
_STATE_ADV_RU = rf"(?:{_RU_STATE_ADVERB}\s+)*"
_RU_STATE_WORDS = "|".join(sorted((re.escape(s).replace(r"\ ", r"\s+") for s in _RU_STATES), key=len, reverse=True))
STATE_TRIGGER_RU = re.compile(
    rf"(?:(?:(?P<subj>\bя\s+)|{CLAUSE_START}){_STATE_ADV_RU})?(?P<state>{_RU_STATE_WORDS})(?![\w-])", I)
FEELING_TRIGGER_RU = re.compile(rf"\bмне\s+{_STATE_ADV_RU}(?P<state>{'|'.join(sorted(RU_FEELINGS))})\b", I)
# "Сегодня очень грустно", "Так одиноко": no "мне", so an adverb must open the clause, the clause must end after
# the feeling, and only feelings count ("Очень плохо, что ты не пришёл" judges, it does not feel).
_RU_SUBJECTLESS = "грустно одиноко скучно тревожно тоскливо страшно обидно"
SUBJECTLESS_FEELING_RU = re.compile(
    rf"{CLAUSE_START}(?:{_RU_STATE_ADVERB}\s+)+(?P<state>{'|'.join(_RU_SUBJECTLESS.split())})(?![\w-])", I)
SUBJECTLESS_END_RU = re.compile(
    r"^(?:\s+(?:сегодня|сейчас|весь\s+день|с\s+утра|вечером|как-то|что-то|прям|уже|мне|в\s+последнее\s+время))*\s*"
    r"(?!,\s*когда)(?:$|[,.!;:)(…]|(?:и|а|но)\b)", I)
_RU_AILMENT_WORDS = "|".join(a.replace(" ", r"\s+") for a in RU_AILMENTS)
AILMENT_TRIGGER_RU = re.compile(rf"\bу\s+меня\s+{_STATE_ADV_RU}(?P<state>{_RU_AILMENT_WORDS})\b", I)
# "Весь день болит голова": an ache with no owner named is the user's, at the start of a clause.
ACHE_TRIGGER_RU = re.compile(
    rf"(?:{CLAUSE_START}{_STATE_ADV_RU})?(?P<state>болит\s+(?:голова|горло|живот|спина|зуб))\b", I)
# "летом мне плохо", "when it rains I'm sad": a habit, not how the user is now.
HABITUAL = re.compile(
    r"\b(?:обычно|часто|иногда|всегда|постоянно|летом|зимой|весной|осенью|по\s+утрам|по\s+вечерам|по\s+ночам|"
    r"по\s+понедельникам|usually|often|sometimes|always|every|in\s+(?:the\s+)?(?:summer|winter|spring|autumn|fall|"
    r"mornings?|evenings?)|on\s+mondays)\b", I)
# "мне плохо видно", "мне страшно представить": the adverb belongs to another verb.
FEELING_NOT_AFTER = re.compile(r"^\s+(?:[^\W\d_]+(?:ть|ться|чь|но)|удаётся|удается|получается|даётся|дается)\b", I)

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
