"""Trigger patterns and guard words for the change rules (memory/rules/endings.py, corrections.py, forgets.py):
what says a fact ended, was said wrong, or is to be forgotten, in Russian and English. Only words live here.
"""

from __future__ import annotations

import re

from memory.rules.fact_patterns import I, words

# The words that name what changed: up to the end of the clause.
_ABOUT = r"(?P<about>[^,.;:!?()«»\"“”\n]{1,60}?)"
_ABOUT_END = r"(?=\s*(?:$|[,.;:!?()«»\"“”\n]|\s(?:и|а|но|потому|так\s+что|and|but|because|so|since)\b))"
_ADV_RU = r"(?:(?:уже|наконец|сегодня|вчера|недавно|официально|всё-таки|все-таки|окончательно|тоже|просто)\s+)*"
_ADV_EN = r"(?:(?:just|finally|officially|recently|actually|already|also|now|today|yesterday)\s+)*"
_I_EN = r"\b(?:i|we)\s+" + _ADV_EN
_SUBJ_RU = r"(?P<subj>\b(?:я|мы)\s+)?" + _ADV_RU

# ---- endings ------------------------------------------------------------------------------------------------

# A job left: the organisation named (or "работы", "my job") follows; the employer it names must be known.
JOB_ENDED = [
    re.compile(_SUBJ_RU + r"(?:уволил(?:ся|ась)|ушл[аи]|ушёл|ушел)\s+(?:[^\W\d_]+\s+)?(?:из|с|со)\s+"
               r"(?P<about>работы|[«\"]?[A-ZА-ЯЁ][\w&-]*(?:\s+[A-ZА-ЯЁ][\w&-]*)?)", I),
    re.compile(r"\bменя\s+(?:[^\W\d_]+\s+){0,2}?(?:уволили|сократили|выгнали|попросили\s+уйти)"
               r"(?:\s+(?:из|с)\s+(?P<about>работы|[A-ZА-ЯЁ][\w&-]*))?", I),
    re.compile(r"\bя\s+(?:тоже\s+)?больше\s+не\s+работаю(?:\s+(?:в|во|на)\s+(?P<about>[A-ZА-ЯЁ«\"][\w&-]*))?", I),
    re.compile(r"\b(?:я\s+)?(?:уже\s+)?(?:вышла|вышел)\s+на\s+пенсию\b", I),
    re.compile(r"\b(?:я\s+)?(?:теперь\s+|сейчас\s+)?безработн(?:ый|ая)\b", I),
    re.compile(r"\b(?:я\s+)?(?:потерял|потеряла)\s+работу\b", I),
    # "I quit my job at Google", "I left Google" (not "Google's office"); the organisation is checked in code.
    re.compile(_I_EN + r"(?:quit|left|resigned\s+from|walked\s+out\s+of)\s+(?:my\s+(?:job|position)\s+(?:at|with)\s+)?"
               r"(?P<about>[A-Z][\w&-]*\b(?!['’]s)(?:\s+[A-Z][\w&-]*\b(?!['’]s))?)", I),
    re.compile(_I_EN + r"(?:quit|left)\s+my\s+(?:job|work)\b", I),
    re.compile(r"(?:\b(?:i|we)(?:['’]ve|\s+have|\s+was|\s+got|\s+am|['’]m)?\s+|^\W*)(?:been\s+|being\s+)?(?:got\s+)?"
               r"(?:fired|laid\s+off|let\s+go|sacked|made\s+redundant)\b"
               r"(?:\s+(?:from|by)\s+(?P<about>[A-Z][\w&-]*))?", I),
    re.compile(_I_EN + r"no\s+longer\s+work\s+(?:at|for)\s+(?P<about>[A-Z][\w&-]*)", I),
    re.compile(_I_EN + r"(?:don['’]?t|do\s+not)\s+work\s+(?:at|for)\s+(?P<about>[A-Z][\w&-]*)\s+any\s?more\b", I),
    re.compile(r"\bi(?:['’]m|\s+am)\s+no\s+longer\s+(?:at|with)\s+(?P<about>[A-Z][\w&-]*)", I),
    re.compile(_I_EN + r"lost\s+my\s+job\b", I),
    re.compile(_I_EN + r"retired\b", I),
]
PLAIN_JOB_WORDS = frozenset({"работы", "job", "work"})

