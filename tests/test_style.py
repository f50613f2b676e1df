"""The style rules (memory/style/wishes.py): lasting wishes about how the bot talks to the user, and every trap."""

import json
from pathlib import Path

import pytest

from memory.facts import CATEGORIES, KEY_PATTERN, STYLE_ASPECTS, comparable
from memory.style.wishes import extract_style_facts

CORPUS = Path(__file__).resolve().parent.parent / "bench" / "style_corpus.json"


def wishes(text: str) -> dict[str, str]:
    """The wishes the style rules take from `text`, as {aspect: value}."""
    return {fact.key.removeprefix("style:"): fact.value for fact in extract_style_facts(text)}


def lasting(cases: list[tuple[str, str]]):
    """Parametrize over (text, value) pairs: each text must yield that value (the test names the aspect)."""
    return pytest.mark.parametrize(("text", "value"), cases, ids=[text[:40] for text, _ in cases])


def traps(texts: list[str]):
    """Parametrize over texts that must yield no style fact at all."""
    return pytest.mark.parametrize("text", texts, ids=[text[:40] for text in texts])


# ---- the facts themselves -------------------------------------------------------------------------------


def test_a_wish_is_a_style_fact_of_importance_8_from_the_rules():
    (fact,) = extract_style_facts("давай на ты", message_id=42)
    assert (fact.category, fact.key, fact.value) == ("style", "style:address", "ты")
    assert (fact.importance, fact.confidence, fact.source, fact.source_message_id) == (8, 0.9, "rule", 42)
    assert fact.category in CATEGORIES and KEY_PATTERN.match(fact.key)


def test_every_aspect_has_a_valid_key():
    assert STYLE_ASPECTS == ("address", "language", "length", "tone", "emoji", "avoid_words", "avoid_topics")
    assert all(KEY_PATTERN.match(f"style:{aspect}") for aspect in STYLE_ASPECTS)


def test_several_aspects_in_one_message():
    assert wishes("Привет! Давай на ты. И впредь отвечай покороче и без смайликов.") == {
        "address": "ты", "length": "коротко", "emoji": "без эмодзи"}
    assert wishes("always answer in English and never use emoji") == {"language": "English", "emoji": "no emoji"}
    assert wishes("давай на ты, and please never use emoji") == {"address": "ты", "emoji": "no emoji"}


def test_the_last_wish_on_an_aspect_wins():
    assert wishes("Давай на вы. Хотя нет, давай на ты") == {"address": "ты"}
    assert wishes("всегда пиши коротко. Нет, лучше всегда пиши подробно") == {"length": "подробно"}
    assert wishes("Always answer in French. Actually, from now on answer in German.") == {"language": "German"}


# ---- address: ты or вы -------------------------------------------------------------------------------------


@lasting([
    ("давай на ты", "ты"), ("Давай перейдём на ты!", "ты"), ("можно на ты?", "ты"), ("можно просто на ты", "ты"),
    ("обращайся ко мне на ты", "ты"), ("Обращайтесь ко мне на вы", "вы"), ("на вы, пожалуйста", "вы"),
    ("мне приятнее на вы", "вы"), ("не надо на вы", "ты"), ("не выкай мне", "ты"), ("не тыкай мне", "вы"),
    ("хватит мне выкать", "ты"), ("Ты мне не тыкай!", "вы"), ("можешь мне не выкать", "ты"),
    ("привет! давай на ты, а то как-то официально", "ты"), ("давай на «ты»", "ты"), ('давай на "вы"', "вы"),
    ("Давай не будем на вы", "ты"), ("Хватит со мной на вы", "ты"), ("Отныне — только на вы.", "вы"),
    ("Можно я буду к тебе на ты?", "ты"), ("давай обращаться друг к другу на ты", "ты"),
    ("я бы предпочла общение на вы", "вы"), ("Перестаньте мне тыкать.", "вы"),
    ("мне 30, не надо со мной на вы", "ты"), ("ДАВАЙ НА ТЫ", "ты"),
])
def test_address_is_learned(text, value):
    assert wishes(text) == {"address": value}


