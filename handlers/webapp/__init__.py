"""The memory page, a Telegram Mini App: its signed-identity check, its JSON API and the page's own files."""
