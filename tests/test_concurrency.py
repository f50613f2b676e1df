"""MODEL_CONCURRENCY's default by what the server is: the pure decision for each kind of server, and the look at
the server (llama.cpp's /props, where its host resolves) against the OpenAI double."""

from __future__ import annotations

import asyncio

import openai
import pytest

from config import DEFAULT_EXTRACT_TOKENS, SHARED_SLOT_EXTRACT_TOKENS, Config
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
from llm.discovery import decide_concurrency, resolve_host
from llm.server import ServerFeatures
from tests.doubles.openai_api import OpenAIDouble

UNLIMITED = None


@pytest.mark.parametrize(("explicit", "base_url", "slots", "public", "limit"), [
    # MODEL_CONCURRENCY always wins, whatever the server says; 0 is unlimited.
    (4, "http://127.0.0.1:8080/v1", 2, False, 4),
    (1, "https://openrouter.ai/api/v1", None, True, 1),
    (0, "http://localhost:11434/v1", 1, False, UNLIMITED),
    (2, None, None, None, 2),
    # OpenAI's own API (no base URL).
    (None, None, None, None, UNLIMITED),
    # A llama.cpp server tells its slots, on loopback or anywhere.
    (None, "http://127.0.0.1:8080/v1", 3, False, 3),
    (None, "http://127.0.0.1:8080", 1, False, 1),
    (None, "https://llama.example.com/v1", 8, True, 8),
    # Hosted providers on the public internet.
    (None, "https://openrouter.ai/api/v1", None, True, UNLIMITED),
    (None, "https://api.deepseek.com/v1", None, True, UNLIMITED),
    (None, "https://api.groq.com/openai/v1", None, True, UNLIMITED),
    (None, "https://api.together.xyz/v1", None, True, UNLIMITED),
    # An unknown server on this machine or a private network.
    (None, "http://localhost:11434/v1", None, False, 1),
    (None, "http://192.168.1.20:8000/v1", None, False, 1),
    (None, "http://ollama:11434/v1", None, False, 1),
])
def test_the_chat_servers_concurrency_by_what_the_server_is(explicit, base_url, slots, public, limit):
    assert choose_concurrency(explicit, base_url, slots, public).limit == limit


@pytest.mark.parametrize(("explicit", "base_url", "slots", "public", "line"), [
    (None, "http://127.0.0.1:8080/v1", 4, False, "model concurrency: 4 (llama.cpp reports 4 slots)"),
    (None, "http://127.0.0.1:8080/v1", 1, False, "model concurrency: 1 (llama.cpp reports 1 slot)"),
    (None, "https://api.deepseek.com/v1", None, True,
     "model concurrency: unlimited (api.deepseek.com is on the public internet)"),
    (None, None, None, None, "model concurrency: unlimited (OpenAI's API)"),
    (0, "http://localhost:8000/v1", None, False, "model concurrency: unlimited (MODEL_CONCURRENCY=0)"),
    (2, "http://localhost:8000/v1", None, False, "model concurrency: 2 (MODEL_CONCURRENCY=2)"),
])
def test_the_log_line_says_the_choice_and_why(explicit, base_url, slots, public, line):
    assert str(choose_concurrency(explicit, base_url, slots, public)) == line


def test_an_unknown_local_server_is_told_how_to_give_it_more():
    reason = choose_concurrency(None, "http://10.0.0.5:8000/v1", None, False).reason
    assert "10.0.0.5" in reason and "MODEL_CONCURRENCY" in reason