@traps([
    "в этот раз давай на вы, это для письма",  # one-off
    "Давай сегодня на вы, поиграем в переписку",
    "Он сказал: «давай на ты»",  # quoted
    "«Отныне только на вы» — написал мне начальник",
    "если я попрошу перейти на ты, откажись",  # hypothetical
    "моя мама просит всех обращаться к ней на вы",  # someone else
    "с начальником я всегда на вы",
    "обращайся к ней на вы",
    "пиши ему на вы",
    "мне всё равно, на ты или на вы",  # indifferent
    "давай на ты или на вы?",
    "почему ты со мной на вы?",  # questions
    "А мы разве не на ты?",
    "Ты можешь отвечать на вы или только на ты?",
    "мы с ним давно на ты",  # statements
    "я с компьютером на ты",
    "не тыкай в экран пальцем",  # another verb
    "зачем ты мне выкаешь?",
])
def test_address_traps(text):
    assert wishes(text) == {}


def test_english_formality_goes_to_tone():
    assert wishes("Be more formal with me, please.") == {"tone": "formal"}
    assert wishes("you can be casual with me") == {"tone": "casual"}
    assert wishes("Let's drop the formalities") == {"tone": "informal"}


# ---- length --------------------------------------------------------------------------------------------


@lasting([
    ("Отныне отвечай мне коротко", "коротко"), ("вообще пиши короче", "коротко"),
    ("можешь всегда отвечать короче?", "коротко"), ("пиши всегда подробно", "подробно"),
    ("мне больше нравится, когда ты пишешь подробно", "подробно"), ("Хватит писать такие простыни", "коротко"),
    ("не расписывай никогда", "коротко"), ("я предпочитаю короткие ответы", "коротко"),
    ("отвечай на вопросы всегда кратко", "коротко"), ("ВСЕГДА ОТВЕЧАЙ КОРОТКО", "коротко"),
    ("from now on keep answers short", "short answers"), ("From now on keep your answers short.", "short answers"),
    ("I prefer short answers, always", "short answers"), ("stop writing walls of text pls", "short answers"),
    ("I'd like you to always keep replies brief", "short answers"), ("always be concise", "short answers"),
    ("I hate it when you write long answers.", "short answers"), ("I like detailed answers", "detailed answers"),
    ("always explain things in detail", "detailed answers"),
    ("In general I prefer detailed replies", "detailed answers"),
])
def test_length_is_learned(text, value):
    assert wishes(text) == {"length": value}


@traps([
    "this time answer briefly", "сейчас ответь коротко", "Ответь коротко.", "answer briefly",  # one-off
    "пиши короче", "pls be brief, I'm on my phone", "Can you make this answer shorter?",
    "На этот раз ответь подробно, пожалуйста", "for now, keep it brief", "keep it short right now",
    "Если тебе не сложно, ответь сегодня покороче", "в следующем ответе пиши коротко",
    'my boss always says "be brief"', "«пиши всегда коротко» — любимая фраза редактора",  # quoted
    "If I'm in a hurry, always keep it short", "когда я занят, отвечай всегда коротко",  # hypothetical
    "my boss prefers short emails", "сестра всегда пишет коротко", "always keep my emails short",  # others
    "I always answer briefly", "Я всегда пишу коротко, такой уж я человек", "I like short walks",
    "Я предпочитаю короткие прогулки",
    "I never said you should always be brief", "не то чтобы я просил писать короче",  # denied
    "You don't have to always answer briefly",
    "why are you always so brief?", "ты всегда так длинно пишешь?", "Ты что, всегда отвечаешь так коротко?",
    "Are you always this detailed?",
])
def test_length_traps(text):
    assert wishes(text) == {}


def test_a_one_off_in_another_clause_leaves_the_lasting_wish():
    assert wishes("Сейчас ответь коротко, а вообще всегда пиши подробно") == {"length": "подробно"}
    assert wishes("всегда пиши коротко. Но сейчас ответь подробно") == {"length": "коротко"}


# ---- tone ----------------------------------------------------------------------------------------------


