"""What a wish about the bot's manner asks for, aspect by aspect, in Russian and English (memory/style/wishes.py).

Each aspect has complete requests ("stop using emoji", "не расписывай": a pattern and whether its form alone
makes it lasting) and, where a request needs a request word before it, the bare phrases ("без смайликов",
"short answers"). Values are short phrases in the user's language.
"""

from __future__ import annotations

import re

from memory.style.style_patterns import END, B, E, I, alternatives

# "Stop …" in Russian: a wish to end something lasts by its form.
STOP_WORDS_RU = r"(?:перестань|перестаньте|перестать|хватит|прекрати|прекратите|прекратить)"

EMOJI_RU = r"(?:смайл[\w-]*|эмодзи|эмоджи[\w-]*|емодзи|емоджи[\w-]*|эмодж[\w-]*)"
EMOJI_EN = r"(?:emoji[\w-]*|emoticons?|smileys?|smiley\s+faces?|emojis)"
EMOJI_WORD = re.compile(B + r"(?P<word>" + EMOJI_RU + "|" + EMOJI_EN + ")" + E, I)
FEWER_EMOJI = re.compile(r"(?:меньше|поменьше|fewer|less|so\s+many|столько|так\s+много)\s*$", I)
MORE_EMOJI_NEGATED = re.compile(B + r"(?:не|no|not|don't|never)\s+(?:[\w-]+\s+){0,2}$", I)
NO_EMOJI_RU = [
    (STOP_WORDS_RU[:-1] + r"|завязывай)(?:\s+(?:мне|уже|пожалуйста|со))?"
     r"(?:\s+(?:ставить|использовать|слать|присылать|вставлять|лепить|писать|пихать|добавлять))?"
     r"(?:\s+(?:мне|свои|эти|так\s+много|столько))?\s+" + EMOJI_RU, True),
    (r"не\s+(?:надо|нужно|стоит|используй|используйте|ставь|ставьте|пиши|пишите|присылай|присылайте|шли|шлите"
     r"|вставляй|вставляйте|лепи|добавляй|добавляйте|пихай|употребляй)(?:\s+(?:мне|больше|никогда|никаких|в\s+ответах"
     r"|свои|эти|пожалуйста|так\s+много|столько|ни\s+одного|ни\s+одной)){0,3}\s+" + EMOJI_RU, False),
    (r"никаких(?:\s+(?:больше|мне))?\s+" + EMOJI_RU, False),
    (EMOJI_RU + r"(?:\s+мне)?\s+(?:больше|уже)\s+не\s+(?:нужны|надо|нужно|ставь|используй)", False),
]
NO_EMOJI_EN = [
    (r"(?:stop|quit)\s+(?:using|sending|adding|putting|inserting|with\s+the)"
     r"(?:\s+(?:so\s+many|all\s+(?:the|these|those)|any|the|those|these|your|all))?\s+" + EMOJI_EN, True),
    (r"no\s+more\s+" + EMOJI_EN, True),
    (r"(?:no|zero)\s+" + EMOJI_EN, False),
    (r"(?:don't|dont|do\s+not|never|didn't|did\s+not|not\s+to|wouldn't)(?:\s+ever)?"
     r"\s+(?:use|send|add|put|include|insert|spam)(?:\s+(?:any|so\s+many|those|these|all\s+those))?(?:\s+more)?\s+"
     + EMOJI_EN, False),
]
WITHOUT_EMOJI = re.compile(
    B + r"(?:без|without)\s+(?:всяких\s+|any\s+)?(?:" + EMOJI_RU + "|" + EMOJI_EN + ")" + E, I)

SHORT_RU = ("коротко кратко кратенько покороче кратче лаконично лаконичнее сжато сжатее ёмко емко в_двух_словах "
            "в_паре_предложений в_двух-трёх_предложениях в_двух-трех_предложениях меньше_текста поменьше_текста "
            "меньше_слов поменьше_слов без_простыней без_простынь без_простыней_текста (?<!,\\s)(?<!,)короче "
            "(?:коротк|кратк|лаконичн|сжат)\\w*_(?:ответ\\w*|сообщени\\w*) "
            "(?:ответ\\w*|сообщени\\w*)_(?:покороче|короче|кратко|коротко|лаконичнее)")
