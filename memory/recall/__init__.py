"""Recall: fact embeddings, pure ranking (cosine, BM25, session pull), the recaller that picks prompt facts, and
near-duplicate facts (by slot and wording, or by their stored vectors)."""
