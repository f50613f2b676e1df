"""The words and patterns of the style rules (memory/style/wishes.py): what a lasting wish about the bot's manner
looks like in Russian and English, and what turns one into a one-off, a quote, a condition or someone else's.

The patterns that scan a whole sentence hold no unbounded quantifier inside another (what repeats is bounded:
"{0,3}", "{1,50}"), and the guards only look at windows of a few hundred characters around a wish, so a pasted
wall of text costs linear time.
"""

from __future__ import annotations

import re

I = re.IGNORECASE
B = r"(?<![\w'’-])"  # a word starts here
E = r"(?![\w'’-])"  # a word ends here


def alternatives(words: str) -> str:
    """Return a regex alternation of the space-separated `words`, longest first (underscores stand for spaces)."""
    items = sorted({word.replace("_", r"\s+") for word in words.split()}, key=len, reverse=True)
    return "(?:" + "|".join(items) + ")"


def phrases(text: str) -> list[tuple[str, ...]]:
    """Return the comma-separated phrases of `text` as tuples of lowercase words."""
    return [tuple(part.split()) for part in text.lower().split(",") if part.strip()]


# ---- sentences -----------------------------------------------------------------------------------------

MENTION = re.compile(r"(?<![\w@])@\w{2,}")
SENTENCE = re.compile(r"[^.!?\n;…]+[.!?\n;…]*")
TOKEN = re.compile(r"[^\W\d_][\w'’-]*|\d+")
# Cut a window at a turn of the sentence: what comes after "but" or ", а" belongs to another wish.
CONTRAST = re.compile(r"[;(]|,\s*(?:а|но|зато|однако|хотя|but|however|though|although|whereas)\b|\sbut\s", I)
# "…, ok?" is a request with a tag, not a question.
TAG = re.compile(
    r"[,\s]+(?:ok|okay|ок|окей|ладно|хорошо|договорились|идёт|идет|можно|please|pls|alright|deal|right|yes|да)"
    r"\s*\?+\W*$", I)
# What an English imperative starts with: "…, and never use emoji" goes on a request, "I … and never" does not.
EN_IMPERATIVES = frozenset("answer reply respond write talk speak explain be keep make use give stick text chat switch "
                           "add include put send stay stop quit avoid never don't dont do".split())
CLAUSE_CUT = re.compile(r"[,:;—–(]|\s-\s|" + B + r"(?:but|а|но|however|though|although)" + E, I)
QUESTION_START = re.compile(
    r"^\W*(?:why|how\s+come|what|does|did|are|is|am|do\s+you|do\s+u|почему|зачем|отчего|разве|неужели)" + E, I)
QUESTION_LEADING = frozenset("а и ну слушай кстати hey ok okay so also and btw ещё еще тогда бот bot ок окей ладно "
                             "привет hi hello".split())
