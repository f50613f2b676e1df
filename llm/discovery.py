"""At start-up, one look at the model server: which it is, how many requests it takes at once (where
MODEL_CONCURRENCY leaves it to the server: llm/concurrency.py) and, where it tells, its context window."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

import openai

from llm.concurrency import (
    Concurrency,
    choose_concurrency,
    context_in_props,
    is_public_host,
    props_url,
    slots_in_list,
    slots_in_props,
    slots_url,
)
from llm.errors import describe
from llm.server import ServerFeatures

log = logging.getLogger(__name__)
LOOK_TIMEOUT_S = 5.0
# A resolver that has not answered by then is not waited for: the host's name decides instead (llm/concurrency.py).
RESOLVE_TIMEOUT_S = 1.0
Resolver = Callable[[str], Awaitable[list[str]]]  # a host name -> the addresses it resolves to
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
    stated = features.context_tokens  # the list's, else what /props said of one slot (decide_concurrency)
    window = f"context {stated} tokens" if stated else "context not stated"
    log.info("model server %s: model %s %s, %s", server_name(base_url), model, listed, window)


async def resolve_host(host: str) -> list[str]:
    """Return the addresses `host` resolves to, as a connection would find them (an IP literal gives itself)."""
    found = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return sorted({str(address[4][0]) for address in found})


async def decide_concurrency(client: openai.AsyncOpenAI, base_url: str | None, explicit: int | None,
                             features: ServerFeatures, resolve: Resolver = resolve_host) -> Concurrency:
    """Return how many requests the chat server takes at once: MODEL_CONCURRENCY when set, else by what the
    server is (llm/concurrency.py), asked once: its llama.cpp `/props` and where its host resolves, side by side.

    A `/props` that states one slot's context window tells `features` too. The resolver gets RESOLVE_TIMEOUT_S
    (start-up waits no longer for it; then the name decides); `/props`, LOOK_TIMEOUT_S.
    """
    if explicit is not None or not base_url:
        return choose_concurrency(explicit, base_url, None, None)
    host = urlsplit(base_url).hostname or ""
    props, addresses = await asyncio.gather(read_props(client, base_url), addresses_of(host, resolve))
    slots = slots_in_props(props)
    if slots is None and isinstance(props, dict):  # a llama.cpp older than `total_slots`: its slots' list
        slots = slots_in_list(await read_json(client, slots_url(base_url)))
    context = context_in_props(props)
    if context is not None and features.context_tokens is None:
        features.context_tokens = context
    return choose_concurrency(None, base_url, slots, is_public_host(host, addresses))


async def read_props(client: openai.AsyncOpenAI, base_url: str) -> Any:
    """Return the server's llama.cpp `/props` answer, or None where it has none (any other server)."""
    return await read_json(client, props_url(base_url))


async def read_json(client: openai.AsyncOpenAI, url: str) -> Any:
    """Return the JSON at `url`, asked through the server's client (its key, its proxy), or None on any failure."""
    try:
        return await asyncio.wait_for(client.get(url, cast_to=object), LOOK_TIMEOUT_S)
    except Exception:  # noqa: BLE001 - a server that does not answer simply tells nothing
        return None


async def addresses_of(host: str, resolve: Resolver) -> list[str] | None:
    """Return what `host` resolves to within RESOLVE_TIMEOUT_S, or None (unresolvable, or too slow)."""
    if not host:
        return None
    try:
        return await asyncio.wait_for(resolve(host), RESOLVE_TIMEOUT_S) or None
    except (OSError, TimeoutError, UnicodeError):
        return None