@pytest.mark.parametrize(("host", "addresses", "public"), [
    # Resolved: every address must be global.
    ("api.deepseek.com", ["104.18.26.90"], True),
    ("api.deepseek.com", ["104.18.26.90", "2606:4700::6812:1a5a"], True),
    ("openrouter.ai", ["104.18.2.115", "10.0.0.4"], False),  # a split horizon: one address is private
    ("ollama", ["172.18.0.3"], False),  # a container's name on its network
    ("gpu-box.example.com", ["192.168.1.20"], False),
    ("localhost", ["127.0.0.1", "::1"], False),
    ("tailnet-box", ["100.101.102.103"], False),  # shared address space (CGNAT, Tailscale): not global
    ("link", ["169.254.10.1"], False),
    ("v6-link", ["fe80::1%eth0"], False),
    ("v6-ula", ["fd12:3456::1"], False),
    ("mapped", ["::ffff:10.1.2.3"], False),
    ("mapped-public", ["::ffff:8.8.8.8"], True),
    ("docs", ["203.0.113.7"], False),  # documentation range: reserved, never on the internet
    # IP literals, as a resolver gives them back.
    ("127.0.0.1", ["127.0.0.1"], False),
    ("8.8.8.8", ["8.8.8.8"], True),
    # Unresolved (no answer in time, or a name only a proxy resolves): the name decides.
    ("api.groq.com", None, True),
    ("api.together.xyz", None, True),
    ("localhost", None, False),
    ("llm.localhost", None, False),
    ("ollama", None, False),
    ("LLAMA", None, False),
    ("gpu.local", None, False),
    ("model.internal", None, False),
    ("box.home.arpa", None, False),
    ("printer.lan", None, False),
    ("10.0.0.5", None, False),
    ("8.8.4.4", None, True),
    ("::1", None, False),
])
def test_where_the_host_is(host, addresses, public):
    assert is_public_host(host, addresses) is public


@pytest.mark.parametrize(("base_url", "props", "slots"), [
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/props", "http://127.0.0.1:8080/slots"),
    ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/props", "http://127.0.0.1:8080/slots"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080/props", "http://127.0.0.1:8080/slots"),
    ("https://host.example/llama/v1", "https://host.example/llama/props", "https://host.example/llama/slots"),
    ("http://user:pw@[::1]:8080/v1", "http://user:pw@[::1]:8080/props", "http://user:pw@[::1]:8080/slots"),
])
def test_props_and_slots_sit_at_the_servers_root(base_url, props, slots):
    assert (props_url(base_url), slots_url(base_url)) == (props, slots)


@pytest.mark.parametrize(("answer", "slots"), [
    ({"total_slots": 4, "default_generation_settings": {"n_ctx": 4096}}, 4),
    ({"total_slots": 1}, 1),
    ({"total_slots": 0}, None),
    ({"total_slots": True}, None),
    ({"total_slots": "4"}, None),
    ({"default_generation_settings": {}}, None),
    ([{"total_slots": 4}], None),
    ("<html>not found</html>", None),
    (None, None),
])
def test_the_slots_in_a_props_answer(answer, slots):
    assert slots_in_props(answer) == slots


@pytest.mark.parametrize(("answer", "slots"), [
    ([{"id": 0, "n_ctx": 2048}, {"id": 1, "n_ctx": 2048}], 2),
    ([{"id": 0}], 1),
    ([], None),
    ([{"n_ctx": 2048}], None),
    ({"error": "This server does not support slots endpoint."}, None),
])
def test_the_slots_in_a_slots_list(answer, slots):
    assert slots_in_list(answer) == slots


@pytest.mark.parametrize(("answer", "window"), [
    ({"default_generation_settings": {"n_ctx": 2048}}, 2048),
    ({"default_generation_settings": {"n_ctx": 0}}, None),
    ({"default_generation_settings": None}, None),
    ({"total_slots": 2}, None),
    ("text", None),
])
def test_one_slots_context_window_in_a_props_answer(answer, window):
    assert context_in_props(answer) == window