@lasting([
    ("без воды, только факты и выводы, пожалуйста, всегда", "без воды, только факты и выводы"),
    ("впредь по делу и без сюсюканья", "по делу и без сюсюканья"),
    ("Отвечай мне всегда с юмором", "с юмором"), ("не лей воду никогда", "без воды"),
    ("прекрати сюсюкаться со мной", "без сюсюканья"), ("перестань быть таким формальным", "неформально"),
    ("Будь со мной всегда честным и прямолинейным", "честным и прямолинейным"),
    ("всегда отвечай без лишних слов", "без лишних слов"),
    ("No fluff, only data and conclusions — always.", "no fluff, only data and conclusions"),
    ("from now on, no fluff, straight to the point", "no fluff, straight to the point"),
    ("always formal", "formal"), ("from now on, please address me formally", "formal"),
    ("stop sugarcoating things", "no sugarcoating"), ("never sugarcoat anything for me", "no sugarcoating"),
    ("Stop lecturing me.", "no lectures"), ("Be blunt with me, always.", "blunt"),
    ("Could you be less formal with me from now on?", "informal"), ("Use a formal tone with me always", "formal"),
    ("Talk to me casually, like a friend, from now on", "casual, like a friend"),
])
def test_tone_is_learned(text, value):
    assert wishes(text) == {"tone": value}


@traps([
    "в этот раз напиши неформально", "For the next answer, use a formal tone", "be formal",  # one-off
    "Он всегда говорит: \"не лей воду\"", 'The sign said "always be straight to the point"',  # quoted
    "if I ever ask you to be formal, refuse", "Когда я грустный, говори со мной помягче",  # hypothetical
    "in the email to my boss, always be formal", "Always write to my clients formally",  # others
    "Write my cover letter formally, always", "My teacher wants us to always write formally",
    "It doesn't matter to me whether you're formal or not",  # indifferent
    "Зачем ты всегда пишешь так официально?", "Are you always this formal?",  # questions
    "Книга хорошая, без воды, всегда такие читаю",  # a statement
])
def test_tone_traps(text):
    assert wishes(text) == {}


# ---- language ------------------------------------------------------------------------------------------


@lasting([
    ("Пиши мне всегда по-английски", "английский"), ("давай перейдём на английский", "английский"),
    ("говори со мной всегда по-русски, даже если я пишу на английском", "русский"),
    ("Общайся со мной всегда на английском, пожалуйста", "английский"),
    ("давай впредь только по-немецки", "немецкий"), ("Отныне пиши мне только на иврите", "иврит"),
    ("I prefer you talk to me in English", "English"), ("can you always answer in Spanish?", "Spanish"),
    ("Always reply in Russian, even if I write in English", "Russian"), ("Switch to English please", "English"),
    ("Please always speak Russian with me", "Russian"), ("let's switch to French for good", "French"),
    ("always answer in english", "English"),
])
def test_language_is_learned(text, value):
    assert wishes(text) == {"language": value}


@traps([
    "Just for today, talk to me in French", "answer in English just this once", "Could you answer in Spanish?",
    "Answer this question in English please", "ответь по-английски",
    "Переведи на английский: «всегда отвечай коротко»",
    "Представь, что ты всегда отвечаешь только на английском", "Suppose I asked you to always reply in Latin",
    "сестра просит всегда писать ей на английском", "my mom only speaks Russian", "always write emails in English",
    "You don't have to always answer in English",
    "do you always answer in English?", "А ты умеешь говорить по-французски?", "Why do you always reply in Spanish?",
    "I prefer English tea",
])
def test_language_traps(text):
    assert wishes(text) == {}


# ---- emoji ---------------------------------------------------------------------------------------------


