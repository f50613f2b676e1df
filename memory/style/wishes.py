"""Pure regex rules that learn the user's lasting wishes about how the bot talks to them (Russian and English).

"давай на ты", "never use emoji", "from now on keep answers short", "не спрашивай меня больше про бывшего"
become facts of the category "style" (key "style:<aspect>"), shown to the model with every later reply. A
wrong one spoils every later conversation, so precision comes first:

- a wish must be a request: an imperative ("пиши", "answer"), a request word ("можешь", "could you"), a
  stated preference about the bot ("I prefer…", "мне больше нравится, когда ты…"), or a sentence that is
  nothing but the wish and its fillers ("Always short answers, please.");
- it must last: a marker ("always", "впредь", "never", "больше не", "хватит", "from now on") or a form that
  lasts by itself (ты/вы, "stop using…", "I prefer…", "не называй меня…"); a one-off marker ("this time",
  "сейчас", "в этот раз") undoes it;
- it is refused inside quotes, after someone else's words ("my boss always says…"), in a condition ("if I
  ever ask…"), for someone else ("моя мама просит…", "formal emails"), when denied or indifferent ("I don't
  mind emoji"), and in a question that is not a request ("why are you always so brief?"; "можешь всегда
  отвечать короче?" is a request).

Values are short phrases in the user's language: address "ты"/"вы"; length "коротко"/"подробно" or "short
answers"/"detailed answers"; emoji "без эмодзи"/"больше эмодзи"/"меньше эмодзи" or "no emoji"/"more
emoji"/"fewer emoji"; language the name in the nominative ("английский", "English"); tone, avoid_words and
avoid_topics the phrase as the user wrote it. Candidates are found in candidates.py; the words live in
style_patterns.py (guards, request words) and aspects.py (what each aspect asks for).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory.facts import Fact, normalize_facts
from memory.rules.guards import split_sentences
from memory.style import style_patterns as p
from memory.style.candidates import Wish, candidates, consumed, cut_after, cut_before, past_fillers
from memory.text.prefilter import first_match, matches

# A message states a wish or two; past this many candidates it is a pasted wall of text.
MAX_CANDIDATES = 32
BEFORE, AFTER = 150, 80  # how far (characters) the guards look before and after a wish


def extract_style_facts(text: str, message_id: int | None = None) -> list[Fact]:
    """Return the lasting wishes about how to talk to the user that `text` states (at most one per aspect)."""
    # Same lengths, so positions hold: one apostrophe, and "@bot" in a group is no one's words.
    text = p.MENTION.sub(lambda m: " " * len(m.group()), text.replace("’", "'"))
    wishes: dict[str, str] = {}
    for offset, sentence, guarded, wish in _judged_candidates(text):
        if _is_lasting_wish(text, offset, sentence, guarded, wish):
            wishes.pop(wish.aspect, None)  # the last wish on an aspect wins
            wishes[wish.aspect] = wish.value
    facts = (
        Fact(category="style", key=f"style:{aspect}", value=value, importance=8, confidence=0.9, source="rule",
             source_message_id=message_id)
        for aspect, value in wishes.items()
    )
    return normalize_facts(facts)


def _judged_candidates(text: str) -> Iterator[tuple[int, str, str, Wish]]:
    """Yield (offset, sentence, sentence with polite conditions blanked, wish) for the first MAX_CANDIDATES
    candidates outside plain questions."""
    seen = 0
    for offset, sentence in sentences(text):
        if _plain_question(sentence):
            continue
        # "if you don't mind", "если можно" are politeness, not conditions: blanked (same length) for the guards.
        guarded = p.POLITE.sub(lambda m: " " * len(m.group()), sentence)
        for wish in candidates(sentence):
            seen += 1
            if seen > MAX_CANDIDATES:
                return
            yield offset, sentence, guarded, wish


def sentences(text: str) -> tuple[tuple[int, str], ...]:
    """Return (offset, sentence) for each sentence of `text`, questions included (a request may be one): the
    split the fact rules made of it."""
    return split_sentences(text, p.SENTENCE)


# ---- judging a candidate -----------------------------------------------------------------------------


def _is_lasting_wish(text: str, offset: int, sentence: str, guarded: str, wish: Wish) -> bool:
    """True when `wish` is the user's own lasting request: not quoted, reported, conditional, someone else's,
    denied, one-off, nor (in English) preceded by a subject that makes it a statement."""
    start, (phrase_start, end) = wish.start, wish.span
    before = cut_before(guarded[max(0, start - BEFORE) : start])
    leading = cut_before(guarded[max(0, start - BEFORE) : phrase_start])
    after = cut_after(guarded[end : end + AFTER])
    around = f"{leading} {guarded[phrase_start:end]} {after}"
    if _quoted(text[: offset + start], sentence[end : end + BEFORE]):
        return False
    if first_match(p.HYPOTHETICAL, leading) or first_match(p.CONDITION_AFTER, after) or first_match(p.PAST, leading):
        return False
    if p.INDIFFERENT.search(f"{before} {guarded[start:end]} {after}") or p.ARTIFACTS.search(f"{leading} {after}"):
        return False
    if _reported(before) or p.REPORTED_AFTER.search(sentence[end : end + AFTER]):
        return False
    if p.OTHERS.search(p.NOT_OTHERS.sub(" ", before)) or first_match(p.OTHERS_AFTER, after):
        return False
    if not p.CYRILLIC.search(sentence[start:end]) and not _opens_clause(sentence[max(0, start - BEFORE) : start]):
        return False  # "I always answer briefly", "they never use emoji": a statement, not a request
    if first_match(p.ONE_OFF, around):
        return False
    return wish.lasting or bool(first_match(p.LASTING, around))


def _plain_question(sentence: str) -> bool:
    """True for a question that is no request: "why are you always so brief?", "ты всегда так длинно пишешь?"."""
    body = sentence.strip()
    tag = p.TAG.search(body, max(0, len(body) - 40))  # only the end can be a tag; a long search would be quadratic
    if tag:
        body = body[: tag.start()]
    if "?" in body:
        return bool(first_match(p.WHY, body)) or not _opens_with_request(body)
    return bool(p.QUESTION_START.match(body))


def _opens_with_request(sentence: str) -> bool:
    """True when the sentence, past a greeting or "а"/"ok", begins with a request's opener ("could you", "можешь")."""
    words = [word.lower() for word in p.TOKEN.findall(sentence[:200])]
    while words and words[0] in p.QUESTION_LEADING:
        words.pop(0)
    return any(tuple(words[:length]) in p.QUESTION_OPENERS for length in p.QUESTION_OPENER_LENGTHS)


