"""Recall: fact embeddings, pure ranking (cosine, BM25, session pull), the recaller that picks prompt facts."""