WHY = re.compile(B + alternatives("why how_come почему зачем отчего с_чего_вдруг") + E, I)
QUESTION_OPENERS = frozenset(phrases(
    "можешь, можете, мог бы, могла бы, могли бы, можно, можно ли, давай, давайте, может, может быть, "
    "перейдём, перейдем, не мог бы, не могла бы, не могли бы, не можешь ли, можешь ли, сможешь, "
    "could you, can you, would you, will you, would you mind, can u, could u, can we, could we, please, pls, "
    "could you please, can you please, would you please, ты можешь, вы можете, ты не мог бы, ты не могла бы, "
    "вы не могли бы, ты сможешь, а можно, а давай"
))
QUESTION_OPENER_LENGTHS = sorted({len(opener) for opener in QUESTION_OPENERS})
# What may stand before a request without making it someone else's ("ok, so, please, from now on, …").
OPENERS = phrases(
    "а, и, ну, так, вот, ок, окей, ладно, хорошо, слушай, слушайте, кстати, короче, в общем, ещё, еще, также, "
    "тогда, только, просто, уж, уже, же, ка, да, привет, здравствуй, здравствуйте, пожалуйста, плиз, прошу, "
    "всегда, впредь, отныне, теперь, теперь всегда, вообще, в целом, по умолчанию, на будущее, раз и навсегда, "
    "с этого момента, с этих пор, с сегодняшнего дня, запомни, запомните, и ещё, и еще, одна просьба, просьба, "
    "and, so, ok, okay, also, just, hey, hi, hello, oh, btw, now, then, well, please, pls, plz, kindly, "
    "always, never, ever, from now on, from here on, from here on out, from today on, going forward, "
    "moving forward, in future, in the future, henceforth, in general, generally, by default, as a rule, "
    "for good, remember, remember to, note, one more thing, one thing, last thing, fyi, listen, look, "
    "can you, could you, would you, will you, would you mind, can u, could u, do, don't, do not, "
    "try to, try and, make sure to, make sure you, be sure to, you can, you may, feel free to, you should, "
    "i'd like you to, i would like you to, i want you to, i need you to, i'd love you to, i'd love it if you, "
    "i'd like it if you, i'd appreciate it if you, i'd appreciate if you, it would be great if you, "
    "it'd be great if you, i'd prefer you, i'd prefer you to, i'd prefer it if you, i'd prefer that you, "
    "i would prefer you, i would prefer it if you, i prefer you, i prefer that you, i prefer it when you, "
    "i'd rather you, i would rather you, i like it when you, i like when you, i love it when you, "
    "i love when you, let's, let us, going forward please, from now on please, and please, so please"
)
# What may stand around a wish said without a verb ("Always short answers, please."; "Впредь — без воды").
BARE_FILLERS = OPENERS + phrases(
    "мне, со мной, в ответах, в своих ответах, в твоих ответах, в сообщениях, спасибо, thanks, thank you, thx, "
    "in your answers, in your replies, in answers, in replies, with me, for me, anymore, any more, again, "
    "only, ever again, from now on, всегда и везде, ответы, answers, replies, и дальше, отвечая мне"
)

# ---- when: lasting or one-off ----------------------------------------------------------------------------

LASTING = re.compile(
    B + alternatives(
        "always never henceforth generally permanently from_now_on from_here_on from_today_on from_this_point_on "
        "going_forward moving_forward in_future in_the_future by_default as_a_rule for_good every_time "
        "in_general no_more stop stop_\\w+ing quit don't_ever do_not_ever dont_ever remember keep_in_mind "
        "until_i_say_otherwise until_i_tell_you_otherwise всегда впредь отныне никогда навсегда постоянно вообще "
        "в_целом по_умолчанию на_будущее каждый_раз как_правило в_дальнейшем и_дальше с_этого_момента "
        "с_этих_пор с_сегодняшнего_дня с_сегодня больше_не больше_ни больше_никогда больше_никаких "
        "перестань перестаньте перестать прекрати прекратите прекратить хватит запомни запомните не_забывай "
        "пока_не_скажу пока_я_не_скажу пока_не_попрошу пока_я_не_попрошу"
    ) + E
    + r"|" + B + r"не\s+[\w-]+(?:\s+[\w-]+){0,2}\s+больше" + E
    + r"|" + B + r"никаких\s+[\w-]+\s+больше" + E
    + r"|,\s*ever" + E
    + r"|" + B + r"(?:don'?t|do\s+not|never|no|stop)\s[^.!?]{0,60}?" + B + r"(?:again|any\s*more)" + E, I)
ONE_OFF = re.compile(
    B + alternatives(
        "this_time right_now just_now for_now tonight this_once just_this_once for_a_bit for_a_while "
        "for_the_moment for_today until_tomorrow for_the_rest_of_the_day for_the_rest_of_today "
        "for_this_one for_the_next for_this_answer for_this_question for_this_reply for_this_message "
        "for_this_email for_this_chat for_this_conversation for_this_task for_this_post for_this_text "
        "in_this_answer in_this_reply in_this_response in_this_message in_this_one in_this_email "
        "this_answer this_reply this_response next_answer next_reply next_response next_message "
        "в_этот_раз на_этот_раз этот_раз сейчас пока_что сегодня на_сегодня в_этом_ответе в_этом_сообщении "
        "в_этом_письме в_этом_тексте этот_ответ этот_текст на_этот_вопрос этот_вопрос в_следующем_ответе "
        "следующий_ответ один_раз разок временно ненадолго до_завтра до_конца_дня до_конца_разговора "
        "в_данном_случае в_данном_ответе конкретно_здесь конкретно_тут"
    ) + E
    + r"|(?<!from\s)" + B + r"today(?!\s+on)" + E
    + r"|" + B + r"пока(?!\s+(?:я\s+)?не\s+(?:скажу|попрошу|передумаю|отменю))" + E, I)

