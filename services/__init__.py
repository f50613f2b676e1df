"""The services handlers call: the companion's turn, writing first (and its pure policy), reminders, forgetting,
voice, daily limits and the memory page's changes; below them are prompts, memory and the model client."""
