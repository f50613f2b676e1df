"""LLM fact extraction: the extractor (one structured-output call), reading its answer, and the keeper that runs it
off the reply path."""
