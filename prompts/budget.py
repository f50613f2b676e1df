"""The prompt's token budget: system message zero and the newest messages of the session that fit."""

from __future__ import annotations

import re
from typing import Callable, Sequence, TypeVar

from llm.roles import EARLIER
from llm.tokens import estimate_tokens

Line = TypeVar("Line")
MAX_ROUNDS = 4  # fit_with_carried_lines: rounds of "which lines, given what fits" before the last fit is kept
# The newest message and the exchange before it (in a regular session the user's previous message and the
# companion's reply to it) are always sent: without them a reply to "and then?" or "yes, that one" is a guess.
LAST_EXCHANGE = 3
SHORTEST = 48  # tokens: the least a message of that exchange is cut to, however little room is left
ELISION = " […] "


def fit_to_budget(system: dict, history: Sequence[dict], budget: int) -> list[dict]:
    """Return [system, *the newest messages of `history`] within `budget` tokens (0: no budget).

    The newest message is always kept whole, whatever its size: it is what the user just said. The two
    messages before it (the previous exchange) are always kept too: a long one is shortened in the prompt
    (`shorten`: its start and its end) rather than dropped. Older messages are kept whole, the newest of
    them first, while they fit; so when room runs out, the oldest go first.
    """
    if budget <= 0 or not history:
        return [system, *history]
    start = exchange = max(0, len(history) - LAST_EXCHANGE)
    room = budget - estimate_tokens(system["content"]) - estimate_tokens(history[-1]["content"])
    last = shortened(history[exchange:-1], room - header(history[exchange]))
    room -= sum(estimate_tokens(message["content"]) for message in last) + header(history[exchange])
    while start > 0:
        more = room + header(history[start]) - estimate_tokens(history[start - 1]["content"]) - header(
            history[start - 1])
        if more < 0:
            break
        start, room = start - 1, more
    return [system, *history[start:exchange], *last, history[-1]]


def header(first: dict) -> int:
    """Return the tokens a run of messages starting with `first` adds to system message zero: a run that starts
    with the companion's words is sent with them there, under a header (llm/roles.py: strict templates want the
    user first)."""
    return estimate_tokens(EARLIER) if first["role"] == "assistant" else 0


def shortened(messages: Sequence[dict], room: int) -> list[dict]:
    """Return `messages` within `room` tokens: when they do not fit whole, the longest are shortened to one
    cap, the largest that fits (never under SHORTEST tokens), and the shorter ones kept whole."""
    costs = [estimate_tokens(message["content"]) for message in messages]
    if sum(costs) <= room:
        return list(messages)
    cap, left = room, room
    for index, cost in enumerate(sorted(costs)):
        share = left // (len(costs) - index)
        if cost > share:
            cap = share
            break
        left -= cost
    cap = max(cap, SHORTEST)
    return [message if cost <= cap else {**message, "content": shorten(message["content"], cap)}
            for message, cost in zip(messages, costs, strict=True)]


def shorten(text: str, tokens: int) -> str:
    """Return `text` within `tokens` tokens: whole if it fits, else its start and its end cut at word boundaries
    with ELISION between them (a reply's end is often the question the user's next message answers)."""
    if estimate_tokens(text) <= tokens:
        return text
    low, high = 0, len(text)  # characters kept, half from each end: the most that fits
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(ends(text, middle)) <= tokens:
            low = middle
        else:
            high = middle - 1
    return ends(text, low)


def ends(text: str, kept: int) -> str:
    """Return about `kept` characters of `text`, half from its start and half from its end, each cut back to a
    word boundary, joined by ELISION."""
    head, tail = text[: (kept + 1) // 2], text[len(text) - kept // 2:] if kept > 1 else ""
    if not text[len(head):len(head) + 1].isspace():  # cut inside a word (or nothing after): that word goes
        head = re.sub(r"\S+$", "", head)
    if not text[len(text) - len(tail) - 1:len(text) - len(tail)].isspace():
        tail = re.sub(r"^\S+", "", tail)
    return f"{head.rstrip()}{ELISION}{tail.lstrip()}".strip()


def least_tokens(history: Sequence[dict]) -> int:
    """Return the fewest tokens the messages of `history` take in any fit: the newest message whole, the
    previous exchange at most SHORTEST tokens a message."""
    if not history:
        return 0
    exchange = history[max(0, len(history) - LAST_EXCHANGE):-1]
    return estimate_tokens(history[-1]["content"]) + sum(
        min(estimate_tokens(message["content"]), SHORTEST) for message in exchange)


def fit_with_lines(
    build: Callable[[list[Line]], dict], lines: Sequence[Line], history: Sequence[dict], budget: int
) -> list[dict]:
    """Return fit_to_budget of the system message `build(lines)`, dropping the last of `lines` (the oldest
    topic lines) while that system message and the least the history takes (`least_tokens`) exceed `budget`;
    nothing else of the system message is ever dropped."""
    kept = list(lines)
    system = build(kept)
    least = least_tokens(history)
    while kept and budget > 0 and estimate_tokens(system["content"]) + least > budget:
        kept.pop()
        system = build(kept)
    return fit_to_budget(system, history, budget)


def fit_with_carried_lines(
    build: Callable[[list[Line]], dict], lines_for: Callable[[int], list[Line]], history: Sequence[dict], budget: int
) -> list[dict]:
    """Return fit_with_lines where the lines depend on what the prompt carries: `lines_for(first)` gives them
    when the prompt carries `history[first:]`. Lines that make system message zero longer can push older
    messages out, which can call for more lines: this settles within a few rounds (more lines only ever push
    the window later), and the last fit is kept."""
    first = 0
    messages = fit_with_lines(build, lines_for(first), history, budget)
    for _ in range(MAX_ROUNDS):
        carried_from = len(history) - (len(messages) - 1)
        if carried_from <= first:
            break
        first = carried_from
        messages = fit_with_lines(build, lines_for(first), history, budget)
    return messages
