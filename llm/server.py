"""What the model server can do, found out from its own answers once per process, each finding logged once.

OpenAI-compatible servers differ in what they accept: llama.cpp's refuses `json_schema` output with a 500,
some refuse `stream_options`, OpenAI's newer models want `max_completion_tokens` instead of `max_tokens`,
text-only models drop or refuse image parts, many have no embeddings endpoint. Nothing is assumed: the
bot asks for the best, and a refusal that names what it refused moves the process to the next best.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

from llm.errors import describe, names

log = logging.getLogger(__name__)

# Structured output, best first: a strict JSON schema; any JSON object, the schema in the prompt; plain text
# holding JSON, parsed tolerantly.
STRUCTURED_MODES = ("json_schema", "json_object", "text")
EMBEDDINGS_RETRY_S = 3600.0  # a server without embeddings is asked again after this long
AUTH_OR_LIMIT = frozenset({401, 403, 404, 408, 409, 429})  # never a sign of an unsupported feature


class ServerFeatures:
    """The process's knowledge of the chat server: starts hopeful, learns from refusals, never from guesses."""

    def __init__(
        self, *, vision: bool = True, reasoning_tokens: int = 0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.clock = clock
        self.structured = STRUCTURED_MODES[0]
        self.structured_settled = False  # a structured call succeeded in this mode: errors are now just errors
        self.stream_usage = True  # send stream_options.include_usage
        self.cap_name = "max_tokens"  # or max_completion_tokens, for the models that want it
        self.temperature = True  # False: the model takes only its default temperature
        self.images: bool | None = None if vision else False  # None: not found out yet
        self.embeddings_back_at = 0.0  # clock() before which the embeddings endpoint is not asked
        self.context_tokens: int | None = None  # the server's context window, where it told it
        # Room for thinking added to every answer's cap (REASONING_MAX_TOKENS); 0: as much again as the answer's
        # own cap, once the model is seen thinking.
        self.reasoning_tokens = reasoning_tokens
        self.thinks = False  # the model has been seen thinking
        self.thinking_in_prompt = False  # its chat template opens the thinking: answers carry only the closing tag

    def structured_modes(self) -> tuple[str, ...]:
        """Return the structured modes to try in order: the current one and, until one has worked, the weaker."""
        if self.structured_settled:
            return (self.structured,)
        return STRUCTURED_MODES[STRUCTURED_MODES.index(self.structured):]

    def may_probe_structured(self, error: BaseException) -> bool:
        """True when a failed structured call may be the server refusing its format, so the next mode is
        worth one try now: an error answer (not auth, rate or a missing model) before any call succeeded."""
        status = getattr(error, "status_code", None)
        return not self.structured_settled and status is not None and status not in AUTH_OR_LIMIT

    def leave_structured(self, mode: str, error: BaseException) -> None:
        """Never use `mode` again in this process: the server refused it by name."""
        index = STRUCTURED_MODES.index(mode)
        if mode == self.structured and index + 1 < len(STRUCTURED_MODES):
            self.use_structured(STRUCTURED_MODES[index + 1], error)

    def use_structured(self, mode: str, error: BaseException | None) -> None:
        """Move the process to structured `mode` because `error` came back for the one before; one INFO line."""
        if mode == self.structured:
            return
        was, self.structured = self.structured, mode
        how = {"json_object": "json_object with the schema in the prompt", "text": "JSON asked for in plain text"}
        log.info("structured output: %s (the server refused %s: %s)", how[mode], was,
                 describe(error) if error else "no reason given")

    def settle_structured(self) -> None:
        """Note that the current structured mode works; the first time, say so."""
        if not self.structured_settled:
            self.structured_settled = True
            log.info("structured output: %s works on this server", self.structured)

    def adapt(self, error: BaseException, streaming: bool) -> bool:
        """Change what requests carry when `error` refuses a parameter this process can drop or rename;
        True when something changed and the request is worth sending again at once."""
        if getattr(error, "status_code", None) not in (400, 422):
            return False
        if streaming and self.stream_usage and names(error, "stream_options", "include_usage"):
            self.stream_usage = False
            log.info("streamed usage: not asked for (the server refused stream_options: %s)", describe(error))
            return True
        if self.cap_name == "max_tokens" and names(error, "max_completion_tokens"):
            self.cap_name = "max_completion_tokens"
            log.info("answer cap: sent as max_completion_tokens (%s)", describe(error))
            return True
        if self.temperature and names(error, "temperature"):
            self.temperature = False
            log.info("temperature: the server's default (%s)", describe(error))
            return True
        return False

    def learn_context(self, tokens: int | None, source: str) -> None:
        """Note the server's context window, where it tells it; a smaller one than known replaces it."""
        if tokens and tokens > 0 and (self.context_tokens is None or tokens < self.context_tokens):
            self.context_tokens = tokens
            log.info("context window: %d tokens (%s)", tokens, source)

    def answer_cap(self, tokens: int | None) -> int | None:
        """Return the cap to send for an answer of up to `tokens`: with room for the model's thinking, which
        spends the same cap, never past half the server's context window (where it told it).

        The room is REASONING_MAX_TOKENS when set; otherwise none until the model is seen thinking, then as
        much again as `tokens`.
        """
        if not tokens:
            return tokens
        room = self.reasoning_tokens or (tokens if self.thinks else 0)
        if self.context_tokens:
            room = min(room, max(0, self.context_tokens // 2 - tokens))
        return tokens + room

    def learn_thinking(self, how: str, in_prompt: bool = False) -> None:
        """Note that the model thinks (`how` it showed it); `in_prompt`: its template opened the thinking."""
        if not self.thinks:
            self.thinks = True
            room = f"{self.reasoning_tokens} tokens" if self.reasoning_tokens else "as many tokens again"
            log.info("thinking: the model thinks (%s); it is kept from users, and each answer's cap gets %s of "
                     "room for it (REASONING_MAX_TOKENS)", how, room)
        if in_prompt and not self.thinking_in_prompt:
            self.thinking_in_prompt = True
            log.info("thinking: the chat template opens it in the prompt; a streamed answer is shown from its "
                     "closing tag on")

    def learn_images(self, seen: bool, why: str) -> None:
        """Note whether the chat model takes image parts in; one line."""
        if self.images is not seen:
            self.images = seen
            if seen:
                log.info("images: the chat model sees them (%s)", why)
            else:
                log.warning("images: the chat model does not see them (%s); photos are answered from their "
                            "caption until restart", why)

    def embeddings_missing(self, error: BaseException) -> None:
        """Stop asking the embeddings endpoint for a while: the server has none (one WARNING a period)."""
        if self.embeddings_ready():
            log.warning(
                "embeddings: the server has no usable endpoint (%s); recall goes by importance, asking again in "
                "%.0f min (EMBEDDINGS=local or hashing needs no server)", describe(error), EMBEDDINGS_RETRY_S / 60
            )
        self.embeddings_back_at = self.clock() + EMBEDDINGS_RETRY_S

    def embeddings_ready(self) -> bool:
        """True when the embeddings endpoint may be asked now."""
        return self.clock() >= self.embeddings_back_at
