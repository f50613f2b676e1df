"""The certificates the process trusts: the system's store, or SSL_CERT_FILE / SSL_CERT_DIR where set.

The Bot API's transport (transport/http.py) and the model's HTTP clients (llm/servers.py) verify servers with one
SSL context. Loading the store takes about 44 ms of CPU a context (`ssl.create_default_context()` timed 20 times),
and a bot made six at start (two Bot API sessions, and two model clients with a session each; the tests start
hundreds of bots); a context is safe to share between sessions and connections, so each set of settings gets one."""

from __future__ import annotations

import os
import ssl
from functools import lru_cache


def trusted() -> ssl.SSLContext:
    """Return the process's context for verifying servers, read from SSL_CERT_FILE and SSL_CERT_DIR as they are
    now (OpenSSL's own variables: ssl.create_default_context reads them), made once for each value of the two."""
    return _context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@lru_cache(maxsize=4)
def _context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return ssl.create_default_context()
