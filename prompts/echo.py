"""The lines of a reply that repeat system message zero, found and removed before the reply is sent or stored.

A small model may open its answer with the persona, `Their name: "…"` and the clock line; a larger one may
recite its instructions when asked cleverly. Either way the user sees the prompt, and the session would
carry it into every later turn. The rule, line by line (each side compared casefolded, with its whitespace
collapsed, its quotes made plain, Markdown emphasis and leading bullets, numbers and `>` quote marks
dropped, and headings reduced to one `#`):

- A line at least half of which, and at least ECHO_MIN_CHARS characters, are runs of ECHO_MIN_CHARS or more
  copied from the prompt's own words goes: the persona's sentences, the frames, the clock line, a fact line
  with its label. A run that lies wholly inside a quoted value (a fact, a wish or a topic the user told, the
  name) is the user's data, not the prompt: the model may use it in its own sentence ("ты говорила:
  «…»"), so it never counts. A phrase of the prompt inside a longer sentence of the model's own is kept.
- A line that is a whole line of the prompt goes, however short, when it is unmistakably the prompt's: a
  section heading with its `#` ("## Now"), a line holding a quoted value (`Their name: "Анна"`,
  `- city: "Москва"`, the data block's lines with their markup), or any line of three words or more. So
  "Твоё имя — Анна" or "Сегодня пятница, 5 декабря" stay, and a bare "Now" or "nothing yet" too.

Blank lines and lines of Markdown punctuation alone (`>`, `---`, a code fence) left around removed lines
are dropped with them; a reply that was nothing else comes back empty. A draft of a reply still being
written (`echo_free_draft`) also holds back its unfinished last line while that may yet become an echo.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

ECHO_MIN_CHARS = 40
SHORT_LINE_WORDS = 3  # a whole prompt line with no quoted value counts from this many words
# The quotes models swap in for the prompt's plain ones.
PLAIN_QUOTES = str.maketrans({"«": '"', "»": '"', "“": '"', "”": '"', "„": '"', "＂": '"'})
EMPHASIS = re.compile(r"\*\*|__|`")
# Leading `>` quote marks, bullets and list numbers, any number of them ("> - 1. …").
LEADING_MARKS = re.compile(r"^\s*(?:(?:>|[-*+•](?=\s)|\d{1,3}[.)](?=\s))\s*)*")
HEADING = re.compile(r"^#{1,6}\s+")
# A value quoted by prompts.system.quote: a JSON string, which never spans a line.
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
PUNCTUATION_ONLY = re.compile(r"[\s#>*_`~=|+\-•:.]*")
FENCE = re.compile(r"\s*(```|~~~)")
NOBODYS = "\x00"  # stands in for a character of a quoted value: neither a letter, a digit nor whitespace
NOT_OWN = re.compile(r"\S")
NO_OWN_WORDS = re.compile(rf"[\W_]{{{ECHO_MIN_CHARS},}}")  # no letter or digit (str.isalnum) in this many


# "[Olya] ", as a group's words are marked (prompts/system.py's said_by); not a Markdown link's "[text](url)".
SPEAKER_TAGS = re.compile(r"^(?:\s*\[[^\[\]\n]{1,64}\](?!\())+\s*")


def without_speaker_tag(reply: str) -> str:
    """Return a reply in a group without the speaker's mark a model may copy from the messages it read ("[Olya] What
    film?"); a reply that is nothing else stays as it is."""
    return SPEAKER_TAGS.sub("", reply, count=1) or reply


def strip_echo(reply: str, system_message: str) -> tuple[str, int]:
    """Return `reply` without the lines that repeat `system_message` (see the module's rule), and how many
    lines were removed; a reply with none is returned exactly as it came."""
    if not system_message.strip() or not reply.strip():
        return reply, 0
    runs, whole_lines, _ = _prompt_index(system_message)
    lines = reply.split("\n")
    echoes = [_is_echo(_bare(line), runs, whole_lines) for line in lines]
    removed = sum(echoes)
    if not removed:
        return reply, 0
    return _without(lines, echoes), removed


def echo_free_draft(text: str, system_message: str) -> str:
    """Return what a draft of a reply still being written may show: `strip_echo`'s text, less the unfinished
    last line while it still reads as a piece of `system_message` (it may yet grow into an echo)."""
    done, _, last = text.rpartition("\n")
    bare = _bare(last)
    if bare and system_message.strip() and bare in _prompt_index(system_message)[2]:
        text = done
    return strip_echo(text, system_message)[0]


def _without(lines: list[str], echoes: list[bool]) -> str:
    """Return the lines not marked as echoes, without the blank or punctuation-only lines (an empty code fence
    among them) that the removal leaves behind; "" when nothing else is left."""
    kept: list[str] = []
    after_echo = False  # since the last kept line with words, a line was removed
    fence_at: int | None = None  # where in `kept` the open code fence is
    for line, echo in zip(lines, echoes, strict=True):
        if echo:
            while kept and not _has_words(kept[-1]) and not FENCE.match(kept[-1]):
                kept.pop()  # the blank line or bare `>` that led into it
            after_echo = True
            continue
        if FENCE.match(line):
            if fence_at is None:
                fence_at = len(kept)
            else:
                opened, fence_at = fence_at, None
                if after_echo and not any(_has_words(inner) for inner in kept[opened + 1:]):
                    del kept[opened:]  # the fence held nothing but the echo
                    continue
        elif not _has_words(line):
            if after_echo and (not kept or not _has_words(kept[-1])):
                continue
        else:
            after_echo = False
        kept.append(line)
    while after_echo and kept and not _has_words(kept[-1]) and not FENCE.match(kept[-1]):
        kept.pop()
    return "\n".join(kept).strip() if any(_has_words(line) for line in kept) else ""


