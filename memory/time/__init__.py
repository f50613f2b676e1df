"""Time on the user's own clock: dates in speech, city to zone, when a fact's follow-up or greeting falls due, and
time in words."""