# A place left for good.
PLACE_ENDED = [
    re.compile(r"\bя\s+(?:уже\s+)?больше\s+не\s+живу\s+(?:в|во)\s+" + _ABOUT + _ABOUT_END, I),
    re.compile(_SUBJ_RU + r"(?:переехала|переехал|переехали)\s+из\s+(?P<about>[A-ZА-ЯЁ][\w-]*)(?!\s+(?:в|во|на)\s)", I),
    re.compile(_SUBJ_RU + r"(?:уехала|уехал|уехали)\s+из\s+(?P<about>[A-ZА-ЯЁ][\w-]*)\s+(?:насовсем|навсегда)", I),
    re.compile(_I_EN + r"(?:have\s+|['’]ve\s+)?(?:moved|relocated)\s+(?:out\s+of|away\s+from)\s+"
               r"(?P<about>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)", I),
    re.compile(_I_EN + r"(?:no\s+longer|don['’]?t)\s+live\s+in\s+(?P<about>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)", I),
    re.compile(_I_EN + r"left\s+(?P<about>[A-Z][\w-]*)\s+for\s+good\b", I),
]

# A partner left: the name or partner word may follow ("мы с Димой расстались", "I broke up with Emma").
PARTNER_ENDED = [
    re.compile(r"\bмы\s+(?:с\s+(?P<about>[^\W\d_]+)\s+)?" + _ADV_RU
               + r"(?:расстались|разошлись|развелись|разбежались)\b", I),
    re.compile(r"\bя\s+" + _ADV_RU + r"(?:рассталась|расстался|развелась|развёлся|развелся)"
               r"(?:\s+(?:с|со)\s+(?P<about>[^\W\d_]+(?:\s+[^\W\d_]+)?))?", I),
    re.compile(r"(?:^\W*|[,;:.—–]\s*)(?:расстались|разбежались|разошлись)\b", I),
    re.compile(r"\b(?P<about>[А-ЯЁ][а-яё]+)\s+(?:меня\s+бросил|меня\s+бросила|ушёл\s+от\s+меня|ушла\s+от\s+меня)", I),
    re.compile(r"\bмы\s+(?:с\s+(?P<about>[^\W\d_]+)\s+)?больше\s+не\s+вместе\b", I),
    re.compile(r"\b(?:we|(?P<about>[A-Z][a-z]+)\s+and\s+i|i\s+and\s+(?P<about2>[A-Z][a-z]+))\s+" + _ADV_EN
               + r"(?:broke\s+up|split\s+up|separated|divorced|called\s+it\s+quits)\b", I),
    re.compile(r"\bi\s+" + _ADV_EN + r"(?:broke\s+up|split\s+up)\s+with\s+(?P<about>(?:my\s+)?[^\W\d_]+)", I),
    re.compile(r"\bi(?:['’]m|\s+am)\s+not\s+with\s+(?P<about>[A-Z][a-z]+)\s+any\s?more\b", I),
    re.compile(r"\b(?P<about>[A-Z][a-z]+)\s+(?:dumped|left)\s+me\b", I),
    re.compile(r"\bwe(?:['’]re|\s+are)\s+(?:done|over|finished)\b", I),
]