LONG_RU = ("подробно подробнее поподробнее развёрнуто развернуто развёрнутее развернутее детально детальнее "
           "обстоятельно длиннее подлиннее больше_деталей больше_подробностей побольше_деталей побольше_подробностей "
           "(?:подробн|развёрнут|развернут|длинн|детальн)\\w*_ответ\\w* "
           "(?:ответ\\w*)_(?:подробнее|длиннее|подлиннее|поподробнее|развёрнутее|развернутее)")
SHORT_EN = (r"(?:(?<!in\s)short(?:er)?|brief(?:er|ly)?|concise(?:ly)?|succinct(?:ly)?|terse(?:ly)?|quick)"
            r"(?:\s+(?:answers|replies|responses|messages|texts)|" + END + ")"
            r"|in\s+(?:a\s+few|one\s+or\s+two|two\s+or\s+three|1-2|2-3|a\s+couple\s+of)\s+(?:sentences|lines)"
            r"|in\s+a\s+sentence\s+or\s+two|fewer\s+words|less\s+text")
LONG_EN = (r"(?:(?:more\s+)?detailed|longer|thorough|in-depth|lengthier|fuller|long)"
           r"(?:\s+(?:answers|replies|responses|explanations|messages)|" + END + ")"
           r"|in\s+(?:more\s+|much\s+more\s+|full\s+|great\s+)?detail|in\s+depth|more\s+details?|thoroughly"
           r"|at\s+length")
LONG_TEXTS = (r"(?:простын\w*|сочинени\w*|лонгрид\w*|романы|поэмы|портянк\w*"
              r"|длинн\w*(?:\s+(?:ответ\w*|сообщени\w*|текст\w*))?)")
SHORT_COMPLETE_RU = [
    (STOP_WORDS_RU + r"(?:\s+(?:мне|уже|пожалуйста))?"
     r"(?:\s+(?:писать|строчить|присылать|слать|выдавать))?(?:\s+(?:такие|эти|свои))?\s+"
     r"(?:" + LONG_TEXTS + r"|так\s+длинно|так\s+много|расписывать|растекаться(?:\s+мыслью)?)", True),
    (r"не\s+(?:пиши|пишите|отвечай|отвечайте|присылай|шли)(?:\s+(?:мне|так|настолько|слишком|больше|никогда"
     r"|пожалуйста|такие)){0,3}\s+(?:длинно|многословно|много|" + LONG_TEXTS + ")", False),
    (r"не\s+(?:расписывай|расписывайте|растекайся|растекайтесь)(?:\s+мыслью)?", False),
]
LONG_THINGS_EN = (r"(?:(?:such|these|those|so\s+many|your)\s+)?(?:(?:long|lengthy|huge|massive)\s+(?:answers|replies"
                  r"|responses|messages|texts|paragraphs)|essays|novels|walls\s+of\s+text|wall\s+of\s+text)")
SHORT_COMPLETE_EN = [
    (r"(?:stop|quit)\s+(?:writing|sending|giving\s+me|with\s+the)(?:\s+me)?\s+" + LONG_THINGS_EN, True),
    (r"no\s+more\s+" + LONG_THINGS_EN, True),
    (r"(?:no|without)\s+" + LONG_THINGS_EN, False),
    (r"(?:don't|dont|do\s+not|never)\s+(?:write|send|give\s+me)(?:\s+me)?\s+" + LONG_THINGS_EN, False),
]

# ---- tone ------------------------------------------------------------------------------------------------

