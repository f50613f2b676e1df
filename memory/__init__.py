"""Long-term memory: the SQLite store and, later, extraction and recall."""