def _has_words(line: str) -> bool:
    """Return whether `line` holds more than whitespace and Markdown punctuation."""
    return not PUNCTUATION_ONLY.fullmatch(line)


def _is_echo(bare: str, runs: frozenset[str], whole_lines: frozenset[str]) -> bool:
    """Return whether a reply line (in `_bare` form) repeats the prompt indexed as `runs` and `whole_lines`."""
    if not bare:
        return False
    if bare in whole_lines:
        return True
    copied, covered_to = 0, 0
    for start in range(len(bare) - ECHO_MIN_CHARS + 1):
        if bare[start:start + ECHO_MIN_CHARS] in runs:
            end = start + ECHO_MIN_CHARS
            copied += end - max(start, covered_to)
            covered_to = end
    return copied >= ECHO_MIN_CHARS and 2 * copied >= len(bare)


def _flat(text: str) -> str:
    """Return `text` casefolded, with plain quotes and without emphasis marks."""
    return EMPHASIS.sub("", text.translate(PLAIN_QUOTES)).casefold()


def _marks_off(line: str) -> tuple[str, bool]:
    """Return `line` without its leading quote marks and bullets, a heading's hashes made one `# `, and whether
    it is a heading."""
    body = LEADING_MARKS.sub("", line)
    heading = HEADING.match(body)
    return ("# " + body[heading.end():], True) if heading else (body, False)


def _bare(line: str) -> str:
    """Return a reply line as it is compared: flat, marks off, whitespace collapsed, no trailing colon, and a
    quote escaped as the prompt escapes it (`\\"`) plain, as the prompt's values are read."""
    body, _ = _marks_off(_flat(line.replace('\\"', '"')))
    return " ".join(body.split()).rstrip(":").rstrip()


@lru_cache(maxsize=1024)  # most of a prompt's lines are the same from turn to turn (the persona, the frames)
def _prompt_line(line: str) -> tuple[str, str, bool, bool]:
    """Return a prompt line in `_bare` form; the same form with each character of a quoted value (the user's data,
    not the prompt's own words) other than whitespace made NOBODYS, so that the two line up character by
    character; whether it is a heading; and whether it holds a quoted value."""
    body, heading = _marks_off(line)
    text: list[str] = []
    own: list[str] = []
    quoted, at = False, 0
    for match in QUOTED.finditer(body):
        mine = _flat(body[at:match.start()])
        try:
            value = json.loads(match.group())
        except ValueError:
            value = match.group()[1:-1]
        theirs = _flat(f'"{value}"')
        text += [mine, theirs]
        own += [mine, NOT_OWN.sub(NOBODYS, theirs)]
        quoted, at = True, match.end()
    rest = _flat(body[at:])
    bare = " ".join("".join([*text, rest]).split()).rstrip(" :")  # whitespace collapsed the same in both
    return bare, " ".join("".join([*own, rest]).split())[:len(bare)], heading, quoted


@lru_cache(maxsize=8)  # a streamed reply is checked against the same prompt at every piece
def _prompt_index(system_message: str) -> tuple[frozenset[str], frozenset[str], str]:
    """Return the runs of ECHO_MIN_CHARS characters of `system_message` that hold a letter or digit of its own
    words, the whole lines a reply line may not repeat, and its lines in `_bare` form joined by spaces."""
    bares: list[str] = []
    owns: list[str] = []
    whole: set[str] = set()
    for line in system_message.split("\n"):
        bare, own, heading, quoted = _prompt_line(line)
        if not bare:
            continue
        if heading or quoted or len(bare.split()) >= SHORT_LINE_WORDS:
            whole.add(bare)
        if heading and len(bare.split()) > SHORT_LINE_WORDS:  # "# last time you talked" bare too ("#" is a token)
            whole.add(bare[2:])
        bares.append(bare)
        owns.append(own)
    text, own_text = " ".join(bares), " ".join(owns)  # the space that joins two lines is no one's words
    # A run holds none of the prompt's own letters or digits only inside a stretch of ECHO_MIN_CHARS or more
    # without one (a long quoted value): the runs that start there are left out.
    runs: set[str] = set()
    start = 0
    for stretch in NO_OWN_WORDS.finditer(own_text):
        runs.update(text[at:at + ECHO_MIN_CHARS] for at in range(start, stretch.start()))
        start = stretch.end() - ECHO_MIN_CHARS + 1
    runs.update(text[at:at + ECHO_MIN_CHARS] for at in range(start, len(text) - ECHO_MIN_CHARS + 1))
    return frozenset(runs), frozenset(whole), text