TONE_RU = alternatives(
    "без_воды по_делу по_существу по_сути сразу_к_делу сразу_к_сути сразу_по_делу без_сюсюканья без_сюсюканий "
    "без_соплей с_юмором с_юморком с_шутками шутливо неформально формально официально официальнее неофициально "
    "формальнее без_официоза без_формальностей без_церемоний без_реверансов по-простому попроще простым_языком "
    "простыми_словами человеческим_языком без_пафоса без_канцелярита без_лирики без_лирических_отступлений "
    "без_прикрас честно прямо прямолинейно жёстко жестко жёстче жестче помягче мягче мягко без_нравоучений "
    "без_морализаторства без_морали без_лести без_комплиментов без_жаргона без_терминов без_заумных_слов "
    "без_умных_слов серьёзно серьезно серьёзнее серьезнее дружелюбно дружелюбнее теплее по-дружески "
    "как_с_другом на_равных без_смягчений без_лишних_слов без_предисловий без_вступлений без_извинений "
    "с_сарказмом с_иронией без_сарказма без_иронии по-деловому деловым_тоном нейтрально спокойно без_мата "
    "вежливо вежливее строго строже сухо без_эмоций живее честным честной прямолинейным прямолинейной строгим "
    "строгой вежливым вежливой серьёзным серьезным серьёзной серьезной дружелюбным дружелюбной официальным "
    "официальной ласковым ласковой жёстким жестким жёсткой жесткой мягким мягкой терпеливым терпеливой")
TONE_EN = (
    r"(?:(?:more|less)\s+)?(?:formal|informal|casual|blunt|direct|friendly|warm|serious|playful|professional|polite"
    r"|calm|neutral|honest|straight)(?:ly)?(?:(?=\s+(?:tone|style|register|manner)" + E + r")|" + END + r")"
    + r"|(?:more\s+)?(?:gently|gentle|sarcastically|sarcastic|warmer|friendlier|gentler|politer)" + END
    + r"|" + alternatives(
        "no_fluff without_fluff without_the_fluff no_filler no_waffle no_waffling no_rambling no_small_talk "
        "no_pleasantries no_preamble no_intro no_intros no_disclaimers no_caveats no_lectures no_lecturing "
        "no_moralizing no_moralising no_flattery no_compliments no_jargon no_sugarcoating no_sugar-coating "
        "without_sugarcoating straight_to_the_point to_the_point straight_talk plain_english plain_language "
        "in_plain_words in_plain_english simple_words in_simple_words in_simple_terms with_humor with_humour "
        "with_a_sense_of_humor with_some_humor like_a_friend like_a_human no_sarcasm no_swearing no_cursing "
        "no_bs no_bullshit no_nonsense no_frills"))
TONE_ITEM = re.compile(B + r"(?:" + TONE_RU + "|" + TONE_EN + r")" + E, I)
TONE_CHAIN = re.compile(
    B + r"(?:" + TONE_RU + "|" + TONE_EN + r")" + E
    + r"(?:\s*(?:,\s*)?(?:и|and|&|,)\s*(?:" + TONE_RU + "|" + TONE_EN + r")" + E + r"){0,3}"
    + r"(?:\s*[,—–-]?\s*(?:только|лишь|одни|just|only)\s+[^,.!?;:\n()]{1,50})?", I)
