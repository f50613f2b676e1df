"""Rules that find lasting wishes about how the bot talks (address, length, tone, language, emoji, avoid)."""
