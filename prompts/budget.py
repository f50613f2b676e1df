"""The prompt's token budget: system message zero and the newest messages of the session that fit."""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from llm.tokens import estimate_tokens

Line = TypeVar("Line")


def fit_to_budget(system: dict, history: Sequence[dict], budget: int) -> list[dict]:
    """Return [system, *the newest messages of `history`] within `budget` tokens (0: no budget).

    The newest message is always kept, whatever its size: it is what the user just said.
    """
    if budget <= 0 or not history:
        return [system, *history]
    room = budget - estimate_tokens(system["content"])
    kept = 0
    for message in reversed(history):
        room -= estimate_tokens(message["content"])
        if room < 0 and kept:
            break
        kept += 1
    return [system, *history[len(history) - kept:]]


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
