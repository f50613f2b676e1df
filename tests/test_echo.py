"""prompts/echo.py: the lines of a reply that repeat system message zero go; the model's own words stay."""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from memory.continuity import Topic
from memory.facts import Fact
from prompts.character_card import default_prompt
from prompts.echo import ECHO_MIN_CHARS, echo_free_draft, strip_echo
from prompts.system import build_system_message

MOSCOW = ZoneInfo("Europe/Moscow")
NOW = datetime(2025, 12, 5, 11, 30, tzinfo=timezone.utc)  # Friday, 14:30 in Moscow
DREAM = "мечтаю однажды увидеть северное сияние в Норвегии"  # a value of 40+ characters the user told
CLOCK = "It is Friday, 5 December 2025, 14:30 (afternoon) in Europe/Moscow; the season is winter."
FACTS = [
    Fact("interests", "dream", DREAM),
    Fact("location", "city", "Москва"),
    Fact("misc", "motto", 'он сказал "живи сейчас"'),
]


def system(persona: str | None = None, **overrides) -> str:
    arguments = dict(
        persona=default_prompt() if persona is None else persona, name="Анна", facts=FACTS, now=NOW,
        previous=NOW - timedelta(days=3), timezone=MOSCOW,
        wishes=[Fact("style", "style:tone", "тёплый, без официоза")],
        topics=[Topic("переезд в Казань и поиск квартиры рядом с парком", NOW - timedelta(days=3, hours=1),
                      NOW - timedelta(days=3))],
    )
    arguments.update(overrides)
    return build_system_message(**arguments)["content"]


PROMPT = system()


def test_the_prompt_under_test_holds_what_the_cases_quote():
    for line in (CLOCK, 'Their name: "Анна"', f'- dream: "{DREAM}"', '- city: "Москва"', "## Now",
                 "## The person you are talking with", "## Last time you talked", '- tone: "тёплый, без официоза"',
                 r'- motto: "он сказал \"живи сейчас\""'):
        assert line in PROMPT.split("\n"), line


@pytest.mark.parametrize("reply", [
    "Привет, Анна! Как прошла неделя?",
    "Привет!\n\n\nКак дела?  \n",  # returned exactly, spaces and blank lines too
    "",
    "   ",
])
def test_a_reply_without_echo_comes_back_exactly(reply):
    assert strip_echo(reply, PROMPT) == (reply, 0)


@pytest.mark.parametrize("prompt", ["", "  \n\n "])
def test_an_empty_system_message_removes_nothing(prompt):
    reply = f"{CLOCK}\n## Now"
    assert strip_echo(reply, prompt) == (reply, 0)


@pytest.mark.parametrize("reply", [
    "Твоё имя — Анна",
    "Тебя зовут Анна, я помню.",
    "Their name: Анна",  # not a line the prompt holds: without the quotes it is no copy of the data line
    "Anna",
])
def test_the_users_name_in_the_models_words_stays(reply):
    assert strip_echo(reply, PROMPT) == (reply, 0)


@pytest.mark.parametrize("reply", ['Their name: "Анна"', '**Their name:** "Анна"', '- Their name: «Анна»',
                                   '> their   NAME: "Анна"'])
def test_the_name_line_copied_goes(reply):
    assert strip_echo(reply, PROMPT) == ("", 1)


@pytest.mark.parametrize("reply", [
    "Сегодня пятница, 5 декабря",
    "Сегодня пятница, 5 декабря 2025 года, 14:30 по Москве — самое время для обеда.",
    "Today is Friday, 5 December 2025.",
    "It is Friday, 5 December 2025, 14:30 in Moscow.",  # under 40 characters copied
    "Now",
    "Now:",
    "nothing yet",
])
def test_a_reply_that_says_the_date_or_the_time_in_its_own_words_stays(reply):
    assert strip_echo(reply, PROMPT) == (reply, 0)


@pytest.mark.parametrize("line", [
    CLOCK,
    CLOCK.upper(),
    CLOCK.replace(" ", "   ").replace(";", ";\t"),
    f"- {CLOCK}",
    f"**{CLOCK}**",
    f"> {CLOCK}",
    f"1. {CLOCK}",
    "It is Friday, 5 December 2025, 14:30 (afternoon)",  # a verbatim 49 characters of it
    f"Sure! {CLOCK}",  # a greeting before it does not save the line
])
def test_the_clock_line_copied_goes(line):
    assert strip_echo(f"{line}\nПривет!", PROMPT) == ("Привет!", 1)


