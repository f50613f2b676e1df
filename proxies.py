"""The proxy a request goes through, as the environment names it: HTTPS_PROXY, HTTP_PROXY, then ALL_PROXY (which
aiohttp alone ignores), less NO_PROXY's hosts. The Bot API's transport (transport/http.py) and the model's HTTP client
(llm/servers.py) both choose theirs here, so that the whole process honours one set of rules."""

from __future__ import annotations

from urllib.parse import urlsplit
from urllib.request import proxy_bypass


def proxy_for(url: str, proxies: dict[str, str]) -> str | None:
    """Return the proxy a request to `url` goes through, from `proxies` as urllib's getproxies() reads the
    environment: the one for its scheme, else ALL_PROXY's; None where there is none or NO_PROXY names its host."""
    parts = urlsplit(url)
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy:
        return None
    if "://" not in proxy:  # "proxy.example:3128", as curl takes it too
        proxy = f"http://{proxy}"
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    # On Linux, where the bot runs, urllib's proxy_bypass is proxy_bypass_environment: NO_PROXY's rules, from `proxies`.
    return None if proxy_bypass(host, proxies) else proxy


def where(proxy: str) -> str:
    """Return a proxy's URL without its user and password: its scheme, host and port."""
    parts = urlsplit(proxy)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}"