# A habit, diet or pastime dropped: what follows is the activity ("курить", "smoking", "вегетарианка").
HABIT_ENDED = [
    re.compile(_SUBJ_RU + r"(?:бросила|бросил|бросили|перестала|перестал)\s+" + _ABOUT + _ABOUT_END, I),
    re.compile(r"\bя\s+(?:уже\s+)?больше\s+не\s+" + _ABOUT + _ABOUT_END, I),
    re.compile(r"\bя\s+(?:уже\s+)?не\s+(?P<about>вегетариан\w+|веган\w*|курю|пью)\b", I),
    re.compile(_I_EN + r"(?:quit|stopped|gave\s+up|kicked|dropped)\s+(?P<about>[a-z][\w-]*(?:ing|ism)\b"
               r"(?:\s+[a-z]+)?|meat|alcohol|booze|cigarettes|coffee)", I),
    re.compile(_I_EN + r"(?:don['’]?t|do\s+not|no\s+longer)\s+" + _ABOUT + r"\s+any\s?more\b", I),
    re.compile(_I_EN + r"no\s+longer\s+" + _ABOUT + _ABOUT_END, I),
    re.compile(r"\bi(?:['’]m|\s+am)\s+no\s+longer\s+(?:a\s+)?(?P<about>[a-z]+)\b", I),
    re.compile(r"\bi(?:['’]m|\s+am)\s+not\s+(?:a\s+)?(?P<about>[a-z]+)\s+any\s?more\b", I),
]

# Something owned no more: what follows (or, for "X ran away", comes before) is the thing.
THING_ENDED = [
    re.compile(r"\bу\s+(?:меня|нас)\s+(?:уже\s+)?больше\s+нет\s+" + _ABOUT + _ABOUT_END, I),
    re.compile(r"\bу\s+(?:меня|нас)\s+уже\s+нет\s+" + _ABOUT + _ABOUT_END, I),
    re.compile(_SUBJ_RU + r"(?:продала|продал|продали|сбагрила|сбагрил|отдала|отдал|отдали)\s+"
               r"(?:свою\s+|своего\s+|мою\s+|моего\s+|нашу\s+|нашего\s+)?" + _ABOUT + _ABOUT_END, I),
    re.compile(r"\b(?P<about>[^\W\d_]+)\s+пришлось\s+отдать\b", I),
    re.compile(_I_EN + r"(?:sold|got\s+rid\s+of|gave\s+away|rehomed)\s+(?:my\s+|our\s+|the\s+)?" + _ABOUT
               + _ABOUT_END, I),
    re.compile(r"\bwe\s+" + _ADV_EN + r"(?:gave|rehomed)\s+(?P<about>[A-Z][a-z]+)\s+(?:away|to)\b", I),
    re.compile(_I_EN + r"(?:don['’]?t|no\s+longer)\s+(?:have|own)\s+(?:a|an|my|the)\s+" + _ABOUT
               + r"(?:\s+any\s?more)?" + _ABOUT_END, I),
]
# A pet gone missing: the animal comes first.
PET_LOST = [
    re.compile(r"\b(?P<about>[^\W\d_]+)\s+(?:[^\W\d_]+\s+)?(?:убежал|убежала|сбежал|сбежала|потерялся|потерялась|"
               r"пропал|пропала)\b", I),
    re.compile(r"\b(?P<about>[^\W\d_]+)\s+(?:ran\s+away|ran\s+off|went\s+missing|is\s+missing|has\s+gone\s+missing)\b",
               I),
]
# "…но через полчаса нашлась": the lost pet came back.
FOUND_AGAIN = re.compile(r"\b(?:нашл[аи]сь|нашёлся|нашелся|вернул(?:ся|ась)|found|came\s+back|brought\s+\w+\s+back|"
                         r"is\s+back|came\s+home)\b", I)

# A death: the pet or relative is before the verb ("Барсик умер") or after it ("не стало Лайки").
DEATH_AFTER_SUBJECT = re.compile(
    r"(?:умер|умерла|умерли|погиб|погибла|скончался|скончалась|сдох|сдохла|ушёл\s+на\s+радугу|ушла\s+на\s+радугу|"
    r"ушел\s+на\s+радугу|не\s+стало|больше\s+нет\s+с\s+нами|нет\s+с\s+нами|"
    r"died|has\s+died|passed\s+away|passed|is\s+dead|crossed\s+the\s+rainbow\s+bridge|was\s+put\s+down|"
    r"was\s+put\s+to\s+sleep|(?:['’]s|\s+is|\s+has)\s+gone)\b", I)
