"""Telegram transport: the inbox, per-user ordering, the webhook server, drafts and rate limiter, sending."""
