"""llm/servers.py: a model server's chat requests go through the bot's own HTTP client, unless the environment
names a proxy for it (the SDK's client honours one; net/ does not)."""

from __future__ import annotations

import pytest

from llm.gate import Gate
from llm.server import ServerFeatures
from llm.servers import ModelServer, behind_proxy
from net.connections import Pool

PROXY_SETTINGS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy",
                  "no_proxy")


@pytest.fixture(autouse=True)
def no_proxy_settings(monkeypatch):
    for name in PROXY_SETTINGS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("settings, url, proxied", [
    ({}, "https://api.openai.com/v1", False),
    ({"HTTPS_PROXY": "http://proxy:3128"}, "https://api.openai.com/v1", True),
    ({"HTTPS_PROXY": "http://proxy:3128"}, "http://127.0.0.1:8080/v1", False),  # an http server, an https proxy
    ({"HTTP_PROXY": "http://proxy:3128"}, "http://127.0.0.1:8080/v1", True),
    ({"ALL_PROXY": "socks5://proxy:1080"}, "http://llm.local:8080/v1", True),
    ({"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": "api.openai.com"}, "https://api.openai.com/v1", False),
    ({"HTTP_PROXY": "http://proxy:3128", "NO_PROXY": "localhost,127.0.0.1"}, "http://127.0.0.1:8080/v1", False),
])
def test_a_proxy_is_found_as_aiohttp_finds_it(monkeypatch, settings, url, proxied):
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    assert behind_proxy(url) is proxied


async def test_chat_requests_get_a_pool_except_behind_a_proxy(monkeypatch):
    direct = ModelServer.open("https://api.example.test/v1", "sk-test", 5.0, Gate(None), ServerFeatures())
    another_key = direct.or_another(None, "sk-other", 5.0)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy:3128")
    proxied = ModelServer.open("https://api.example.test/v1", "sk-test", 5.0, Gate(None), ServerFeatures())
    openai_itself = ModelServer.open(None, "sk-test", 5.0, Gate(None), ServerFeatures())
    servers = (direct, another_key, proxied, openai_itself)
    try:
        assert isinstance(direct.pool, Pool) and isinstance(another_key.pool, Pool)
        assert another_key.pool is not direct.pool and another_key.gate is direct.gate
        assert proxied.pool is None and openai_itself.pool is None
    finally:
        for server in servers:
            await server.close()
    assert direct.pool.closed and another_key.pool.closed
