"""How many requests the chat server gets at once when MODEL_CONCURRENCY is unset: what the server is decides.

A llama.cpp server says how many slots it has (`GET /props`, `total_slots`), and gets that many. OpenAI's own API
and a host on the public internet (OpenRouter, DeepSeek, Groq, Together) serve many users at once, and get no
limit. Any other server on loopback or a private network (llama-cpp-python, Ollama, vLLM at home) is taken to
answer one request at a time: a second request there would wait anyway, or cut the first one short. These are
the pure parts; llm/discovery.py asks the server and the resolver.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any, Sequence
from urllib.parse import urlsplit, urlunsplit

# Names that only mean something inside one network (RFC 6762 .local, RFC 8375 .home.arpa, and the suffixes
# routers and clouds hand out): a server named so is on a private network even where its name cannot be resolved.
PRIVATE_SUFFIXES = (".localhost", ".local", ".localdomain", ".lan", ".home", ".home.arpa", ".internal",
                    ".intranet", ".corp")


@dataclass(frozen=True)
class Concurrency:
    """The requests the chat server takes at once (`limit`; None: any number) and why, as the log says it."""

    limit: int | None
    reason: str

    def __str__(self) -> str:
        return f"model concurrency: {self.limit or 'unlimited'} ({self.reason})"


def props_url(base_url: str) -> str:
    """Return where a llama.cpp server behind `base_url` answers `/props`: at its root, beside `/v1`."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, parts.netloc, path + "/props", "", ""))


def slots_url(base_url: str) -> str:
    """Return where a llama.cpp server behind `base_url` lists its slots (`/slots`, when it is enabled)."""
    return props_url(base_url).removesuffix("/props") + "/slots"


def slots_in_props(props: Any) -> int | None:
    """Return the slots a llama.cpp `/props` answer reports (`total_slots`), or None where it reports none."""
    slots = props.get("total_slots") if isinstance(props, dict) else None
    return slots if isinstance(slots, int) and not isinstance(slots, bool) and slots > 0 else None


def slots_in_list(slots: Any) -> int | None:
    """Return how many slots a llama.cpp `/slots` answer lists, or None where it is not such a list."""
    if isinstance(slots, list) and slots and all(isinstance(slot, dict) and "id" in slot for slot in slots):
        return len(slots)
    return None


def context_in_props(props: Any) -> int | None:
    """Return the context window of one slot in a llama.cpp `/props` answer (`default_generation_settings.n_ctx`)."""
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    window = settings.get("n_ctx") if isinstance(settings, dict) else None
    return window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None


def is_public_address(address: str) -> bool:
    """True when `address` is a global IP address: not loopback, private, link-local, shared (CGNAT) or reserved."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone ("fe80::1%eth0") is not part of it
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global


def is_private_name(host: str) -> bool:
    """True when the name alone says the host is on this machine or a private network: `localhost`, a name of one
    label (a container's or a machine's on the LAN: `ollama`), or a suffix such as `.local` or `.internal`."""
    name = host.lower().rstrip(".")
    return name == "localhost" or "." not in name or name.endswith(PRIVATE_SUFFIXES)


def is_public_host(host: str, addresses: Sequence[str] | None) -> bool:
    """True when the server's host is on the public internet.

    `addresses` are what the host resolved to (an IP literal resolves to itself); None: it could not be resolved
    in time, or only a proxy can resolve it. Resolved, every address must be global: one private address (a split
    horizon, a container network) makes it local. Unresolved, the name decides (`is_private_name`).
    """
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        literal = False
    else:
        literal = True
    if addresses:
        return all(is_public_address(address) for address in addresses)
    if literal:
        return is_public_address(host.strip("[]"))
    return not is_private_name(host)


def choose_concurrency(explicit: int | None, base_url: str | None, slots: int | None,
                       public: bool | None) -> Concurrency:
    """Return the chat server's concurrency: MODEL_CONCURRENCY when set (`explicit`; 0 = unlimited), else the
    slots a llama.cpp server reports, else unlimited for OpenAI's own API (no `base_url`) and a host on the public
    internet (`public`), else 1.

    `slots`: what the server's `/props` or `/slots` reported, None where it told nothing; `public`: whether its
    host is on the public internet (`is_public_host`).
    """
    if explicit is not None:
        return Concurrency(explicit or None, f"MODEL_CONCURRENCY={explicit}")
    if not base_url:
        return Concurrency(None, "OpenAI's API")
    host = urlsplit(base_url).hostname or base_url
    if slots is not None:
        return Concurrency(slots, f"llama.cpp reports {slots} slot{'s' if slots != 1 else ''}")
    if public:
        return Concurrency(None, f"{host} is on the public internet")
    return Concurrency(1, f"{host} is on this machine or a private network and tells no slots; set"
                          " MODEL_CONCURRENCY to the slots it has")