def _quoted(before: str, rest: str) -> bool:
    """True when a quotation is open at the end of `before`, or `rest` closes one it never opened."""
    if sum(before.count(q) for q in "«“„") > sum(before.count(q) for q in "»”") or before.count('"') % 2:
        return True
    closing = re.search(r"[»”]", rest)
    return closing is not None and not re.search(r"[«“„]", rest[: closing.start()])


def _reported(before: str) -> bool:
    """True when someone else's words ("she said", "мама просит") lead up to the wish; "I said…" is the user's."""
    return any(not p.OWN_SPEAKER.search(before[: m.start()]) for m in matches(p.REPORTED, before))


def _opens_clause(before: str) -> bool:
    """True when only openers ("please", "from now on", "could you", "I'd like you to") stand before a wish."""
    cut = next(reversed(list(matches(p.CLAUSE_CUT, before))), None)
    clause = before[cut.end() :] if cut else before
    *earlier, last = re.split(r"\b(?:and|and\s+also|also)\b", clause, flags=re.IGNORECASE)
    # "answer in English and never use emoji": an "and" may join two requests, not a statement and a request.
    return consumed(last, "openers") and all(_opens_with_imperative(part) for part in earlier)


def _opens_with_imperative(clause: str) -> bool:
    """True when `clause`, past its openers, starts with an English imperative ("please always answer…"), or is
    empty ("…, and please never…")."""
    words = [word.lower() for word in p.TOKEN.findall(clause[:200])]
    if not words:
        return True
    first = past_fillers(words, "openers", p.EN_IMPERATIVES)
    return first < len(words) and words[first] in p.EN_IMPERATIVES



