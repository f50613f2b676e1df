"""At start-up, one look at the model server: which it is and, where its model list tells, its context window."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import openai

from llm.errors import describe
from llm.server import ServerFeatures

log = logging.getLogger(__name__)
LOOK_TIMEOUT_S = 5.0
# Where servers put the context window in their model list: vLLM `max_model_len`, OpenRouter `context_length`,
# LM Studio `max_context_length` / `loaded_context_length`, llama.cpp's server `meta.n_ctx`.
CONTEXT_FIELDS = ("max_model_len", "context_length", "loaded_context_length", "max_context_length", "n_ctx")


def context_of(entry: dict[str, Any]) -> int | None:
    """Return the context window a model list entry states, or None."""
    for where in (entry, entry.get("meta") or {}, entry.get("top_provider") or {}):
        if not isinstance(where, dict):
            continue
        for field in CONTEXT_FIELDS:
            value = where.get(field)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return None


def server_name(base_url: str | None) -> str:
    """Return the server as a log line names it: its host and port, never a path or credentials."""
    if not base_url:
        return "api.openai.com"
    parts = urlsplit(base_url)
    return parts.hostname + (f":{parts.port}" if parts.port else "") if parts.hostname else "the configured server"


async def describe_server(client: openai.AsyncOpenAI, base_url: str | None, model: str,
                          features: ServerFeatures) -> None:
    """Read the server's model list once and log one line: the server, the model, its context where stated.

    Nothing depends on the answer: a server without a model list (or one that is down) is simply not described.
    """
    try:
        page = await asyncio.wait_for(client.models.list(), LOOK_TIMEOUT_S)
        entries = [entry.model_dump() for entry in page.data]
    except Exception as error:  # noqa: BLE001 - a description is a courtesy, never a start-up failure
        log.info("model server %s: could not list its models (%s)", server_name(base_url), describe(error))
        return
    entry = next((entry for entry in entries if entry.get("id") == model), None)
    context = context_of(entry) if entry is not None else None
    if context is not None:
        features.context_tokens = context
    listed = "listed" if entry is not None else f"not among the {len(entries)} it lists"
    window = f"context {context} tokens" if context else "context not stated"
    log.info("model server %s: model %s %s, %s", server_name(base_url), model, listed, window)
