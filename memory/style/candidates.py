"""Candidate wishes about the bot's manner in one sentence, before the guards of memory/style/wishes.py judge them.

Three finders: ты/вы ("давай на ты", "не выкай"), complete requests ("stop using emoji", "не называй меня
зайкой") and phrases that need a request word before them ("пиши коротко", "I prefer short answers") or
stand alone with fillers ("Always short answers, please.").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter

from memory.style import aspects as a
from memory.style import style_patterns as p
from memory.text.prefilter import Shortlist, first_match, matches

GAP = 60  # how far (characters) back from a phrase its request word may stand


@dataclass(frozen=True)
class Wish:
    """One candidate wish in a sentence: where its request starts, the wished phrase, and what it asks."""

    start: int
    span: tuple[int, int]
    aspect: str
    value: str
    lasting: bool  # lasting by its form alone


def candidates(sentence: str) -> list[Wish]:
    """Return the wishes the patterns see in `sentence`, in order, without two on one phrase (the longest wins)."""
    found = sorted(
        [*_addresses(sentence), *_complete_requests(sentence), *_requested_phrases(sentence)],
        key=lambda wish: (wish.span[0], wish.span[0] - wish.span[1]),
    )
    kept: list[Wish] = []
    for wish in found:
        if not kept or wish.span[0] >= kept[-1].span[1]:
            kept.append(wish)
    return kept


# ---- fillers and turns ---------------------------------------------------------------------------


def cut_before(window: str) -> str:
    """Return the part of `window` after its last turn ("…, но", "but", ";")."""
    last = next(reversed(list(matches(p.CONTRAST, window))), None)
    return window[last.end() :] if last else window


def cut_after(window: str) -> str:
    """Return the part of `window` before its first turn."""
    turn = first_match(p.CONTRAST, window)
    return window[: turn.start()] if turn else window


@lru_cache(maxsize=2)
def phrase_index(kind: str) -> dict[str, list[tuple[str, ...]]]:
    """Return the filler phrases of `kind` ("openers" or "bare") by their first word, longest first."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for phrase in p.OPENERS if kind == "openers" else p.BARE_FILLERS:
        index.setdefault(phrase[0], []).append(phrase)
    return {word: sorted(group, key=len, reverse=True) for word, group in index.items()}


def consumed(text: str, kind: str) -> bool:
    """True when `text` is nothing but filler phrases of `kind` (and punctuation)."""
    if len(text) > 200:
        return False  # a wish said without a verb stands in a short sentence
    words = [word.lower() for word in p.TOKEN.findall(text)]
    return past_fillers(words, kind) == len(words)


def past_fillers(words: list[str], kind: str, stop: frozenset[str] = frozenset()) -> int:
    """Return the index of the first of `words` that is no filler phrase of `kind` (or is in `stop`)."""
    index, i = phrase_index(kind), 0
    while i < len(words) and words[i] not in stop:
        phrase = next((ph for ph in index.get(words[i], []) if tuple(words[i : i + len(ph)]) == ph), None)
        if phrase is None:
            break
        i += len(phrase)
    return i


# ---- finding candidates ------------------------------------------------------------------------------


def _addresses(sentence: str) -> Iterator[Wish]:
    """Yield ты/вы wishes: "давай на ты", "не надо на вы" (ты), "не выкай" (ты), "не тыкай мне" (вы)."""
    for match in matches(a.ADDRESS, sentence):
        after = sentence[match.end() : match.end() + 40]
        before = sentence[max(0, match.start() - 24) : match.start()]
        if a.ADDRESS_ALTERNATIVE.match(after) or first_match(a.ADDRESS_ALTERNATIVE_BEFORE, before):
            continue  # "на ты или на вы": a choice, not a wish
        start, negated, asked = _address_lead(sentence, match.start())
        if not asked and a.ADDRESS_AFTER_LEAD.match(after):
            start, asked = match.start(), True
        if asked:
            form = match.group("form").lower()
            value = {"ты": "вы", "вы": "ты"}[form] if negated else form
            yield Wish(start, match.span(), "address", value, True)
    for match in matches(a.ADDRESS_VERB, sentence):
        verb = match.group("verb").lower()
        denied_at = _address_denial(sentence, match.start())
        if denied_at is not None and not (verb == "тыка" and a.POKE.match(sentence, match.end())):
            yield Wish(denied_at, match.span(), "address", "ты" if verb == "выка" else "вы", True)


