"""Regex fact rules on the user's own words: names, pets and family, likes and states, dated events."""
