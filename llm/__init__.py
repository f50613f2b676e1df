"""The model client: chat completions with retries, timeouts and streaming, used by chat/ and memory/."""