# ---- whose wish, and in what mood --------------------------------------------------------------------

# Politeness that looks like a condition or indifference and is neither ("if you don't mind, …").
POLITE = re.compile(
    B + alternatives(
        "if_you_don't_mind if_you_dont_mind if_you_do_not_mind if_that's_ok if_that's_okay if_thats_ok "
        "if_that_is_ok if_it's_ok if_it's_okay if_possible if_you_can if_you_could if_you_would if_you_please "
        "i'd_love_it_if_you i'd_like_it_if_you i'd_appreciate_it_if_you i'd_appreciate_if_you "
        "it_would_be_great_if_you it'd_be_great_if_you it_would_be_nice_if_you i'd_prefer_it_if_you "
        "i_would_prefer_it_if_you если_не_против если_ты_не_против если_вы_не_против если_можно "
        "если_не_сложно если_тебе_не_сложно если_вам_не_сложно если_не_трудно если_тебе_не_трудно "
        "если_вам_не_трудно если_получится если_не_возражаешь если_ты_не_возражаешь если_вы_не_возражаете "
        "было_бы_здорово,?_если_бы было_бы_классно,?_если_бы было_бы_круто,?_если_бы было_бы_хорошо,?_если_бы "
        "было_бы_отлично,?_если_бы было_бы_неплохо,?_если_бы если_хочешь если_хотите if_you_want if_you_like"
    ) + E, I)
HYPOTHETICAL = re.compile(
    B + alternatives(
        "if unless suppose supposing imagine pretend what_if whenever_i when_i once_i in_case hypothetically "
        "would_you_ever если вдруг представь представьте представим допустим предположим когда_я "
        "как_только_я в_случае гипотетически а_что_если"
    ) + E, I)
# After a wish in its clause, a condition still makes it one: "answer in English if I ask".
CONDITION_AFTER = re.compile(
    r"(?<!even\s)(?<!даже\s)" + B + alternatives("if unless when_i whenever_i если когда_я как_только_я") + E, I)
INDIFFERENT = re.compile(
    B + alternatives(
        "don't_mind dont_mind do_not_mind doesn't_matter does_not_matter don't_care dont_care whatever_you_like "
        "whatever_you_want up_to_you not_that i_never_said i_didn't_say i_didn't_ask i_never_asked not_asking "
        "it's_fine_if it's_ok_if either_way не_против всё_равно все_равно без_разницы не_важно неважно "
        "как_хочешь как_хотите как_тебе_удобно как_вам_удобно не_обязательно необязательно не_то_чтобы "
        "не_говорил не_говорила не_просил не_просила не_прошу no_need_to_always не_нужно_всегда "
        "не_надо_всегда don't_stop dont_stop do_not_stop не_переставай не_прекращай"
    ) + E, I)
PAST = re.compile(B + alternatives("used_to last_time yesterday раньше когда-то в_прошлом вчера прошлый_раз") + E, I)
# Someone else's words before the wish; "I said…" / "я же сказал…" stays the user's own.
REPORTED = re.compile(
    B + alternatives(
        "says said tells told asks asked wants wanted insists insisted writes wrote prefers likes hates goes "
        "говорит говорила говорил сказал сказала сказали просит просила просил попросил попросила хочет "
        "хотела хотел велит велела велел требует требовала пишет написал написала советует советовал "
        "советовала учит учила любит предпочитает считает повторяет твердит кричит кричала кричал заявил заявила "
        "ответил ответила спросил спросила добавил добавила yells yelled shouts shouted screams screamed replied "
        "answered added texted texts"
    ) + E, I)
