"""A turn that asks to forget: what goes, what the session keeps of the request, and what the bot says about it.

The rules' plan (memory/unlearn/plan.py) decides which facts the request means; here it is carried out for the
speaker only. "Forget everything" and a request that could mean two facts change nothing: the bot asks first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory.changes import Forgotten
from memory.facts import Fact
from memory.store.turn_rows import Turn
from memory.unlearn.forgetter import REQUEST_MARK, Forgetter
from memory.unlearn.plan import Plan
from memory.unlearn.targets import words_of


@dataclass(frozen=True)
class Unlearned:
    """What a forget request came to, for the bot's own line about it."""

    forgotten: Forgotten | None = None  # carried out: the facts that went and the Undo record
    ask: list[Fact] = field(default_factory=list)  # it could mean any of these: ask which
    forget_all: bool = False  # "forget everything": point to /forget and its confirmation
    unmatched: list[str] = field(default_factory=list)  # the words that named nothing remembered
    rest: str = ""  # the words of the message that were not the request: the model answers those


def rest_of(text: str, requests: list[str]) -> str:
    """Return `text` without its request sentences, or "" when what is left says nothing ("пожалуйста")."""
    rest = text
    for sentence in requests:
        rest = rest.replace(sentence, " ")
    rest = re.sub(r"\s+", " ", rest).strip(" ,.;!?")
    return rest if len(words_of(rest)) >= 2 else ""


async def carry_out(forgetter: Forgetter, turn: Turn, text: str, plan: Plan) -> Unlearned:
    """Forget what the plan says for the user of `turn`, and keep the request itself out of the session."""
    rest = rest_of(text, plan.requests)
    if plan.forget_all or plan.ask or not (plan.forget or plan.forget_this):
        return Unlearned(ask=plan.ask, forget_all=plan.forget_all, unmatched=plan.unmatched, rest=rest)
    edits: dict[int, str | None] = {turn.message_id: f"{REQUEST_MARK} {rest}".strip()}
    facts = list(plan.forget)
    if plan.forget_this and _says_more_before(text, plan.requests):
        edits[turn.message_id] = REQUEST_MARK  # "У меня долги. Не запоминай это.": this very message
        rest = ""
    elif plan.forget_this:
        previous = _previous_exchange(turn)
        edits.update({message_id: None for message_id in previous})
        facts += [fact for fact in turn.facts if fact.source_message_id in previous and fact not in facts]
    forgotten = await forgetter.forget(turn.user_id, facts, edits)
    return Unlearned(forgotten=forgotten, unmatched=plan.unmatched, rest=rest)


def _says_more_before(text: str, requests: list[str]) -> bool:
    """True when the message says something before its request: "this" is then that, not the message before."""
    first = min((text.find(sentence) for sentence in requests if sentence in text), default=0)
    return len(words_of(text[:first])) >= 2


def _previous_exchange(turn: Turn) -> list[int]:
    """Return the ids of the user's message before this one and of the replies to it."""
    earlier = [(message_id, message["role"]) for message_id, message in zip(turn.ids, turn.history, strict=True)
               if message_id < turn.message_id]
    users = [index for index, (_, role) in enumerate(earlier) if role == "user"]
    if not users:
        return []
    return [message_id for message_id, _ in earlier[users[-1] :]]
