"""Sending a JSON request to the model server through the SDK client's own HTTP client, without the SDK's per-call
machinery: its base URL, key and headers, taken once, and its connection pool and timeouts, but not the request
options it builds and validates for every call (half a millisecond of CPU a chat request, more than sending
it: bench/README.md, "issue 42"). Errors are the SDK's own: a refusal its status error, as `client.post` raises
it, a timeout APITimeoutError, any other failure APIConnectionError (the client makes no retries of its own:
llm/servers.py)."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai


class Poster:
    """POSTs JSON to one path of the server the SDK `client` talks to (a client with a key of its own, as
    llm/servers.py opens it: not a key fetched for every request)."""

    def __init__(self, client: openai.AsyncOpenAI, path: str) -> None:
        self.client = client
        self.url = client.base_url.join(path.lstrip("/"))
        self._headers: dict[str, str] | None = None

    def headers(self) -> dict[str, str]:
        """The SDK's headers for every request (its key, its client and platform headers), worked out once, in the
        running loop (one of them names the async library)."""
        if self._headers is None:
            # The SDK numbers its own retries; the client makes none (ChatModel retries, each a request anew).
            found = {**self.client.default_headers, **self.client.auth_headers, "X-Stainless-Retry-Count": "0"}
            self._headers = {name: value for name, value in found.items() if isinstance(value, str)}
        return self._headers

    async def post(self, body: dict[str, Any], timeout: httpx2.Timeout, stream: bool) -> httpx2.Response:
        """Send `body`; return the response, unread when `stream` (closing it is the caller's)."""
        http = self.client._client  # the SDK's HTTP client, the one it sends with (it has no public name)
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        request = http.build_request("POST", self.url, content=content, headers=self.headers(), timeout=timeout)
        try:
            response = await http.send(request, stream=stream)
        except httpx2.TimeoutException as error:
            raise openai.APITimeoutError(request=request) from error
        except Exception as error:  # noqa: BLE001 - as the SDK sorts a failed send
            raise openai.APIConnectionError(request=request) from error
        if response.is_error:
            await response.aread()
            await response.aclose()
            raise self.client._make_status_error_from_response(response)
        return response