# One phrase of a wish, as stored: comparatives and adverbs become the plain word.
TONE_VALUES = {
    "официальнее": "официально", "формальнее": "формально", "жёстче": "жёстко", "жестче": "жестко",
    "мягче": "мягко", "помягче": "мягко", "серьёзнее": "серьёзно", "серьезнее": "серьезно",
    "дружелюбнее": "дружелюбно", "вежливее": "вежливо", "строже": "строго", "formally": "formal",
    "more formal": "formal", "more formally": "formal", "informally": "informal", "less formal": "informal",
    "less formally": "informal", "casually": "casual", "more casual": "casual", "more casually": "casual",
    "bluntly": "blunt", "more bluntly": "blunt", "directly": "direct", "more directly": "direct",
    "honestly": "honest", "warmly": "warm", "warmer": "warm", "seriously": "serious", "playfully": "playful",
    "gently": "gentle", "gentler": "gentle", "more gently": "gentle", "professionally": "professional",
    "politely": "polite", "politer": "polite", "sarcastically": "sarcastic", "calmly": "calm",
    "neutrally": "neutral", "friendlier": "friendly", "without fluff": "no fluff", "without the fluff": "no fluff",
    "without sugarcoating": "no sugarcoating", "no sugar-coating": "no sugarcoating", "no lecturing": "no lectures",
}
TONE_COMPLETE = [
    (r"не\s+лей(?:те)?\s+воду", "без воды", False),
    (STOP_WORDS_RU + r"\s+лить\s+воду", "без воды", True),
    (r"не\s+сюсюкай(?:ся|те|тесь)?", "без сюсюканья", False),
    (STOP_WORDS_RU + r"(?:\s+(?:со\s+мной|мне))?\s+сюсюкать(?:ся)?", "без сюсюканья", True),
    (r"не\s+(?:читай|читайте)\s+(?:мне\s+)?(?:нотаци\w*|морал\w*|нравоучени\w*|лекци\w*)", "без нравоучений", False),
    (STOP_WORDS_RU + r"(?:\s+мне)?(?:\s+читать)?(?:\s+мне)?\s+(?:нотаци\w*|морал\w*|нравоучени\w*|лекци\w*)",
     "без нравоучений", True),
    (r"не\s+(?:подлизывайся|льсти|льстите)(?:\s+мне)?", "без лести", False),
    (STOP_WORDS_RU + r"\s+(?:мне\s+)?(?:льстить|подлизываться)", "без лести", True),
    (STOP_WORDS_RU + r"(?:\s+(?:со\s+мной|мне))?\s+быть(?:\s+(?:таким|такой|настолько|столь|так))?\s+(?:формальн\w*"
     r"|официальн\w*)", "неформально", True),
    (r"(?:don't|dont|do\s+not|never)(?:\s+ever)?\s+sugar-?coat(?:\s+(?:it|things|anything|stuff))?",
     "no sugarcoating", False),
    (r"(?:stop|quit)\s+sugar-?coating(?:\s+(?:it|things|everything|stuff))?", "no sugarcoating", True),
    (r"(?:stop|quit)\s+(?:lecturing|moralizing|moralising|preaching)(?:\s+(?:at\s+)?me)?", "no lectures", True),
    (r"(?:don't|dont|do\s+not|never)\s+(?:lecture|preach\s+at)\s+me", "no lectures", False),
    (r"(?:stop|quit)\s+(?:rambling|waffling)", "no rambling", True),
    (r"(?:stop|quit)\s+(?:the\s+)?(?:small\s+talk|chit-?chat)", "no small talk", True),
    (r"(?:stop|quit)\s+being\s+so\s+formal", "informal", True),
    (r"(?:let's\s+|let\s+us\s+)?(?:drop|skip|ditch)\s+the\s+formalities", "informal", True),
    (r"(?:don't|dont|do\s+not)\s+be\s+so\s+formal", "informal", False),
    (r"(?:you\s+)?(?:don't|dont|do\s+not)\s+(?:need|have)\s+to\s+be\s+(?:so\s+)?formal\s+with\s+me", "informal", True),
    (r"no\s+need\s+to\s+be\s+(?:so\s+)?formal\s+with\s+me", "informal", True),
    (r"you\s+(?:can|may)\s+be\s+(?:more\s+)?(?:casual|informal)\s+with\s+me", "casual", True),
    (r"(?:cut|skip|drop)\s+the\s+(?:fluff|filler)", "no fluff", False),
    (r"(?:cut|skip|drop)\s+the\s+(?:small\s+talk|chit-?chat|pleasantries)", "no small talk", False),
    (r"(?:get|go|cut)\s+straight\s+to\s+the\s+point", "straight to the point", False),
]
# "be formal with me", "будь со мной помягче": a manner asked for the relationship lasts by its form.
WITH_ME = re.compile(B + r"(?:with\s+me|со\s+мной|(?:talk|speak)\s+to\s+me)" + E, I)

