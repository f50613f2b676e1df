"""Time on the user's own clock: dates in speech, city to zone, when to write first, and time in words."""