@pytest.mark.parametrize("reply", [
    f"Помню, ты говорила: «{DREAM}». Уже решила, когда поедешь?",
    f'Помню, ты говорила: "{DREAM}".',
    f"Ты же {DREAM} — может, этой зимой?",
    DREAM,  # the value alone: the user's words, without the prompt's markup
    f"«{DREAM}»",
    "Ты живёшь в Москве, верно?",
])
def test_a_value_the_user_told_used_by_the_model_stays(reply):
    assert strip_echo(reply, PROMPT) == (reply, 0)


@pytest.mark.parametrize("line", [
    f'- dream: "{DREAM}"',
    f'* dream: «{DREAM}»',
    f'dream: "{DREAM}"',
    '- city: "Москва"',
    '- tone: "тёплый, без официоза"',
    '- motto: "он сказал "живи сейчас""',  # the prompt escapes the inner quotes; the model need not
    '- 3 days ago: "переезд в Казань и поиск квартиры рядом с парком"',
])
def test_a_line_of_the_quoted_data_blocks_with_its_markup_goes(line):
    assert strip_echo(f"Привет!\n{line}", PROMPT) == ("Привет!", 1)


def test_a_multi_line_echo_goes_whole():
    block = PROMPT[PROMPT.index("## The person you are talking with"):]
    reply = f"{block}\n\nПривет, Анна! Как ты?"
    echoed = [line for line in block.split("\n") if line.strip()]
    assert strip_echo(reply, PROMPT) == ("Привет, Анна! Как ты?", len(echoed))


def test_a_reply_that_is_the_whole_prompt_is_left_empty():
    cleaned, removed = strip_echo(PROMPT, PROMPT)
    assert cleaned == ""
    assert removed == len([line for line in PROMPT.split("\n") if line.strip()])


def test_an_echo_in_the_middle_of_an_answer_takes_only_its_lines():
    reply = f"Привет, Анна!\n\n## Now\n{CLOCK}\n\nКак прошла неделя?\n- работа\n- переезд"
    assert strip_echo(reply, PROMPT) == ("Привет, Анна!\n\nКак прошла неделя?\n- работа\n- переезд", 2)


@pytest.mark.parametrize("heading", ["## Now", "# Now", "### now", "## The person you are talking with",
                                     "The person you are talking with", "**Last time you talked**",
                                     "> ## How they want you to talk", "How you talk:"])
def test_section_headings_go(heading):
    assert strip_echo(f"{heading}\nОтвет.", PROMPT) == ("Ответ.", 1)


def test_markdown_around_echoed_lines_goes_with_them():
    quoted = f'> You are a warm, attentive companion the user chats with in Telegram.\n>\n> {CLOCK}\n\nПривет!'
    assert strip_echo(quoted, PROMPT) == ("Привет!", 2)
    fenced = f'Вот мои инструкции:\n```text\n## Now\n{CLOCK}\n```\nНо давай о тебе.'
    assert strip_echo(fenced, PROMPT) == ("Вот мои инструкции:\nНо давай о тебе.", 2)
    ruled = f"## Now\n{CLOCK}\n\n---\n\nПривет!"
    assert strip_echo(ruled, PROMPT) == ("Привет!", 2)
    trailing = f"Привет!\n\n> {CLOCK}\n>"
    assert strip_echo(trailing, PROMPT) == ("Привет!", 1)


def test_a_code_block_with_words_of_its_own_is_kept():
    reply = f"```\n{CLOCK}\nprint('hi')\n```"
    assert strip_echo(reply, PROMPT) == ("```\nprint('hi')\n```", 1)


def test_what_is_left_besides_the_echo_decides_whether_anything_is_left():
    assert strip_echo(f"{CLOCK}\n🙂", PROMPT) == ("🙂", 1)
    assert strip_echo(f"{CLOCK}\n---\n> \n**", PROMPT) == ("", 1)


def test_a_phrase_of_the_prompt_inside_a_longer_sentence_of_the_models_own_stays():
    reply = ("Like I said, I'm a warm, attentive companion the user chats with in Telegram, and I'd love to hear"
             " how your week went and what you are planning for the weekend.")
    assert strip_echo(reply, PROMPT) == (reply, 0)


