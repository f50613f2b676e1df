"""Whether a message asks the bot to remind the user, of what and when: `read_request(text, now)`.

Pure: `now` is an aware datetime in the user's zone and comes in from the caller. What counts as a request is
in docs/reminders.md; the time words are read by memory/reminders/times.py, cancels and moves by reminder_changes.py.

A request is the user's own order to the bot: "напомни", "напоминай", "не напомнишь…?", "можешь (завтра)
напомнить", "хочу, чтобы ты напомнил", "не дай мне забыть", "поставь напоминание", "remind me", "don't let me
forget", "set a reminder", "can I get a reminder"; "ping me", "nudge me", "пни меня", "дёргай меня",
"маякни мне" only with a time. "that day"/"в тот же день" after the asking takes its day from an earlier
clause. Not a request (None):
  - words inside quotation marks (also '…' opened and closed outside a word), lines quoted with ">", a message
    that starts "Переслано"/"Forwarded", words said to another assistant ("Siri, remind me…");
  - a negation ("не напоминай", "don't remind me"); a condition or hypothetical in the asking's clause
    ("если бы ты мог напомнить", "if you remind me"); someone else's words ("он пишет: напомни…");
  - an English "remind me" after anything but greetings, politeness or "can you"/"I need you to" in its clause
    ("my boss will remind me", "you remind me of…");
  - a question about what the user knows: a question word after the asking ("напомни, как зовут…", "во
    сколько…", "remind me what…", "remind me the name…"), "что" with a past verb ("напомни, что я ел"), a
    yes-or-no question after a comma ("напомни, у меня завтра встреча?"), or, without any time, an object that
    is no task ("напомни мой пароль");
  - someone else to be reminded ("напомни Маше", "напомни брату"); a question about what the bot can do
    ("можешь напоминать о делах?", "can you remind me?"); "remind me never to…".

The task is the user's words with the asking, "мне"/"me", the time words, politeness and joining words
("чтобы", "что надо", "to", "that I need to", "about", "про") cut away; when nothing is left after the asking,
the words before it, or a following sentence that starts with a verb ("Напомни завтра в 9. Позвонить маме.").

Decisions: a request whose time cannot be read is `Unclear` (the caller asks the model once), "через 0 минут"
and more than ten years ahead among them; a sentence longer than MAX_SENTENCE is `Unclear` with no task.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from memory.reminders import reminder_patterns as p
from memory.reminders.kinds import AskReminder, Request, SetReminder, TooOften, Unclear
from memory.reminders.reminder_changes import cancel, move
from memory.reminders.spans import blank, clause_before, cut, masked_quotes, sentences
from memory.reminders.times import Timing, read_timing
from memory.text.prefilter import first_match

MAX_SENTENCE = 500
GENERIC = re.compile(
    r"^(?:(?:about|of|to\s+do)\s+)?(?:things|stuff|something|anything|everything|events|tasks|appointments|"
    r"о\s+делах|о\s+ч[её]м-(?:нибудь|то)|обо\s+вс[её]м|о\s+встречах|о\s+задачах|про\s+дела|дела|задачи|людям|"
    r"people|others|users)\s*[?.!]*$", re.IGNORECASE)
RU_FILLERS = re.compile(
    r"^(?:[\s,.:;!—–-]|(?:пожалуйста|плиз|слушай|слушайте|бот|эй|ну|а|и|так|короче|кстати|ок|окей|да|ещё|еще|"
    r"привет|дружище|друг|пж|пжлст|только|тогда|потом)(?=[\s,.:;!]|$))*$", re.IGNORECASE)


def read_request(text: str, now: datetime) -> Request | None:
    """Return what `text` asks of reminders (set, ask which hour, unclear, too often, cancel, move), or None."""
    if not isinstance(text, str) or not text.strip():
        return None
    if p.FORWARDED.match(text) or p.OTHER_ASSISTANT.match(text):
        return None  # someone else's message passed on, or words said to another assistant
    masked = masked_quotes(text)
    spans = sentences(masked)
    for index, (start, end) in enumerate(spans):
        sentence = masked[start:end]
        change = cancel(sentence, now) or move(sentence, now)
        if change:
            return change
        following = text[spans[index + 1][0] : spans[index + 1][1]] if index + 1 < len(spans) else ""
        asked = _asked(sentence, text[start:end], following, now)
        if asked is not None:
            return asked
    return None


# ---- setting ------------------------------------------------------------------------------------------


def _asked(sentence: str, original: str, following: str, now: datetime) -> Request | None:
    """Return the request of one sentence (quotes blanked in `sentence`, kept in `original`), or None."""
    match = _asking(sentence)
    if match is None:
        return None
    if len(sentence) > MAX_SENTENCE:
        return Unclear("")
    if re.search(r"\s(?-i:Me)\b", match.group()) and match.start() < 40:
        return None  # "Remind Me Tomorrow — отличная песня": a title, written in its capitals
    timing = _timing(sentence, match, now)
    english = bool(match.re is p.EN_ASK)
    left = clause_before(sentence, match.start())
    if not _said_to_the_bot(match, sentence, blank(left, timing.spans, match.start() - len(left)), english):
        return None
    after = blank(sentence[match.end() :], timing.spans, match.end()).strip()
    rest = p.REST_LEAD.sub("", after)
    if re.match(r"(?:to\s+)?never\b|никогда\b", rest, re.IGNORECASE) and timing.kind == "none":
        return None  # "remind me never to eat there again": a lesson learnt, not a reminder
    if _asks_what_is_known(rest, timing, english) or (not english and _someone_else(after, rest)):
        return None
    if _asks_back(after, rest, sentence, english):
        return None
    task = _task(original, match, timing, following, now)
    return _request(match, timing, task, rest, english)


def _timing(sentence: str, match: re.Match[str], now: datetime) -> Timing:
    """Return the timing of the asking's clause and what follows it, or of the whole sentence when they say none.

    An earlier clause speaks of something else as often as of the reminder ("she told me yesterday…, so remind
    me at 5"), so its time words count only when the asking's own words have none.
    """
    start = match.start() - len(clause_before(sentence, match.start()))
    that_day = [found.span() for found in p.THAT_DAY.finditer(sentence, start)]
    if that_day and start and read_timing(sentence[:start], now).kind != "none":
        # "In 3 days, ping me at 11am that day": "that day" is the earlier clause's, so the sentence is read whole
        timing = read_timing(blank(sentence, that_day), now)
        return replace(timing, spans=tuple(sorted(timing.spans + tuple(that_day))))
    timing = read_timing(sentence[start:], now)
    if timing.kind == "none" and start:
        return read_timing(sentence, now)
    return replace(timing, spans=tuple((begin + start, end + start) for begin, end in timing.spans))


def _asking(sentence: str) -> re.Match[str] | None:
    """Return the first words in `sentence` that ask for a reminder, Russian or English, or None."""
    found = [match for pattern in (p.RU_ASK, p.EN_ASK) for match in [first_match(pattern, sentence)] if match]
    return min(found, key=lambda match: match.start()) if found else None


def _said_to_the_bot(match: re.Match[str], sentence: str, left: str, english: bool) -> bool:
    """True when the asking is an order to the bot: not denied, hypothetical, reported or said of someone."""
    groups = match.groupdict()
    if groups.get("neg") and not groups["verb"].lower().startswith("напомнишь"):
        return False  # "не напоминай": a negation; "не напомнишь мне…?" is a polite request
    if groups.get("wish"):
        before = sentence[max(0, match.start() - 40) : match.start()]
        return bool(p.WISH_BEFORE.search(before)) and not p.WISH_DENIED.search(before)
    reported = first_match(p.REPORTED, sentence[: match.start()])
    if reported and p.REPORTED_GAP.search(reported.group("gap")):
        return False  # "он пишет: напомни мне…", "she said remind me…": someone else's words
    if english:
        return p.only_politeness(left)
    return not first_match(p.RU_NOT_ASKED_BEFORE, left) and not re.search(r"\bбы\b", left.replace("мог бы", ""))


def _asks_what_is_known(rest: str, timing: Timing, english: bool) -> bool:
    """True when the words after the asking ask what the user knows ("как зовут…", "what we talked about")."""
    if re.match(r"что\b(?!бы)", rest, re.IGNORECASE):
        if p.RU_WHAT_WAS.match(rest):
            return True
        return timing.kind == "none" and not first_match(p.RU_THAT_TASK, rest)
    return bool(p.QUESTION_AFTER.match(rest))


def _asks_back(after: str, rest: str, sentence: str, english: bool) -> bool:
    """True for "напомни, у меня завтра встреча?": a yes-or-no question after a comma, not a task."""
    after_comma = re.match(r"\s*(?:(?:мне|меня|me|пожалуйста|please)\s*)*,", after, re.IGNORECASE)
    if not after_comma or not sentence.rstrip().endswith("?"):
        return False
    task_start = p.EN_TASK_START if english else p.RU_TASK_START
    return not task_start.match(rest)


def _someone_else(after: str, rest: str) -> bool:
    """True when a Russian asking is for someone else to be reminded ("напомни Маше", "напомни ему")."""
    if re.match(r"^[\s,]*(?:мне|меня|нам)\b", after, re.IGNORECASE):
        return False
    if p.RU_SELF_WORD.match(rest) or p.RU_INFINITIVE.match(rest):
        return False
    return bool(p.RU_OTHER_PERSON.match(rest) or p.RU_CAPITALISED.match(rest))


def _request(match: re.Match[str], timing: Timing, task: str, rest: str, english: bool) -> Request | None:
    """Return the request a found asking makes with its timing and task."""
    groups = match.groupdict()
    if timing.kind == "too_often":
        return TooOften(task)
    if timing.kind in ("at", "ask") and first_match(p.TIME_LEFT, task):
        return Unclear(task)  # time words the rules did not read ("около восьми утра"): the model reads it
    if timing.kind == "at":
        at, repeat = timing.options[0]
        return SetReminder(task, at, repeat)
    if timing.kind == "ask":
        return AskReminder(task, tuple(SetReminder(task, at, repeat) for at, repeat in timing.options))
    if timing.kind == "unclear":
        return Unclear(task)
    # no time at all: a request only when it plainly names something to do
    modal = bool(groups.get("modal")) or (english and bool(p.EN_MODAL.search(match.string[: match.start()])))
    if groups.get("ping") or GENERIC.match(rest.strip()):
        return None
    if not task:
        return None if modal or rest.strip(" ?!.") else Unclear("")
    task_start, task_like = (p.EN_TASK_START, p.EN_TASK_LIKE) if english else (p.RU_TASK_START, p.RU_TASK_LIKE)
    return Unclear(task) if task_start.match(rest) or task_like.search(rest) else None


# ---- the task -----------------------------------------------------------------------------------------


def _task(original: str, match: re.Match[str], timing: Timing, following: str, now: datetime) -> str:
    """Return the user's words for what to do: the asking, "мне", the time and joining words cut away."""
    after = _clean(cut(original, timing.spans, match.end(), len(original)))
    if after:
        return after
    before = cut(original, timing.spans, 0, match.start())
    if RU_FILLERS.match(before) or p.only_politeness(before):
        before = ""
    before = _clean(before)
    if before:
        return before
    if following and not _asking(following):  # "Напомни завтра в 9. Позвонить маме."
        words = _clean(cut(following, read_timing(following, now).spans, 0, len(following)))
        if p.RU_INFINITIVE.match(words) or re.match(r"(?:to|call|buy|take|pay|send|check|pick)\b", words, re.I):
            return words
    return ""


def _clean(words: str) -> str:
    """Return a task trimmed of joining words, politeness and punctuation at either end, spaces made single."""
    words = " ".join(words.split())
    words = p.FILLER.sub(" ", words)
    words = " ".join(words.split())
    for _ in range(3):
        words = p.without_tail(p.TASK_LEAD.sub("", words), p.TASK_TAIL).strip()
    words = re.sub(r"\s+([,.!?;:])", r"\1", words)
    words = re.sub(r"\s*,\s*(?:,\s*)+", ", ", words)
    words = re.sub(r"^[^\w(«\"“'$€£₽#@]+|[^\w)»\"”'%.!?]+$", "", words)  # emoji, dashes, stray signs
    return words.strip(" ,;:—–-")