def _address_denial(sentence: str, at: int) -> int | None:
    """Return where "не", "хватит" or "перестань" stands before the verb at `at` ("не выкай мне"), else None."""
    window_start = max(0, at - 40)
    start = None
    for word in reversed(list(p.TOKEN.finditer(sentence[window_start:at]))[-4:]):
        lowered = word.group().lower()
        if lowered in a.ADDRESS_NEGATIONS:
            start = window_start + word.start()
        elif lowered not in a.ADDRESS_VERB_FILLERS:
            break
    return start


def _address_lead(sentence: str, at: int) -> tuple[int, bool, bool]:
    """Return (where the request starts, whether it is denied, whether there is one) for "на ты/вы" at `at`."""
    window_start = max(0, at - 60)
    window = cut_before(sentence[window_start:at])
    base = at - len(window)
    start, negated, lead, negated_lead = at, False, False, False
    for word in reversed(list(matches(p.TOKEN, window))[-7:]):
        lowered = word.group().lower()
        if lowered in a.ADDRESS_NEGATIONS:
            negated = True
            lead = lead or lowered in a.ADDRESS_STOPS
        elif lowered in a.ADDRESS_LEADS:
            lead = True
        elif lowered in a.ADDRESS_NEGATED_LEADS:
            negated_lead = True
        elif lowered not in a.ADDRESS_FILLERS:
            break
        start = base + word.start()
    return start, negated, lead or (negated_lead and negated)


def _complete_requests(sentence: str) -> Iterator[Wish]:
    """Yield the wishes whose pattern is a whole request: "stop using emoji", "не называй меня зайкой"."""
    for aspect, pattern, value, lasting in _complete_table().possible(sentence):
        for match in pattern.finditer(sentence):
            found = value(match)
            if found:
                # "I'd rather you didn't use emoji": a stated preference before a request makes it last.
                request = _request(sentence, match.start(), match.end())
                if request and request[1] == "like":
                    yield Wish(request[0], match.span(), aspect, found, True)
                else:
                    yield Wish(match.start(), match.span(), aspect, found, lasting)


def warm() -> None:
    """Build the tables of requests and phrases and read their patterns' prefilter words now, not on a first
    message (0.17 s of CPU)."""
    _complete_table().build()
    _phrase_table().build()


@lru_cache(maxsize=1)
def _complete_table() -> Shortlist[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str | None], bool]]:
    """Return (aspect, pattern, value of a match, lasting by form) for every complete request."""
    table: list[tuple[str, re.Pattern[str], Callable[[re.Match[str]], str | None], bool]] = []

    def add(aspect: str, patterns: list[tuple], value: Callable[[re.Match[str]], str | None] | None) -> None:
        for pattern, lasting, *constant in patterns:
            compiled = re.compile(p.B + r"(?:" + pattern + r")" + p.E, p.I)
            read = (lambda m, c=constant[0]: c) if constant else value
            if read is None:
                raise ValueError(f"{aspect}: a pattern with neither its value nor a reader of one")
            table.append((aspect, compiled, read, lasting))

    add("emoji", a.NO_EMOJI_RU, lambda m: "меньше эмодзи" if re.search(r"столько|так\s+много", m.group(), p.I)
        else "без эмодзи")
    add("emoji", a.NO_EMOJI_EN, lambda m: "fewer emoji" if re.search(r"so\s+many", m.group(), p.I) else "no emoji")
    add("length", a.SHORT_COMPLETE_RU, lambda m: "коротко")
    add("length", a.SHORT_COMPLETE_EN, lambda m: "short answers")
    add("tone", [(pattern, lasting, value) for pattern, value, lasting in a.TONE_COMPLETE], None)
    add("avoid_words", a.AVOID_WORDS, _avoided_words)
    add("avoid_topics", a.AVOID_TOPICS, _avoided_topic)
    return Shortlist(table, itemgetter(1))