OWN_SPEAKER = re.compile(r"(?:^|\W)(?:i|я)(?:\s+(?:же|ведь|уже|already|just|have|'ve))?\s*$", I)
REPORTED_AFTER = re.compile(
    r"[—–\-,»”\"]\s*(?:так\s+|как\s+|as\s+|like\s+|so\s+)?(?:"
    r"(?:мне\s+)?(?:говорит|говорила|сказал\w*|пишет|написал\w*|просит|попросил\w*|велел\w*|советует|твердит)"
    r"|(?:my|his|her|their)\s+[\w-]+\s+(?:always\s+)?(?:says|said|puts\s+it|wrote)"
    r"|(?:says|said|wrote|writes|asks|asked)\s+(?:my|his|her|their|the)" + E
    + r"|(?:he|she|they)\s+(?:says|said|wrote|asked|told))" + E, I)
# Someone else is the subject or the one to be addressed.
OTHERS = re.compile(
    B + alternatives(
        "he she they his her their him them people everyone everybody others colleague colleagues boss mom mum "
        "dad wife husband girlfriend boyfriend son daughter brother sister kid kids child children teacher manager "
        "partner grandma grandpa mother father parents he's she's they're он она они его её ее их ему ей им ним ней "
        "нему него неё нее них ними всеми мой моя моё мое мою моей моего моему моим моих мои наш наша наши наших "
        "всех всем люди людям людей"
    ) + E
    + r"|" + B + r"(?:my|our)\s+(?!own" + E + r")[\w-]+"
    + r"|" + B + r"(?:коллег|начальни|клиент|шеф|босс|мам|пап|жен[аеуы]|муж[аеу]?" + E
    + r"|подруг|бабушк|дедушк|сын|доч"
    r"|брат|сестр|ребён|ребен|учител|преподавател)\w*",
    I)
# Not someone else: mutual address ("друг к другу на ты"), the user's own request ("моя просьба: …").
NOT_OTHERS = re.compile(
    B + r"(?:друг\s+(?:к\s+|с\s+)?друг\w*|each\s+other|one\s+another|(?:моя|мое|моё|my)\s+(?:одна\s+|only\s+|one\s+)?"
    r"(?:просьба|пожелание|предпочтение|правило|request|wish|preference|rule)|my\s+(?:dear|friend|buddy))" + E, I)
# Right after a wish: the one it is for ("на вы с ней", "formal with my boss").
OTHERS_AFTER = re.compile(
    r"^\W*(?:(?:with|to|for)\s+(?:him|her|them|my\s+[\w-]+|his\s+[\w-]+|their\s+[\w-]+|people|others|everyone"
    r"|everybody|clients|customers|colleagues)|(?:с|со|к|ко|для|при)\s+(?:ним|ней|нему|ними|них|мо\w+|мам\w*|пап\w*"
    r"|начальни\w*|коллег\w*|клиент\w*|людьми|людям|всеми|другими|друзьями|детьми|родител\w*|подруг\w*|жен\w*"
    r"|муж\w*|шеф\w*|босс\w*))" + E, I)
# A stated preference must be about the bot: "I prefer short answers", not "I prefer short walks".
BOT_DIRECTED = re.compile(
    B + r"(?:you|your|you're|u|ты|тебя|твои|answers|replies|responses|messages|ответ\w*|сообщени\w*|talk|speak|chat"
    r"|answer|reply|respond|write|общаться|говорить|писать|отвечать|общение|переписываться|мной|me)" + E, I)
CYRILLIC = re.compile(r"[а-яё]", I)
TRAILING = re.compile(
    r"(?:[\s,—–-]*" + B
    + alternatives("пожалуйста плиз всегда впредь отныне please pls always from_now_on going_forward thanks спасибо ok "
                   "ладно и and") + E + r")+[\s,.!—–-]*$", I)
# Things the user writes to others: a wish about their style is not a wish about how to talk to the user.
ARTIFACTS = re.compile(
    B + alternatives(
        "e-mail e-mails email emails letter letters post posts tweet tweets report reports article articles "
        "code comments caption captions presentation presentations document documents cv resume newsletter "
        "резюме письмо письма письме письмах писем посты постов пост статья статьи статью статей отчёт отчет "
        "отчёты отчеты доклад код кода коде комментарии комментарий документ документы презентацию презентации "
        "рассылку рассылки объявление объявления"
    ) + E, I)

# ---- what is wished --------------------------------------------------------------------------------------