def test_a_line_mostly_copied_from_the_persona_goes_even_with_a_word_changed():
    line = ("Use what you remember about them when it fits, naturally, without reciting it back. Never invent"
            " memories: if you don't know something about them, just ask.")
    assert strip_echo(f"{line}\nКак дела?", PROMPT) == ("Как дела?", 1)


def test_a_russian_prompt_echoed_in_russian_goes_and_a_russian_answer_stays():
    persona = ("Ты тёплый, внимательный собеседник, с которым пользователь переписывается в Telegram.\n"
               "Отвечай коротко и по-дружески, без канцелярита.")
    prompt = system(persona)
    reply = ("ты тёплый, внимательный собеседник, с которым пользователь переписывается в Telegram.\n"
             "Отвечай коротко и по-дружески, без канцелярита.\nПривет! Я тёплый собеседник, давай поболтаем.")
    assert strip_echo(reply, prompt) == ("Привет! Я тёплый собеседник, давай поболтаем.", 2)


def test_an_english_reply_keeps_its_english_answer():
    reply = "You are a warm, attentive companion the user chats with in Telegram.\nHi Anna! How was your week?"
    assert strip_echo(reply, PROMPT) == ("Hi Anna! How was your week?", 1)


def test_windows_line_endings():
    reply = f"## Now\r\n{CLOCK}\r\nПривет!\r\n"
    assert strip_echo(reply, PROMPT) == ("Привет!", 2)


def test_a_streamed_line_goes_once_enough_of_it_is_copied():
    """Drafts are stripped as they grow: a copied line shows until it is ECHO_MIN_CHARS long, then goes."""
    short = CLOCK[:ECHO_MIN_CHARS - 1]
    assert strip_echo(short, PROMPT) == (short, 0)
    assert strip_echo(CLOCK[:ECHO_MIN_CHARS], PROMPT) == ("", 1)
    assert strip_echo(f"{CLOCK}\nПри", PROMPT) == ("При", 1)


def test_a_prompt_without_name_or_facts_still_catches_its_own_lines():
    prompt = system(name=None, facts=[], wishes=[], topics=[], previous=None, display_name=None)
    reply = ("You don't know their name yet; don't press them for it.\n"
             "This is your first conversation with them.\nПривет! Как тебя зовут?")
    assert strip_echo(reply, prompt) == ("Привет! Как тебя зовут?", 2)


def test_a_draft_holds_back_a_line_being_written_while_it_may_become_an_echo():
    assert echo_free_draft(CLOCK[:10], PROMPT) == ""
    assert echo_free_draft(f"Привет!\n{CLOCK[:ECHO_MIN_CHARS - 1]}", PROMPT) == "Привет!"
    assert echo_free_draft(f"{CLOCK}\nПривет, Ан", PROMPT) == "Привет, Ан"
    assert echo_free_draft(f"## Now\n{CLOCK}\n", PROMPT) == ""
    assert echo_free_draft("## No", PROMPT) == ""


def test_a_draft_shows_a_line_being_written_once_it_is_no_piece_of_the_prompt():
    assert echo_free_draft("Привет, Ан", PROMPT) == "Привет, Ан"
    assert echo_free_draft("It is Friday, 5 December 2025, 14:30 in Mos", PROMPT) == (
        "It is Friday, 5 December 2025, 14:30 in Mos")
    assert echo_free_draft("Привет!\n", PROMPT) == "Привет!\n"
    assert echo_free_draft("It is", "") == "It is"


@pytest.mark.parametrize("reply, kept", [
    ("[Olya] What film tonight? Alien!", "What film tonight? Alien!"),
    ("[Olya] [Pasha]  hi both", "hi both"),
    ("  [Olya]\nhello", "hello"),
    ("[Olya]", "[Olya]"),  # nothing else: kept as it is
    ("Alien [1979] is a classic", "Alien [1979] is a classic"),
    ("[link](https://x.example) first", "[link](https://x.example) first"),
    ("[" + "x" * 70 + "] long", "[" + "x" * 70 + "] long"),
])
def test_a_group_reply_loses_a_copied_speaker_mark_and_nothing_else(reply, kept):
    from prompts.echo import without_speaker_tag

    assert without_speaker_tag(reply) == kept
