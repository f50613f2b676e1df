"""LLM fact extraction: the extractor (one structured-output call) and the keeper that runs it off the reply path."""