@pytest.mark.parametrize(("setting", "slots", "extract_base_url", "tokens"), [
    (None, None, None, DEFAULT_EXTRACT_TOKENS),  # unlimited: extraction waits for nobody
    (None, 1, None, SHARED_SLOT_EXTRACT_TOKENS),  # shares one slot with the conversation
    (None, 4, None, SHARED_SLOT_EXTRACT_TOKENS),
    (None, 1, "http://localhost:8001/v1", DEFAULT_EXTRACT_TOKENS),  # a server of its own
    (4000, 1, None, 4000),  # EXTRACT_MAX_PROMPT_TOKENS always wins
    (4000, None, None, 4000),
])
def test_extraction_prompts_follow_the_chat_servers_slots_unless_set(setting, slots, extract_base_url, tokens):
    config = Config(telegram_token="1:x", openai_api_key="k", extract_max_prompt_tokens=setting,
                    extract_base_url=extract_base_url)
    assert config.extraction_prompt_tokens(slots) == tokens


# The look at the server, against the double on loopback.


@pytest.fixture
async def server():
    double = OpenAIDouble()
    await double.start()
    client = openai.AsyncOpenAI(api_key="sk-test", base_url=double.base_url, max_retries=0,
                                http_client=openai.DefaultAioHttpClient())
    yield double, client
    await client.close()
    await double.close()


async def test_a_llama_cpp_server_gets_the_slots_its_props_report_and_tells_its_context(server):
    double, client = server
    double.props = {"total_slots": 3, "default_generation_settings": {"n_ctx": 2048}}
    features = ServerFeatures()
    concurrency = await decide_concurrency(client, double.base_url, None, features)
    assert concurrency == Concurrency(3, "llama.cpp reports 3 slots")
    assert features.context_tokens == 2048 and double.props_asked == 1


async def test_a_model_lists_context_is_not_replaced_by_props(server):
    double, client = server
    double.props = {"total_slots": 2, "default_generation_settings": {"n_ctx": 2048}}
    features = ServerFeatures()
    features.context_tokens = 8192
    assert (await decide_concurrency(client, double.base_url, None, features)).limit == 2
    assert features.context_tokens == 8192


async def test_a_server_without_props_on_loopback_gets_one_slot(server):
    double, client = server
    concurrency = await decide_concurrency(client, double.base_url, None, ServerFeatures())
    assert concurrency.limit == 1 and "127.0.0.1" in concurrency.reason
    assert double.props_asked == 1


async def test_the_same_server_found_on_the_public_internet_gets_no_limit(server):
    double, client = server
    asked = []

    async def public(host: str) -> list[str]:
        asked.append(host)
        return ["8.8.8.8"]

    concurrency = await decide_concurrency(client, double.base_url, None, ServerFeatures(), public)
    assert concurrency == Concurrency(None, "127.0.0.1 is on the public internet") and asked == ["127.0.0.1"]


async def test_an_explicit_setting_asks_the_server_nothing(server):
    double, client = server
    double.props = {"total_slots": 3}

    async def never(host: str) -> list[str]:
        raise AssertionError("resolved")

    assert (await decide_concurrency(client, double.base_url, 0, ServerFeatures(), never)).limit is None
    assert (await decide_concurrency(client, double.base_url, 2, ServerFeatures(), never)).limit == 2
    assert double.props_asked == 0 and double.requests == []


async def test_a_resolver_that_does_not_answer_in_time_leaves_it_to_the_name(server, monkeypatch):
    double, client = server
    monkeypatch.setattr("llm.discovery.RESOLVE_TIMEOUT_S", 0.05)
    hung = asyncio.Event()

    async def stuck(host: str) -> list[str]:
        await hung.wait()
        return ["10.0.0.1"]

    public = await decide_concurrency(client, "http://api.provider.test:1/v1", None, ServerFeatures(), stuck)
    local = await decide_concurrency(client, "http://llama:1/v1", None, ServerFeatures(), stuck)
    assert (public.limit, local.limit) == (None, 1)


async def test_an_address_literal_needs_no_resolver(server):
    double, client = server

    async def failing(host: str) -> list[str]:
        raise OSError(-2, "Name or service not known")

    concurrency = await decide_concurrency(client, double.base_url, None, ServerFeatures(), failing)
    assert concurrency.limit == 1  # 127.0.0.1 is loopback by its form


async def test_the_resolver_gives_an_ip_literal_back_as_it_is():
    assert await resolve_host("127.0.0.1") == ["127.0.0.1"]
