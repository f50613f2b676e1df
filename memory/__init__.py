"""Long-term memory: the plain types at this level (facts, topics, usage, due items), the rest in sub-packages."""
