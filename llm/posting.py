"""Sending a JSON request to the model server without the SDK's per-call machinery: the SDK client's base URL, key
and headers, taken once, but not the request options it builds and validates for every call (half a
millisecond of CPU a chat request, more than sending it: bench/README.md, "issue 42").

The request goes through the bot's own HTTP client (net/) where the server has a pool of it (llm/servers.py),
else through the SDK client's HTTP client, with its connection pool and timeouts (a client passed in, a proxy).
Either way the answer comes back as a `Reply`, and errors are the SDK's own: a refusal its status error, as
`client.post` raises it, a timeout APITimeoutError, any other failure APIConnectionError (the client makes no
retries of its own: llm/servers.py)."""

from __future__ import annotations

from typing import Any

import httpx2
import openai

from llm.responses import PoolReply, Reply, SdkReply
from net.connections import Pool, Timeouts
from net.http1 import HttpError
from net.json_bytes import dumps


class Poster:
    """POSTs JSON to one path of the server the SDK `client` talks to (a client with a key of its own, as
    llm/servers.py opens it: not a key fetched for every request), through `pool` when given."""

    def __init__(self, client: openai.AsyncOpenAI, path: str, pool: Pool | None = None) -> None:
        self.client = client
        self.pool = pool
        self.url = client.base_url.join(path.lstrip("/"))
        self._url = str(self.url)
        self._request = httpx2.Request("POST", self.url)  # what an error names: the method and URL, no body
        self._headers: dict[str, str] | None = None

    def headers(self) -> dict[str, str]:
        """The SDK's headers for every request (its key, its client and platform headers), worked out once, in the
        running loop (one of them names the async library)."""
        if self._headers is None:
            # The SDK numbers its own retries; the client makes none (ChatModel retries, each a request anew).
            found = {**self.client.default_headers, **self.client.auth_headers, "X-Stainless-Retry-Count": "0"}
            self._headers = {name: value for name, value in found.items() if isinstance(value, str)}
        return self._headers

    async def post(self, body: dict[str, Any], timeout: httpx2.Timeout, stream: bool) -> Reply:
        """Send `body`; return the answer, its body unread when `stream` (closing it is the caller's)."""
        content = dumps(body)
        reply = await (self._through_pool(content, timeout, stream) if self.pool is not None
                       else self._through_sdk(content, timeout, stream))
        if reply.status >= 400:
            await reply.aclose()
            raise self.client._make_status_error_from_response(reply.as_httpx())
        return reply

    async def _through_pool(self, content: bytes, timeout: httpx2.Timeout, stream: bool) -> Reply:
        assert self.pool is not None
        timeouts = Timeouts(connect=timeout.connect, pool=timeout.pool, write=timeout.write, read=timeout.read)
        try:
            response = await self.pool.request("POST", self._url, self.headers(), content, timeouts)
            if not stream or response.status >= 400:
                await response.read()
        except TimeoutError as error:
            raise openai.APITimeoutError(request=self._request) from error
        except HttpError as error:
            raise openai.APIConnectionError(request=self._request) from error
        return PoolReply(response, self._request)

    async def _through_sdk(self, content: bytes, timeout: httpx2.Timeout, stream: bool) -> Reply:
        http = self.client._client  # the SDK's HTTP client, the one it sends with (it has no public name)
        request = http.build_request("POST", self.url, content=content, headers=self.headers(), timeout=timeout)
        try:
            response = await http.send(request, stream=stream)
            if stream and response.is_error:
                await response.aread()
        except httpx2.TimeoutException as error:
            raise openai.APITimeoutError(request=request) from error
        except Exception as error:  # noqa: BLE001 - as the SDK sorts a failed send
            raise openai.APIConnectionError(request=request) from error
        return SdkReply(response)