def _avoided_words(match: re.Match[str]) -> str | None:
    """Return the words to avoid, quotes stripped and joined with ", "; None when one is no word ("so", "так")."""
    words = []
    for item in a.LIST_ITEM.findall(match.group("words")):
        if item.lower() in ("и", "или", "and", "or", "nor"):
            continue  # a separator of the list
        if item[0] in "«\"“'‘„":
            words.append(item[1:-1].strip())
        elif item.lower() in a.NOT_WORDS:
            return None
        else:
            words.append(item)
    return ", ".join(word for word in words if word) or None


def _avoided_topic(match: re.Match[str]) -> str | None:
    """Return the topic to avoid as written; None for a pronoun ("it", "это") that names none."""
    topic = match.group("topic").strip()
    return None if topic.lower() in a.NOT_TOPICS else topic


def _requested_phrases(sentence: str) -> Iterator[Wish]:
    """Yield the wishes whose phrase needs a request before it ("пиши коротко") or stands alone.

    A phrase with only fillers between it and the one before ("и", ",", "with me from now on") shares that
    one's request: "отвечай покороче и без эмодзи".
    """
    found = sorted(
        ((match, aspect, value) for aspect, pattern, value in _phrase_table().possible(sentence)
         for match in pattern.finditer(sentence)),
        key=lambda item: item[0].start(),
    )
    shared: tuple[int, str] | None = None
    shared_end = -1
    for match, aspect, value in found:
        phrase = value(match, sentence)
        if phrase is None:
            continue
        request = _request(sentence, match.start(), match.end())
        if request is None and shared and _bare(sentence, shared_end, match.start()):
            request = shared
        if request is None:
            continue
        shared, shared_end = request, match.end()
        start, kind = request
        if kind == "dislike":
            phrase = _turned(aspect, phrase)
        if phrase:
            lasting = kind in ("like", "dislike") or (aspect == "language" and kind == "switch") or (
                aspect == "tone" and kind == "lead" and bool(a.WITH_ME.search(sentence[start : match.end() + 12]))
            )
            yield Wish(start, match.span(), aspect, phrase, lasting)


def _request(sentence: str, phrase_start: int, phrase_end: int) -> tuple[int, str] | None:
    """Return (where the request starts, its kind) for the phrase at `phrase_start`, or None without one.

    Kinds: "lead" (an imperative or request word), "switch" ("перейди на", "switch to"), "like" (a stated
    preference about the bot), "dislike" ("бесит, когда ты…", which turns the wish round), "bare" (the
    sentence is only the wish and its fillers).
    """
    window_start = max(0, phrase_start - GAP)
    window = sentence[window_start:phrase_start]
    leads = [(m, "lead") for m in matches(p.LEAD_RU, window)] + [(m, "lead") for m in matches(p.LEAD_EN, window)]
    leads += [(m, "like") for m in matches(p.LIKE_RU, window)] + [(m, "like") for m in matches(p.LIKE_EN, window)]
    leads += [(m, "dislike") for m in matches(p.DISLIKE, window)]
    valid = [(lead, kind) for lead, kind in leads if _bridges(window[lead.end() :])]
    if valid:
        # A stated preference anywhere before the phrase ("I prefer you talk to me in English") outranks the
        # nearer verb; otherwise the nearest request word is the one.
        preferred = [item for item in valid if item[1] != "lead"] or valid
        lead, kind = max(preferred, key=lambda item: item[0].end())
        if kind == "like" and not p.BOT_DIRECTED.search(sentence[window_start + lead.end() : phrase_end]):
            return None
        if kind == "lead" and a.SWITCH.search(lead.group()):
            kind = "switch"
        return window_start + lead.start(), kind
    if _bare(sentence, 0, phrase_start) and _bare(sentence, phrase_end, len(sentence)):
        return phrase_start, "bare"
    return None