# ---- language ----------------------------------------------------------------------------------------------

LANGUAGE_STEMS = ("английск русск немецк французск испанск итальянск украинск китайск японск португальск польск "
                  "турецк белорусск казахск армянск грузинск корейск арабск")
LANGUAGES_EN = ("English Russian German French Spanish Italian Ukrainian Chinese Japanese Portuguese Polish Turkish "
                "Hebrew Korean Arabic Dutch Belarusian Kazakh Armenian Georgian")
LANGUAGE = re.compile(
    B + r"(?:на\s+(?P<ru>" + alternatives(LANGUAGE_STEMS) + r")(?:ом|ий|ого)(?:\s+язык[еи]?)?"
    r"|по-(?P<po>" + alternatives(LANGUAGE_STEMS) + r")и|на\s+(?P<hebrew>иврит)е?"
    r"|(?:in|to)\s+(?P<en>" + alternatives(LANGUAGES_EN) + r")"
    r"|(?P<bare>" + alternatives(LANGUAGES_EN) + r")" + END + r")" + E, I)
SWITCH = re.compile(r"switch|перейд|переход|перейт", I)

# ---- words and topics to avoid ---------------------------------------------------------------------------

QUOTED = r"(?:«[^»\n]{1,40}»|\"[^\"\n]{1,40}\"|“[^”\n]{1,40}”|'[^'\n]{1,40}'|‘[^’\n]{1,40}’|„[^“”\n]{1,40}[“”])"
WORD = r"[^\W\d_][\w'-]{0,30}"
SEP = r"(?:\s*,\s*(?:(?:и|или|and|or)\s+)?|\s+(?:и|или|and|or|nor)\s+)"
WORD_END = (r"(?=\s*(?:$|[,.!?;:)\n—–]|(?:again|anymore|ever|please|pls|to\s+me|with\s+me|in\s+your|in\s+answers"
            r"|in\s+replies|all\s+the\s+time|any\s+more|пожалуйста|больше|никогда|впредь|мне|при\s+мне|в\s+ответах"
            r"|это|так)" + E + r"))")