DEATH_BEFORE_OBJECT = re.compile(
    r"\b(?:не\s+стало|умерл[аи]|умер|погиб(?:ла)?|пришлось\s+усыпить|усыпили|похоронили|"
    r"(?:we|i)\s+(?:had\s+to\s+)?(?:put|have\s+put)\s+(?=\w+\s+(?:down|to\s+sleep))|rip|r\.i\.p\.?|"
    r"(?:we|i)\s+lost\s+(?:my\s+|our\s+)?(?=[A-Z]|grand|gran|mum|mom|dad|father|mother))\s*", I)
# Words that take the death back: a joke, a figure of speech, a near miss.
DEATH_IDIOMS = re.compile(
    r"\b(?:от\s+смеха|со\s+смеху|от\s+скуки|от\s+стыда|для\s+меня|laughing|of\s+laughter|to\s+me\b|inside|"
    r"of\s+boredom|of\s+embarrassment|on\s+the\s+inside)", I)

# A plan called off: the event comes first ("экзамен отменили") or after ("отменили экзамен").
CANCELLED = [
    re.compile(r"\b(?P<about>[^\W\d_]+(?:\s+по\s+[^\W\d_]+)?)\s+(?:отменили|отменился|отменилась|отменён|отменен|"
               r"отменена|отменяется)\b", I),
    re.compile(r"\b(?:отменили|отменён|отменен|отменена)\s+(?:мой\s+|мою\s+|моё\s+|мое\s+)?(?P<about>[^\W\d_]+)", I),
    re.compile(r"\b(?P<about>[a-z]+)\s+(?:got|was|has\s+been|is)\s+(?:cancell?ed|called\s+off)\b", I),
    re.compile(r"\b(?:they|we)\s+(?:cancell?ed|called\s+off)\s+(?:my\s+|the\s+)?(?P<about>[a-z]+)", I),
]

# ---- guards ------------------------------------------------------------------------------------------------

# A fear, a doubt or a near miss before the change: nothing changed.
FEAR = re.compile(
    r"(?:^|\W)(?:боюсь|боялась|боялся|страшно|переживаю|волнуюсь|вдруг|чуть\s+не|чуть\s+было\s+не|едва\s+не|"
    r"почти|afraid|scared|worried|terrified|fear|almost|nearly|tried\s+to|пыталась|пытался|"
    r"кажется|seems?|apparently|maybe|probably|наверное)(?:\W|$)", I)
# After the change: it did not happen ("Барсик умер бы без меня", "Rex would have died without the vet").
COUNTERFACTUAL = re.compile(r"\b(?:бы|б|would|could|might|if|если)\b", I)
# A quote and who said it, after the words: «Барсик умер», — пошутила сестра.
ATTRIBUTION = re.compile(
    r"[»”\"]\s*[,.!?]*\s*[—–-]*\s*(?:[^\W\d_]+\s+){0,2}?(?:сказал\w*|пошутил\w*|написал\w*|ответил\w*|"
    r"спросил\w*|кричит|пишет|говорит|said|joked|wrote|texted|added|asked|replied)\b", I)
# A story from long ago: it ends nothing remembered now.
FAR_PAST = re.compile(
    r"\b(?:в\s+детстве|когда\s+мне\s+было|когда\s+я\s+был[аи]?|лет\s+назад|года\s+назад|год\s+назад|"
    r"(?:в|ещё\s+в|еще\s+в)\s+(?:19|20)\d\d|в\s+универе|в\s+школе|первый\s+раз|перв(?:ая|ый|ое|ого|ую|ым)\b|"
    r"when\s+i\s+was|years\s+ago|in\s+(?:19|20)\d\d|back\s+in\s+(?:19|20)\d\d|at\s+uni|in\s+college|in\s+school|"
    r"once|first|for\s+a\s+(?:month|week|while|day|year)|на\s+(?:месяц|неделю|полгода|время))\b", I)