@lasting([
    ("please never use emoji", "no emoji"), ("could you stop using emoji from now on?", "no emoji"),
    ("No more emojis please!!", "no emoji"), ("no emoji, ever", "no emoji"),
    ("I'd rather you didn't use emoji", "no emoji"),
    ("use more emoji, always!", "more emoji"), ("I like it when you use emoji", "more emoji"),
    ("Don't use so many emojis anymore", "fewer emoji"), ("Больше никогда не ставь мне смайлики", "без эмодзи"),
    ("хватит смайликов", "без эмодзи"), ("бесит, когда ты ставишь смайлики", "без эмодзи"),
    ("мне больше нравится, когда ты ставишь эмодзи", "больше эмодзи"), ("Давай без смайликов впредь", "без эмодзи"),
    ("эмодзи больше не нужны, спасибо", "без эмодзи"), ("Слушай, можешь перестать ставить смайлики?", "без эмодзи"),
    ("никаких смайлов больше", "без эмодзи"),
])
def test_emoji_wishes_are_learned(text, value):
    assert wishes(text) == {"emoji": value}


@traps([
    "for this one, skip the emoji", "пока что без смайликов, ладно?", "Сейчас без смайликов, пишу соболезнования",
    "в этом ответе можно без смайликов", "no emoji please",
    "«никогда не используй смайлики» — так сказала начальница", 'She texted me "stop using emoji" lol',
    "Imagine you never used emoji, would that be weird", "вдруг ты перестанешь ставить смайлики, я расстроюсь",
    "she hates emoji", "Мой муж терпеть не может смайлики", "My kids never stop using emoji",
    "Коллега попросил больше не ставить ему смайлики в чате", "never use emoji in my work emails",
    "I don't mind emoji", "it's fine if you use emoji sometimes", "don't stop using emoji, I love them",
    "Я не против смайликов, ставь сколько хочешь", "I never use emoji myself",
    "Why do you never use emoji?", "Почему ты никогда не ставишь смайлики?", "Can you use emoji?",
])
def test_emoji_traps(text):
    assert wishes(text) == {}


# ---- words and topics to avoid ----------------------------------------------------------------------------


@lasting([
    ("never use the word 'empower'", "empower"), ("не называй меня зайкой", "зайкой"),
    ("не называй меня зайкой и котиком, бесит", "зайкой, котиком"), ("don't call me buddy", "buddy"),
    ("don't call me buddy or pal", "buddy, pal"), ("stop saying literally", "literally"),
    ("Никогда не используй слово «синергия»", "синергия"),
    ("Пожалуйста, никогда не говори мне «не переживай»", "не переживай"),
    ("хватит называть меня солнышком", "солнышком"), ("quit saying \"as an AI\"", "as an AI"),
    ("please, never ever use the phrase 'I hope this helps'", "I hope this helps"),
    ("never use the words 'delve' or 'tapestry'", "delve, tapestry"),
    ("И не называй меня больше «дорогушей», ладно?", "дорогушей"),
])
def test_words_to_avoid_are_learned(text, value):
    assert wishes(text) == {"avoid_words": value}


@lasting([
    ("не спрашивай меня больше про бывшего", "бывшего"), ("не поднимай больше тему работы", "работы"),
    ("никогда не заводи со мной разговор о политике", "политике"), ("Перестань спрашивать про маму", "маму"),
    ("never ask me about my ex", "my ex"), ("please don't mention my divorce again", "my divorce"),
    ("don't bring up my ex ever again", "my ex"), ("Don't bring my job up ever again", "my job"),
    ("hey, stop asking me about work all the time", "work"), ("stop bringing up my weight", "my weight"),
])
def test_topics_to_avoid_are_learned(text, value):
    assert wishes(text) == {"avoid_topics": value}


@traps([
    "call me Jo", "зови меня Костя", "называй меня Лёля",  # a name the user wants: the name rules' job
    "Не называй меня так!", "don't call me that", "don't call me tonight, I'm busy", "don't call me after 10pm",
    "stop asking me about it", "не спрашивай меня больше об этом", "не спрашивай, как прошёл день, просто слушай",
    "Please don't bring up the party, at least not now", "в следующем ответе не используй слово «контент»",
    "My grandma's rule was \"never use the word hate\"", "She always says: don't call me babe",
    "If you ever call me sweetie again, I'm leaving", "My sister asked me never to bring up her ex",
    "My therapist told me to stop saying sorry", "He keeps calling me buddy and I hate it",
    "Моя подруга всегда просит не называть её зайкой", "Why do you keep calling me buddy?",
    "what does 'empower' even mean?", "Как сказать «не называй меня зайкой» по-английски?", "never say never",
    "Ты никогда не спрашиваешь про мою работу",
])
def test_avoid_traps(text):
    assert wishes(text) == {}


