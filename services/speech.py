"""Spoken replies: the speech endpoint (`audio.speech`, Opus) asked within a small budget, each user's choice of
when to be answered aloud, and the seconds spoken, counted against the daily seconds of voice."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import AsyncIterator, Callable

import openai

from llm.client import backoff_delay, is_retryable
from llm.errors import describe
from llm.gate import Gate
from memory.store.fact_rows import FactQueries
from memory.store.meter import UsageMeter
from memory.store.user_rows import UserRows
from memory.usage import voice_reached
from services.limits import LimitSettings, limits_for, today
from services.ogg_audio import looks_like_opus, opus_seconds
from services.speech_text import SPEECH_MAX_CHARS, speakable, speech_parts

log = logging.getLogger(__name__)

NO_ENDPOINT_STATUS = frozenset({404, 405})  # a server without `audio.speech` (Ollama, llama.cpp)
VOICE_CHOICES = ("off", "on", "auto")  # never, every reply, a voice message's reply ("when I speak")
DEFAULT_CHOICE = "auto"
SETTING = "voice"  # the key of the choice in the user's settings
CHARS_PER_SECOND = 15.0  # speech's pace, for a recording whose own length cannot be read


@dataclass(frozen=True)
class SpeechSettings:
    """The settings the speech client uses (named as in Config: see README's configuration table)."""

    tts_model: str
    tts_voice: str
    tts_timeout_s: float
    model_backoff_s: float


def voice_choice(settings: dict) -> str:
    """Return the choice the user's settings hold: "off", "on" or "auto" (the default, for none or a stray value)."""
    chosen = settings.get(SETTING)
    return chosen if chosen in VOICE_CHOICES else DEFAULT_CHOICE


class Synthesizer:
    """Turns text into an Ogg/Opus recording on the speech server; a server without the endpoint is asked once."""

    def __init__(self, client: openai.AsyncOpenAI, gate: Gate, config: SpeechSettings) -> None:
        self.client = client  # the chat server's own client where TTS_BASE_URL names no other server
        self.gate = gate  # the server's slots: a spoken reply takes one like a conversation does
        self.config = config
        self.available = True  # cleared, for the rest of the process, when the server cannot speak

    async def synthesize(self, text: str) -> bytes | None:
        """Return `text` spoken, as Ogg/Opus bytes; None when the server failed past the budget (`tts_timeout_s`,
        retries included), refused, or cannot speak at all. Each failure is one WARNING in the log; nothing is
        raised."""
        if not self.available or not text.strip():
            return None
        try:
            audio = await self._with_retries(text)
        except Exception as error:  # noqa: BLE001 - any failure falls back to the text reply, logged once
            self._failed(error)
            return None
        if not looks_like_opus(audio):
            self.available = False
            log.warning("the speech server answered %d bytes that are not Ogg/Opus (model %r); spoken replies are off"
                        " until restart", len(audio), self.config.tts_model)
            return None
        return audio

    async def _with_retries(self, text: str) -> bytes:
        deadline = time.monotonic() + self.config.tts_timeout_s
        tries = 0
        while True:
            remaining = deadline - time.monotonic()
            try:
                return await asyncio.wait_for(self.gate.run(lambda: self._request(text)), max(remaining, 0.1))
            except Exception as error:
                delay = backoff_delay(tries, self.config.model_backoff_s)
                if not is_retryable(error) or time.monotonic() + delay >= deadline:
                    raise
                log.info("speech attempt %d failed (%s); retrying in %.1fs", tries + 1, describe(error), delay)
                await asyncio.sleep(delay)
                tries += 1

    async def _request(self, text: str) -> bytes:
        answer = await self.client.audio.speech.create(
            model=self.config.tts_model, voice=self.config.tts_voice, input=text, response_format="opus"
        )
        return answer.content

    def _failed(self, error: Exception) -> None:
        if isinstance(error, openai.APIStatusError) and error.status_code in NO_ENDPOINT_STATUS:
            self.available = False
            log.warning(
                "the speech server has no audio.speech endpoint, or no model %r (HTTP %d); replies are text only"
                " until restart (set TTS_MODEL= to turn spoken replies off)", self.config.tts_model, error.status_code,
            )
            return
        log.warning("a spoken reply was not synthesised (%s); the text reply stands", describe(error))


class SpokenReplies:
    """Decides which replies a user hears, and speaks them within their daily seconds of voice."""

    def __init__(
        self, users: UserRows, facts: FactQueries, synthesizer: Synthesizer, config: LimitSettings,
        clock: Callable[[], datetime], *, meter: UsageMeter, max_chars: int = SPEECH_MAX_CHARS,
    ) -> None:
        self.users = users  # the choice, and the zone where the user's day starts
        self.facts = facts
        self.synthesizer = synthesizer
        self.config = config
        self.clock = clock
        self.meter = meter  # counts the seconds spoken
        self.max_chars = max_chars  # the most one request's input may hold

    @property
    def available(self) -> bool:
        """False once the server was found unable to speak: every reply is text only."""
        return self.synthesizer.available

    async def choice(self, user_id: int) -> str:
        """Return the user's choice: "off", "on" (every reply) or "auto" (a voice message's reply, the default)."""
        return voice_choice(await self.users.settings(user_id))

    async def choose(self, user_id: int, chosen: str) -> None:
        """Keep the user's choice (one of VOICE_CHOICES)."""
        if chosen not in VOICE_CHOICES:
            raise ValueError(f"no such choice: {chosen!r}")
        await self.users.set_setting(user_id, SETTING, chosen, self.clock())

    async def wanted(self, user_id: int, spoke: bool) -> bool:
        """True when the reply to this user's message (`spoke`: a voice message) is to be spoken too: their choice
        says so, the server can speak, and their seconds of voice for today are not spent."""
        if not self.available:
            return False
        chosen = await self.choice(user_id)
        if chosen == "off" or (chosen == "auto" and not spoke):
            return False
        if not limits_for(self.config, user_id).voice_seconds:
            return True
        day = await today(self.users, self.facts, self.meter, self.config, user_id, self.clock())
        return not voice_reached(day.spent, day.limits)

    async def voice_notes(self, user_id: int, reply: str) -> AsyncIterator[bytes]:
        """Yield the reply spoken, part by part in order (Ogg/Opus), each part's seconds counted for the user as it
        comes; it stops at the first part the server does not speak (the text reply stands)."""
        for part in speech_parts(speakable(reply), self.max_chars):
            audio = await self.synthesizer.synthesize(part)
            if audio is None:
                return
            seconds = opus_seconds(audio) or len(part) / CHARS_PER_SECOND
            await self.meter.record_usage(user_id, self.clock(), voice_seconds=max(1.0, seconds))
            yield audio
