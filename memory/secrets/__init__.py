"""Masking of secrets (cards, IBANs, keys, passwords, codes, seed phrases) before anything is stored or sent."""
