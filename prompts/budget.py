"""The prompt's token budget: system message zero and the newest messages of the session that fit."""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from llm.roles import EARLIER
from llm.tokens import estimate_tokens

Line = TypeVar("Line")
MAX_ROUNDS = 4  # fit_with_carried_lines: rounds of "which lines, given what fits" before the last fit is kept


def fit_to_budget(system: dict, history: Sequence[dict], budget: int) -> list[dict]:
    """Return [system, *the newest messages of `history`] within `budget` tokens (0: no budget).

    The newest message is always kept, whatever its size: it is what the user just said.
    """
    if budget <= 0 or not history:
        return [system, *history]
    room = budget - estimate_tokens(system["content"])
    kept = 0
    for message in reversed(history):
        cost = estimate_tokens(message["content"])
        if room - cost < 0 and kept:
            break
        room -= cost
        kept += 1
    start = len(history) - kept
    # A run that starts with the companion's words is sent with them in system message zero, under a header
    # (llm/roles.py: strict templates want the user first); without room for that, they are left out.
    if kept > 1 and history[start]["role"] == "assistant" and room < estimate_tokens(EARLIER):
        start += 1
    return [system, *history[start:]]


def fit_with_lines(
    build: Callable[[list[Line]], dict], lines: Sequence[Line], history: Sequence[dict], budget: int
) -> list[dict]:
    """Return fit_to_budget of the system message `build(lines)`, dropping the last of `lines` (the oldest
    topic lines) while that system message and the newest message alone exceed `budget`; nothing else of the
    system message is ever dropped."""
    kept = list(lines)
    system = build(kept)
    newest = estimate_tokens(history[-1]["content"]) if history else 0
    while kept and budget > 0 and estimate_tokens(system["content"]) + newest > budget:
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