# Someone else's: a name or relative owns the thing ("у подруги умерла кошка", "Emma's grandpa").
OTHER_OWNER = re.compile(
    r"\b[уУ]\s+(?!(?:меня|нас)\b)[^\W\d_]+|\b(?:[A-Z][a-z]+|[Hh]is|[Hh]er|[Tt]heir|[Yy]our|[Ff]riend|[Nn]eighbou?r|"
    r"[Cc]olleague|[Cc]oworker)['’]s?\s|\b(?:[Hh]is|[Hh]er|[Tt]heir|[Yy]our|[Тт]вой|[Тт]воя|[Тт]воего|[Тт]вою|[Ее]го|"
    r"[Ее]ё|[Ее]е|[Ии]х)\s+")  # case-sensitive: "Emma's" is a name, "I'm" is not
# Words of a request to forget, and the polite frames around them.
PLEASE = words("пожалуйста плиз pls please")

# ---- corrections ---------------------------------------------------------------------------------------------

# A plan moved to another day: the event, then the verb, then the new day after "на"/"to" (group `to`).
_MOVED_RU = (r"(?:перенесли|перенесён|перенесен|перенесена|перенесено|перенёсся|перенесся|переносится|сдвинули|"
             r"сдвинулся|сдвинулась|съехал|съехала|съехало)")
_MOVED_EN = (r"(?:(?:got|was|has\s+been|is|['’]s)\s+)?(?:moved|postponed|rescheduled|pushed(?:\s+back)?|bumped|"
             r"shifted|changed)")
PLAN_MOVED = [
    re.compile(r"(?P<about>(?:\b[^\W\d_]+\s+){1,3}?)" + _MOVED_RU + r"(?:\s+с\s+[^,.;!?]{1,30}?)?\s+на\s+(?P<to>)", I),
    re.compile(r"\b" + _MOVED_RU + r"\s+(?:мой\s+|мою\s+|моё\s+|мое\s+)?(?P<about>[^\W\d_]+(?:\s+по\s+[^\W\d_]+)?)"
               r"(?:\s+с\s+[^,.;!?]{1,30}?)?\s+на\s+(?P<to>)", I),
    re.compile(r"(?P<about>(?:\b[^\W\d_]['’\w]*\s+){1,3}?)" + _MOVED_EN
               + r"(?:\s+from\s+[^,.;!?]{1,30}?)?\s+to\s+(?P<to>)", I),
    re.compile(r"\b(?:they|we|i)\s+(?:moved|postponed|rescheduled|pushed|bumped|shifted)\s+(?:my\s+|the\s+|our\s+)?"
               r"(?P<about>[^\W\d_]+)(?:\s+back)?(?:\s+from\s+[^,.;!?]{1,30}?)?\s+to\s+(?P<to>)", I),
]

# ---- forget requests -----------------------------------------------------------------------------------------

_POLITE = (r"(?:(?:please|pls|plz|so|ok|okay|and|also|now|you\s+know\s+what|пожалуйста|слушай|короче|и|а|ну|ой|"
           r"(?:can|could|would|will)\s+you(?:\s+please)?|i\s+(?:want|need)\s+you\s+to|i['’]d\s+like\s+you\s+to|"
           r"(?:можешь|можете|мог\s+бы|могла\s+бы|можно)(?:\s+пожалуйста)?)[\s,]+)*")
# The verb of a request to forget, opening its clause; group `this` for "don't remember this".
FORGET_VERB = re.compile(
    r"(?:^|[,;:—–]\s*|\b(?:и|а|но|and|but|so)\s+)\W*" + _POLITE +
    r"(?P<verb>забудь(?:те)?|забыть|сотри(?:те)?|стереть|удали(?:те)?|удалить|выкинь(?:те)?\s+из\s+(?:головы|памяти)|"
    r"выброси(?:те)?\s+из\s+(?:головы|памяти)|forget|delete|erase|remove|wipe|nuke|scrub|clear\s+out)\b"
    r"(?:[\s,]+(?:пожалуйста|please|pls))?[\s,]*", I)
