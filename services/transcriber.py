"""Voice to text through the same OpenAI-compatible server as the chat model (`audio.transcriptions`)."""

from __future__ import annotations

import asyncio
import logging

import openai

from llm.client import ChatModel, ModelUnavailable, clean_answer
from memory.secrets.masking import mask_secrets

log = logging.getLogger(__name__)

# 404 and 405: no such endpoint (Ollama, llama.cpp); 400 without naming the file: the model cannot transcribe.
NO_ENDPOINT_STATUS = frozenset({400, 404, 405})
# How servers word a 400 about the uploaded audio itself (OpenAI: "Audio file might be corrupted or unsupported").
FILE_WORDS = ("corrupt", "file format", "decod", "invalid file", "empty file")


class TranscriptionError(Exception):
    """The voice message could not be turned into text; `reason` is the key of the line the user gets."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(detail or reason)
        self.reason = reason


class Transcriber:
    """Transcribes audio with TRANSCRIPTION_MODEL; a server that has no transcription endpoint is asked once."""

    def __init__(self, model: ChatModel, transcription_model: str, timeout: float = 60.0) -> None:
        self.model = model  # its client, retries and budget serve transcription too
        self.transcription_model = transcription_model
        self.timeout = timeout
        self.available = True  # cleared, for the rest of the process, when the server has no endpoint

    async def transcribe(self, audio: bytes, filename: str, language: str | None) -> str:
        """Return what is said in `audio` (maybe empty), secrets masked, or raise TranscriptionError.

        Reasons: "voice_unsupported" (the server cannot transcribe), "audio_unreadable" (empty or damaged
        file), "voice_failed" (timeouts or errors past the retry budget).
        """
        if not self.available:
            raise TranscriptionError("voice_unsupported")
        if not audio:
            raise TranscriptionError("audio_unreadable", "the file is empty")

        async def attempt(timeout: float) -> str:
            result = await asyncio.wait_for(
                self.model.client.audio.transcriptions.create(
                    model=self.transcription_model, file=(filename, audio), language=language or openai.omit
                ),
                timeout=timeout,
            )
            return result if isinstance(result, str) else (result.text or "")

        try:
            text = await self.model.with_retries(
                attempt, attempt_timeout=self.timeout, budget=self.timeout, log_refusal=False
            )
        except ModelUnavailable as error:
            raise self._explain(error) from error
        return mask_secrets(clean_answer(text))  # what is said aloud is masked as it arrives, like what is typed

    def _explain(self, error: ModelUnavailable) -> TranscriptionError:
        cause = error.__cause__
        if isinstance(cause, openai.APIStatusError) and cause.status_code in NO_ENDPOINT_STATUS:
            if _about_the_file(cause):
                return TranscriptionError("audio_unreadable", str(error))
            self.available = False
            log.warning(
                "the model server cannot transcribe (HTTP %d for model %r); voice messages get a short answer"
                " until restart (set TRANSCRIPTION_MODEL= to turn voice off)",
                cause.status_code, self.transcription_model,
            )
            return TranscriptionError("voice_unsupported", str(error))
        return TranscriptionError("voice_failed", str(error))


def _about_the_file(error: openai.APIStatusError) -> bool:
    """True when a 400 names the uploaded file (damaged or unsupported audio), not the endpoint or model."""
    body = error.body if isinstance(error.body, dict) else {}
    message = str(body.get("message", "")).lower()
    return error.status_code == 400 and (body.get("param") == "file" or any(word in message for word in FILE_WORDS))
