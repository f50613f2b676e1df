"""The turn: store the user's message, rebuild system message zero, complete, store the reply."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Callable

from chat.llm import ChatModel
from config import Config
from memory.facts import Extraction, choose_for_prompt
from memory.rules import extract_rule_facts
from memory.secrets import mask_secrets
from memory.store import Store
from prompts.system import build_system_message


@dataclass(frozen=True)
class Speaker:
    """The Telegram user behind a message."""

    id: int
    first_name: str | None = None
    language_code: str | None = None


def utc_now() -> datetime:
    """Return the current time as an aware UTC datetime."""
    return datetime.now(timezone.utc)


class Companion:
    """Answers a user's message in the context of their session and memory."""

    def __init__(
        self,
        store: Store,
        model: ChatModel,
        config: Config,
        persona: str,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.store = store
        self.model = model
        self.config = config
        self.persona = persona
        self.clock = clock

    async def reply(self, speaker: Speaker, text: str, update_id: int | None = None) -> str | None:
        """Return the answer to `text`, or None if this update was answered before.

        Secrets are masked before anything is stored or sent; facts the rules find are saved and are
        already in this turn's system message. Raises ModelUnavailable when the model cannot answer;
        the user's message stays in the session.
        """
        text = mask_secrets(text)
        found = extract_rule_facts(text)
        now = self.clock()
        turn = await self.store.begin_turn(
            user_id=speaker.id,
            first_name=speaker.first_name,
            language_code=speaker.language_code,
            text=text,
            now=now,
            update_id=update_id,
            history_limit=self.config.history_limit,
            name=next((fact.value for fact in found.facts if fact.key == "name"), None),
        )
        if turn is None:
            return None
        if found.facts:
            cited = [replace(fact, source_message_id=turn.message_id) for fact in found.facts]
            extraction = Extraction(cited, found.relations)
            await self.store.save_facts(speaker.id, extraction, now, self.config.memory_max_facts)
        facts = choose_for_prompt(await self.store.facts(speaker.id), now, self.config.memory_prompt_facts)
        system = build_system_message(
            self.persona,
            turn.name,
            facts,
            now=now,
            previous=turn.previous_seen,
            timezone=self.config.tz,
            hemisphere=self.config.hemisphere,
            display_name=speaker.first_name,
        )
        answer = await self.model.complete([system, *turn.history])
        await self.store.add_reply(speaker.id, answer, self.clock(), self.config.history_limit)
        return answer
