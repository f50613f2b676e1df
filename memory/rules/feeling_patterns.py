"""Word lists and trigger patterns for likes, dislikes and states (memory/rules/feelings.py): what the user
loves or can't stand, and how they feel right now ("I'm so tired", "мне грустно", "у меня температура").
"""

from __future__ import annotations

import re

from memory.rules.fact_patterns import CLAUSE_START, I_AM, I, words

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
GERUND_SUBJECT = re.compile(
    r"^\s+(?:is|was|isn['’]t|can|could|will|would|must|makes?|means?|sucks|sounds?|seems?|feels?|costs?|gets?)\b", I)
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
