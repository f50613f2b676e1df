"""Unlearning, planned purely: which known facts the user's words mean, what a message's changes do to them,
what a forget scrubs from the session (carried out by services/forgetting.py)."""
