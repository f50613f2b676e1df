"""Telegram transport: the inbox and its store, per-user ordering, the webhook server, drafts and rate limiter,
sending."""
