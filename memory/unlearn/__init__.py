"""Unlearning: which known facts the user's words mean, what a message's changes do to them, scrubbing the session."""