DONT_REMEMBER = re.compile(
    r"(?:\bне\s+(?:надо|нужно|стоит)\s+(?:это\s+|этого\s+)?запоминать|\bне\s+запоминай(?:те)?|\bне\s+сохраняй(?:те)?|"
    r"\bэто\s+не\s+(?:надо|нужно|стоит)\s+запоминать|"
    r"\b(?:don['’]?t|do\s+not|please\s+don['’]?t)\s+(?:remember|save|store|keep|memori[sz]e|write\s+down)|"
    r"\bstop\s+remembering)\b", I)
# What follows the verb.
FORGET_ALL = re.compile(
    r"^(?:(?:вообще|совсем|просто)\s+)?(?:всё|все|обо\s+всём|обо\s+всем|everything|all(?:\s+of\s+it)?|all\s+my\s+data|"
    r"all\s+(?:the\s+)?data)(?:[\s,]+(?:обо\s+мне|про\s+меня|что\s+(?:ты\s+)?(?:про\s+меня\s+|обо\s+мне\s+|обо\s+мне)?"
    r"(?:знаешь|помнишь|запомнил\w*|хранишь)(?:\s+(?:обо\s+мне|про\s+меня))?|"
    r"(?:you|you['’]ve|you\s+have)\s+(?:know|got|stored|remember(?:ed)?|saved|kept)(?:\s+(?:about|on|of)\s+me)?|"
    r"(?:about|on|of)\s+me))*\W*(?:$|\s+(?:и|and)\s+(?:let['’]s|давай|начн)|вообще)", I)
FORGET_THIS = re.compile(
    r"^(?:(?:что|what|то,?\s+что)\s+(?:я\s+)?(?:i\s+)?(?:только\s+что|сейчас|just)\s+\w+|this|that|it|это|этого|"
    r"this\s+message|my\s+last\s+message|последнее|это\s+сообщение)\W*(?:$|anywhere|нигде)", I)
# What the request names: after "про"/"about", after "what I told you about", or a clause "что я курю".
FORGET_ABOUT = re.compile(
    r"^(?:(?:всё|все|то|what\s+you\s+know|whatever\s+you(?:['’]ve|\s+have)?\s+got|everything\s+you\s+know|"
    r"инфу|информацию|всё,?\s+что\s+(?:ты\s+)?знаешь|what(?:ever)?\s+i\s+(?:told|said\s+to)\s+you|"
    r"(?:то|всё|все),?\s+что\s+я\s+(?:тебе\s+)?(?:говорил\w*|рассказ\w*|писал\w*|сказал\w*))[\s,]*)?"
    r"(?:про|о|об|обо|about|on)\s+(?P<about>.+)$"
    r"|^(?:то,?\s+)?(?P<clause>(?:что|that|where|где|сколько|how\s+old)\s+.+)$"
    r"|^(?P<object>(?:мою|моего|моих|мой|мои|моё|мое|нашу|нашего|наших|my|our|the\s+whole)\s+.+)$", I)
FROM_MEMORY = re.compile(r"\s*(?:из\s+(?:своей\s+)?памяти|from\s+(?:your\s+)?memory|out\s+of\s+your\s+(?:memory|head))",
                         I)
# Several targets in one request: "про мою машину и про то, что я курю", "my age and where I live".
TARGET_JOINER = re.compile(r"\s*(?:,\s*)?(?:\s+и\s+(?:про\s+|о\s+|об\s+)?|\s+and\s+(?:about\s+)?)", I)
# Words that mean the user's own: a request about them names something theirs.
OWN = re.compile(r"\b(?:мо[йяеёию]\w*|наш\w*|my|our|я|i|me|мне|меня)\b", I)
# "where I work", "где я живу": the slot itself, whatever words its value has.
WHERE_SLOTS = [
    (re.compile(r"\b(?:where\s+i\s+work|где\s+я\s+работаю|my\s+(?:job|work|employer)|мою\s+работу)\b", I),
     ("employer",)),
    (re.compile(r"\b(?:where\s+i\s+live|где\s+я\s+живу|my\s+(?:city|address)|мой\s+город)\b", I), ("city",)),
    (re.compile(r"\b(?:my\s+age|how\s+old\s+i\s+am|мой\s+возраст|сколько\s+мне\s+лет)\b", I), ("age",)),
]