ITEM = r"(?:" + QUOTED + "|" + WORD + r")"
WORD_LIST = r"(?P<words>" + ITEM + r"(?:" + SEP + ITEM + r"){0,4}?)" + WORD_END
QUOTED_LIST = r"(?P<words>" + QUOTED + r"(?:" + SEP + QUOTED + r"){0,4})"
LIST_ITEM = re.compile(QUOTED + "|" + WORD)
NOT_WORDS = frozenset("""
так это этим этого то тем по при вот там здесь больше никогда пожалуйста мне меня и или на в с at on in before after
so that this it those these again anymore ever please later tonight tomorrow today back now names anything something
everything never like when during while if every all a an the by my me him her such stuff things words any more
""".split())
WORD_VERBS_EN = r"(?:using|saying|writing|use|say|write)"
WORD_NOUNS_EN = r"(?:the\s+)?(?:words?|phrases?|expressions?|terms?)(?:\s+like)?"
NEVER_EN = r"(?:never|don't\s+ever|do\s+not\s+ever|dont\s+ever|stop|quit)"
WORD_NOUNS_RU = r"(?:слов[оа]|фраз[уы]|выражени[ея]|словечк[оиа]|словосочетани[ея])(?:\s+(?:типа|вроде))?"
AVOID_WORDS = [
    (r"(?:never(?:\s+ever)?|don't\s+ever|do\s+not\s+ever|dont\s+ever|don't|dont|do\s+not|avoid)"
     r"(?:\s+" + WORD_VERBS_EN + r")?\s+" + WORD_NOUNS_EN + r"\s+" + WORD_LIST, False),
    (r"(?:stop|quit)\s+(?:using|saying|writing)\s+" + WORD_NOUNS_EN + r"\s+" + WORD_LIST, True),
    (r"(?:never|don't\s+ever|do\s+not\s+ever|dont\s+ever|don't|dont|do\s+not)\s+" + WORD_VERBS_EN + r"\s+"
     + QUOTED_LIST, False),
    (r"(?:stop|quit)\s+(?:using|saying|writing)\s+" + QUOTED_LIST, True),
    (NEVER_EN + r"\s+(?:saying|say)\s+" + WORD_LIST, False),
    (r"(?:don't|dont|do\s+not|never|stop|quit)(?:\s+ever)?\s+call(?:ing)?\s+me\s+" + WORD_LIST, True),
    (r"(?:не|никогда\s+не|больше\s+не)\s+(?:используй|используйте|употребляй|употребляйте|пиши|пишите|говори|говорите"
     r"|произноси)(?:\s+(?:мне|больше|никогда|пожалуйста)){0,2}\s+" + WORD_NOUNS_RU + r"\s+" + WORD_LIST, False),
    (STOP_WORDS_RU + r"(?:\s+(?:мне|уже))?\s+(?:говорить|писать|использовать|употреблять|вставлять)(?:\s+мне)?\s+"
     r"(?:" + WORD_NOUNS_RU + r"\s+)?" + WORD_LIST, True),
    (r"(?:никогда|больше)\s+не\s+(?:говори|пиши|используй|употребляй)(?:\s+мне)?\s+" + QUOTED_LIST, False),
    (r"(?:никогда|больше)\s+не\s+говори(?:\s+мне)?\s+" + WORD_LIST, False),
    (r"(?:не|никогда\s+не|больше\s+не)\s+называй(?:те)?\s+меня(?:\s+(?:больше|никогда|пожалуйста))?\s+" + WORD_LIST,
     True),
    (STOP_WORDS_RU + r"\s+называть\s+меня\s+" + WORD_LIST, True),
]
TOPIC_END = (r"(?=\s*(?:$|[,.!?;:)\n—–]|-\s|(?:again|anymore|any\s+more|ever|please|pls|from\s+now\s+on|with\s+me"
             r"|in\s+our|пожалуйста|больше|никогда|впредь|при\s+мне|со\s+мной|с\s+этого|в\s+наших|отныне|ok|okay|ладно"
             r"|хорошо|all\s+the\s+time|every\s+time|constantly|постоянно|вечно)" + E + r"))")
TOPIC = r"(?P<topic>[^\W\d_][^,.!?;:\n«»\"“”()]{0,50}?)" + TOPIC_END
ABOUT_RU = r"(?:про|о|об|обо)\s+"
NOT_TOPICS = frozenset(
    "it|that|this|them|him|her|those|these|such things|stuff|anything|everything|that stuff|это|этом|том|нём|нем|ней"
    "|них|этого|то|всё|все|всём|этом всём|так".split("|")
)
AVOID_TOPICS = [
    (r"(?:don't|dont|do\s+not|never)(?:\s+ever)?\s+(?:ask(?:\s+me)?\s+(?:about|of)|bring\s+up|mention"
     r"|talk(?:\s+to\s+me)?\s+about|raise\s+the\s+(?:topic|subject)\s+of|remind\s+me\s+(?:about|of)|go\s+on\s+about)"
     r"(?:\s+the\s+(?:topic|subject)\s+of)?\s+" + TOPIC, False),
    (r"(?:don't|dont|do\s+not|never)(?:\s+ever)?\s+bring\s+(?P<topic>[^\W\d_][^,.!?;:\n]{0,40}?)\s+up" + E, False),
    (r"(?:stop|quit)\s+(?:asking(?:\s+me)?\s+(?:about|of)|bringing\s+up|mentioning|talking(?:\s+to\s+me)?\s+about"
     r"|reminding\s+me\s+(?:about|of)|going\s+on\s+about)\s+" + TOPIC, True),
    (r"no\s+more\s+(?:questions|talk|talking|chat)\s+about\s+" + TOPIC, True),
    (r"(?:не|никогда\s+не|больше\s+не)\s+(?:спрашивай|спрашивайте|расспрашивай|расспрашивайте|напоминай|напоминайте"
     r"|говори|говорите|заговаривай|заговаривайте|пиши|пишите)(?:\s+(?:меня|мне|со\s+мной|больше|никогда|пожалуйста"
     r"|уже|ничего)){0,3}\s+" + ABOUT_RU + TOPIC, False),
    (r"(?:не|никогда\s+не|больше\s+не)\s+(?:поднимай|поднимайте)(?:\s+(?:больше|никогда|пожалуйста|со\s+мной"
     r"|при\s+мне)){0,2}\s+тем[уы]\s+(?:" + ABOUT_RU + r")?" + TOPIC, False),
    (r"(?:не|никогда\s+не|больше\s+не)\s+(?:заводи|заводите)(?:\s+(?:больше|никогда|со\s+мной|пожалуйста)){0,2}"
     r"\s+(?:разговор\w*|речь|беседу|тему)\s+" + ABOUT_RU + TOPIC, False),
    (r"(?:не|никогда\s+не|больше\s+не)\s+(?:упоминай|упоминайте)(?:\s+(?:больше|никогда|при\s+мне|пожалуйста"
     r"|мне)){0,2}\s+(?:" + ABOUT_RU + r")?" + TOPIC, False),
    (STOP_WORDS_RU + r"(?:\s+(?:меня|мне|уже))?\s+(?:спрашивать|расспрашивать|напоминать|говорить|упоминать"
     r"|заводить\s+(?:разговор\w*|речь))(?:\s+(?:меня|мне|со\s+мной))?\s+" + ABOUT_RU + TOPIC, True),
    (r"ни\s+слова\s+(?:больше\s+)?" + ABOUT_RU + TOPIC, False),
]

