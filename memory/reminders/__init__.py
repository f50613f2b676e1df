"""Reminders the user asks for: understanding the request, its repeat rule, and the plain types the store reads."""
