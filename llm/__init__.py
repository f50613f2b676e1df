"""The model client: chat completions with retries, timeouts and streaming, used by services/ and memory/."""