# ---- ты or вы --------------------------------------------------------------------------------------------

ADDRESS = re.compile(B + r"на\s*[«\"“']?(?P<form>ты|вы)[»\"”']?" + E, I)
ADDRESS_VERB = re.compile(B + r"(?P<verb>выка|тыка)(?:ть|й|йте|ешь|ете|ют|ли|л|ла)" + E, I)
ADDRESS_LEADS = frozenset("""
давай давайте можно может перейдём перейдем переходим перейти переходи перейди перейдите переходите обращайся
обращайтесь обращаться общайся общайтесь общаться говори говорите говорить пиши пишите писать разговаривай
разговаривайте разговаривать будем предпочитаю приятнее удобнее комфортнее привычнее лучше хочу хотелось прошу
нравится можешь можете предпочла предпочёл предпочел отвечать отвечай отвечайте отныне впредь
""".split())
ADDRESS_NEGATED_LEADS = frozenset("надо нужно стоит".split())  # only after "не": "не надо на вы"
ADDRESS_FILLERS = frozenset("""
уже просто тогда сразу ко мне со мной с тобой тебе к уж всё-таки все-таки же ка теперь отныне впредь всегда
пожалуйста и ещё еще друг другу друга ты вы я мы нам нами тоже когда без формальностей церемоний только буду
будешь будете бы общение
""".split())
ADDRESS_VERB_FILLERS = ADDRESS_FILLERS | {"можно", "можешь", "можете", "надо", "нужно", "больше"}
ADDRESS_NEGATIONS = frozenset("не хватит перестань перестаньте прекрати прекратите".split())
ADDRESS_STOPS = frozenset("хватит перестань перестаньте прекрати прекратите".split())  # "хватит со мной на вы"
ADDRESS_AFTER_LEAD = re.compile(r"^\s*[,!]?\s*(?:пожалуйста|плиз|pls|please)" + E, I)
ADDRESS_ALTERNATIVE = re.compile(r"^\s*(?:или|либо|or)\s+(?:только\s+|же\s+)?на" + E, I)
ADDRESS_ALTERNATIVE_BEFORE = re.compile(r"на\s+(?:ты|вы)\s+(?:или|либо)(?:\s+только|\s+же)?\s*$", I)
POKE = re.compile(r"\s*(?:в|на|по|пальц\w*)" + E, I)  # "не тыкай в экран" is no wish about address