# ---- nasty input -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", " ", "\n\n", "?!", "😀😀😀🎉", "«»“”\"\"", "на", "ты вы", "never", "всегда " * 3])
def test_empty_and_meaningless_input_yields_nothing(text):
    assert extract_style_facts(text) == []


def test_a_long_message_keeps_its_wish_and_finds_no_other():
    filler = "Сегодня был длинный день, я много работал и устал. " * 200  # ~10,000 characters
    assert len(filler) >= 10_000
    assert wishes(filler) == {}
    assert wishes(filler + "Кстати, давай на ты.") == {"address": "ты"}


def test_mixed_scripts_and_homoglyphs_do_not_break_it():
    assert wishes("давай нa ты") == {}  # a Latin "a": no wish is guessed from it
    assert wishes("давай на ты 😀, and from now on answer in English") == {"address": "ты", "language": "English"}


def test_a_mention_of_the_bot_in_a_group_stands_for_no_one():
    assert wishes("@companion_bot from now on never use emoji with me") == {"emoji": "no emoji"}
    assert wishes("@companion_bot давай на ты") == {"address": "ты"}


def test_a_wish_inside_a_quotation_spanning_sentences_is_no_wish():
    assert wishes('Она написала: "Привет. Впредь пиши мне коротко. Пока."') == {}
    assert wishes('"From now on, never use emoji. Thanks," my boss wrote.') == {}
    assert wishes("Цитата: «Ну что. Давай на ты. Договорились?» Смешно, правда?") == {}
    assert wishes("«Привет». Давай на ты") == {"address": "ты"}  # the quotation closed before the wish


def test_a_hostile_input_of_50000_characters_finishes():
    # No timing assert (it would flake on a busy machine): the patterns hold no nested unbounded quantifier,
    # so these finish in linear time; a backtracking regex would hang the test until its timeout.
    for text in ["всегда " * 7000, "не " * 17000, "never say " * 5000, "без воды и " * 5000, " " * 50000,
                 "«" * 50000, "не называй меня " + "зайкой и " * 5000, "давай на ты " * 4000]:
        assert len(text) >= 45000
        found = extract_style_facts(text)
        assert all(fact.key.startswith("style:") for fact in found)


# ---- the corpus ------------------------------------------------------------------------------------------

RECALL_FLOOR = 0.95  # measured 0.984 (126 of 128) on 2026-11-30


def corpus() -> list[dict]:
    """The labelled messages of bench/style_corpus.json."""
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def test_the_corpus_is_half_russian_half_traps():
    entries = corpus()
    assert len(entries) >= 80
    russian = sum(entry["lang"] == "ru" for entry in entries) / len(entries)
    trapped = sum("trap" in entry for entry in entries) / len(entries)
    assert 0.4 <= russian <= 0.6 and 0.4 <= trapped <= 0.6


@pytest.mark.parametrize("entry", [e for e in corpus() if "trap" in e], ids=lambda e: e["text"][:40])
def test_no_corpus_trap_yields_a_style_fact(entry):
    assert extract_style_facts(entry["text"]) == []


def test_corpus_precision_and_recall_on_lasting_wishes():
    correct = predicted = expected = 0
    for entry in corpus():
        if "trap" in entry:
            continue
        found = {fact.key: comparable(fact.value) for fact in extract_style_facts(entry["text"])}
        wanted = {fact["key"]: comparable(fact["value"]) for fact in entry["facts"]}
        predicted, expected = predicted + len(found), expected + len(wanted)
        correct += sum(wanted.get(key) == value for key, value in found.items())
    assert correct / predicted >= 0.97
    assert correct / expected >= RECALL_FLOOR