def _bare(sentence: str, start: int, end: int) -> bool:
    """True when `sentence[start:end]` holds nothing but fillers ("always", "please", "и"); a long stretch never
    does, and is not sliced (a wall of text would make that quadratic)."""
    return end - start <= 200 and consumed(sentence[start:end], "bare")


def _bridges(gap: str) -> bool:
    """True when `gap` links a request word to its phrase: a few of the words that may stand between them."""
    words = [word.lower() for word in p.TOKEN.findall(gap)]
    return len(words) <= 6 and all(word in p.GAP_WORDS for word in words) and not first_match(p.CONTRAST, gap)


def _turned(aspect: str, value: str) -> str | None:
    """Return the wish a dislike states: "I hate it when you use emoji" asks for none; None when unclear."""
    turned = {"больше эмодзи": "без эмодзи", "more emoji": "no emoji", "коротко": "подробно", "подробно": "коротко",
              "short answers": "detailed answers", "detailed answers": "short answers"}
    return turned.get(value) if aspect in ("emoji", "length") else None


@lru_cache(maxsize=1)
def _phrase_table() -> Shortlist[tuple[str, re.Pattern[str], Callable[[re.Match[str], str], str | None]]]:
    """Return (aspect, pattern, value of a match in its sentence) for every phrase that needs a request."""

    def compiled(pattern: str) -> re.Pattern[str]:
        return re.compile(p.B + r"(?:" + pattern + r")" + p.E, p.I)

    return Shortlist([
        ("emoji", a.WITHOUT_EMOJI, lambda m, s: "без эмодзи" if p.CYRILLIC.search(m.group()) else "no emoji"),
        ("emoji", a.EMOJI_WORD, _emoji_amount),
        ("length", compiled(p.alternatives(a.SHORT_RU)), lambda m, s: "коротко"),
        ("length", compiled(p.alternatives(a.LONG_RU)), lambda m, s: "подробно"),
        ("length", compiled(a.SHORT_EN), lambda m, s: "short answers"),
        ("length", compiled(a.LONG_EN), lambda m, s: "detailed answers"),
        ("tone", a.TONE_CHAIN, _tone),
        ("language", a.LANGUAGE, _language),
    ], itemgetter(1))


def _emoji_amount(match: re.Match[str], sentence: str) -> str | None:
    """Return more or fewer emoji for an emoji word after a request; None when denied (a complete request's job)."""
    before = sentence[max(0, match.start() - 24) : match.start()]
    if first_match(a.MORE_EMOJI_NEGATED, before):
        return None
    russian = bool(p.CYRILLIC.search(match.group()))
    if first_match(a.FEWER_EMOJI, before):
        return "меньше эмодзи" if russian else "fewer emoji"
    return "больше эмодзи" if russian else "more emoji"


def _tone(match: re.Match[str], sentence: str) -> str | None:
    """Return the manner asked for as the user put it, each phrase in its plain form ("formally" -> "formal")."""
    chain = a.TONE_ITEM.sub(lambda m: a.TONE_VALUES.get(" ".join(m.group().lower().split()), m.group()), match.group())
    return p.TRAILING.sub("", chain).strip(" ,—–-").lower() or None


def _language(match: re.Match[str], sentence: str) -> str:
    """Return the language's name in the nominative: "по-английски" -> "английский", "in english" -> "English"."""
    stem = match.group("ru") or match.group("po")
    if stem:
        return stem.lower() + "ий"
    if match.group("hebrew"):
        return "иврит"
    name = (match.group("en") or match.group("bare")).lower()
    return next(language for language in a.LANGUAGES_EN.split() if language.lower() == name)