# The words that may stand between a request word and what is wished ("пиши мне всегда коротко",
# "keep your answers short", "I like it when you use emoji"); anything else breaks the link.
GAP_WORDS = frozenset("""
мне со мной с тобой всегда пожалуйста по возможно максимально как можно очень более чуть немного ответы ответ свои
своих сообщения и тоже теперь впредь отныне уже просто только себя когда ты ставишь используешь пишешь отвечаешь
говоришь общаешься добавляешь отвечать писать говорить общаться формулировать объяснять ставить использовать добавлять
отвечал отвечала писал писала говорил говорила общался общалась был была были больше побольше поменьше меньше почаще
на в ответах ответе вообще стараться быть впредь чтобы хочу я ещё еще тон тоном стиле стиль более-менее поменьше
me to with your the a an it things them answers replies responses messages texts always please more much bit little
lot really very all any some using stuff in and so just everything tone style way when you you're youre u that are
be being talk speak write answer reply respond keep use chatting talking writing answering replying responding
kind of sort вопросы вопрос questions my целом общем принципе if answered replied wrote spoke talked kept used
didn't would could буду будешь
""".split())
LEAD_RU = re.compile(
    B + alternatives(
        "пиши пишите отвечай отвечайте говори говорите общайся общайтесь разговаривай разговаривайте формулируй "
        "формулируйте излагай излагайте объясняй объясняйте рассказывай рассказывайте выражайся выражайтесь будь "
        "будьте веди_себя ведите_себя старайся старайтесь постарайся постарайтесь давай давайте делай делайте "
        "держи держите переписывайся переписывайтесь прошу можешь можете мог_бы могла_бы могли_бы сможешь "
        "переходи перейди переходите перейдите перейдём перейдем переходим перейти используй используйте ставь ставьте "
        "добавляй добавляйте "
        "хочу,?_чтобы_ты хочу,?_чтобы_вы"
    ) + E, I)
LEAD_EN = re.compile(
    B + alternatives(
        "answer reply respond write talk speak explain be keep make use give_me stick_to text chat communicate "
        "address_me switch_to switch add include put send stay"
    ) + E, I)
# A stated preference lasts by its form ("I prefer…", "мне больше нравится, когда ты…").
LIKE_RU = re.compile(
    B + r"(?:мне\s+(?:больше\s+|гораздо\s+больше\s+|куда\s+больше\s+|очень\s+)?"
    r"(?:нравится|нравятся|приятнее|удобнее|комфортнее|привычнее)|(?:я\s+)?предпочитаю|предпоч[её]л\s+бы"
    r"|предпочла\s+бы|(?:я\s+)?люблю,?\s+когда\s+ты)" + E, I)
LIKE_EN = re.compile(
    B + r"i(?:'d|\s+would)?\s+(?:really\s+|much\s+|strongly\s+|definitely\s+|honestly\s+|always\s+|generally\s+"
    r"|usually\s+)?"
    r"(?:prefer|like|love|enjoy|appreciate)(?!\s+to" + E + r")" + E
    + r"|" + B + r"i(?:'d|\s+would)\s+(?:much\s+|really\s+)?rather" + E, I)
# A stated dislike of what the bot does turns the wish round: "бесит, когда ты ставишь смайлики" = no emoji.
DISLIKE = re.compile(
    B + r"(?:(?:меня\s+)?(?:бесит|раздражает|напрягает|злит|достало|достали)|(?:я\s+)?не\s+люблю|мне\s+не\s+нравится"
    r"|терпеть\s+не\s+могу)\s*,?\s*когда\s+ты" + E
    + r"|" + B + r"i\s+(?:really\s+)?(?:hate|dislike|can't\s+stand|cannot\s+stand|don't\s+like|do\s+not\s+like)"
    r"\s+(?:it\s+)?when\s+you(?:'re)?" + E
    + r"|" + B + r"it\s+(?:annoys|bugs|irritates)\s+me\s+when\s+you(?:'re)?" + E, I)
# The end of a bare word or phrase: punctuation, the end, or a word that cannot continue it.
END = (r"(?=\s*(?:$|[,.!?;:)\n—–]|-\s|(?:and|please|pls|from|always|going|with|for|unless|in|by|thanks|thank|if|"
       r"when|as|even|again|anymore|ever|от|и|пожалуйста|всегда|впредь|с|со|в|когда|мне|плиз)" + E + r"))")
