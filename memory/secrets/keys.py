"""API keys and tokens by their published formats, private key blocks, passwords in URLs, and unlabelled long
random tokens by their entropy.

Why not detect-secrets (1.5.0): measured on bench/secrets_corpus.json and the 4,232 messages bench/rules.py
times, its format plugins found 1 of 180 secrets at 166 µs a message (our whole masker took 44 µs), missed
`sk-proj-`, `github_pat_` and `AIza` keys, and its entropy plugins flagged 104 of 196 look-alikes (ordinary
words) at 1.2 ms a message; it also pulls in PyYAML and requests. Its formats are a few regular expressions,
so the ones that matter in a chat are written here, beside the others, and cost one regex pass each.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from memory.secrets.placeholders import API_KEY, PASSWORD
from memory.text.prefilter import matches, substitute

TELEGRAM_TOKEN = re.compile(r"(?<![0-9])[0-9]{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])")
# Keys and tokens recognisable by their own shape, wherever they appear.
KEY_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"),  # OpenAI (sk-proj-, sk-svcacct-), Anthropic (sk-ant-)
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"),  # GitLab
    re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}"),  # Google API keys
    re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"),  # Stripe secret and restricted keys
    re.compile(r"\bxox[abeoprs]-[A-Za-z0-9-]{10,}"),  # Slack
    re.compile(r"\bhf_[A-Za-z0-9]{30,}"),  # Hugging Face
    re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"),
    re.compile(r"\bpypi-[A-Za-z0-9_-]{50,}"),
    re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),  # SendGrid
    re.compile(r"\bdop_v1_[a-f0-9]{64}\b"),  # DigitalOcean
    TELEGRAM_TOKEN,
    re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"),  # JSON Web Tokens
]
# What every key above starts with: one search for these instead of a pass (and a prefilter) for each pattern.
# A Telegram bot token has a colon, which the search for a digit and a colon would find far too often.
KEY_HINT = re.compile(r"sk-|gh[pousr]_|github_pat_|glpat-|A[KSBC][IC]A|AIza|[sr]k_|xox|hf_|npm_|pypi-|SG\.|dop_|eyJ")
# "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----".
KEY_BLOCK_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----")
KEY_BLOCK_END = re.compile(r"-----END [A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----")
# "postgres://admin:S3cret@db.local/app": the password between the user's colon and the "@".
URL_PASSWORD = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,15}://[^\s:/@]{1,64}:(?P<value>[^\s/@]{1,128}+)@(?=[\w\[])")
# A long run of base64 characters standing alone: after a space, a quote, a bracket, "=" or ":" (not inside
# a URL, where it follows "/" or a dot), and ending its word.
TOKEN = re.compile(r"(?<![^\s\"'`(<\[:=,])[A-Za-z0-9+/_=-]{20,200}+(?![^\s\"'`)>\],;.!?])")
HEX = re.compile(r"(?:0x)?[0-9a-fA-F-]+")  # git hashes, SHA sums, UUIDs: not taken without a name
BASE58_ADDRESS = re.compile(r"[13][1-9A-HJ-NP-Za-km-z]{25,34}")  # a Bitcoin address is public
MIN_ENTROPY = 3.5  # bits a character; random base62 of 20 characters has about 4.1, camel-case words less
# Pieces that read as words ("User", "Pro", "settings"): they cover 0.7-1 of "iPhone15ProMaxUltra2024" or
# "getUserSettings2ForTheWin", and under 0.65 of 95-99% of random base62 or base64 tokens of 20-40 characters.
WORDISH = re.compile(r"[A-Z]?[a-z]{2,}")
MAX_WORDISH = 0.65


def mask_keys(text: str) -> str:
    """Return `text` with private key blocks, formatted keys, URL passwords and random tokens replaced."""
    text = _mask_key_blocks(text)
    if KEY_HINT.search(text):
        for pattern in KEY_PATTERNS:
            text = pattern.sub(API_KEY, text)
    elif ":" in text:
        text = TELEGRAM_TOKEN.sub(API_KEY, text)
    text = substitute(URL_PASSWORD, _mask_url_password, text)
    return substitute(TOKEN, _mask_random_token, text)


def looks_random(token: str) -> bool:
    """True when a token of 20+ characters looks machine-made: lower and upper case and digits, mostly not in
    word-like pieces, high entropy, and not hex (a hash, a UUID) or a Bitcoin address."""
    core = token.rstrip("=")
    if len(core) < 20 or HEX.fullmatch(core) or BASE58_ADDRESS.fullmatch(core):
        return False
    if not (any(char.islower() for char in core) and any(char.isupper() for char in core)):
        return False
    if not any(char.isdigit() for char in core):
        return False
    wordish = sum(len(piece) for piece in WORDISH.findall(core))
    return wordish < MAX_WORDISH * len(core) and _entropy(core) >= MIN_ENTROPY


def _mask_key_blocks(text: str) -> str:
    pieces, done = [], 0
    for begin in matches(KEY_BLOCK_BEGIN, text):
        if begin.start() < done:
            continue
        end = KEY_BLOCK_END.search(text, begin.end())
        # A block pasted without its END line is hidden to the end of the message: the key runs to there.
        done_at = end.end() if end else len(text)
        pieces += [text[done : begin.start()], API_KEY]
        done = done_at
    return "".join(pieces) + text[done:] if pieces else text


def _mask_url_password(match: re.Match[str]) -> str:
    start, end = match.span("value")
    offset = match.start()
    whole = match.group(0)
    return whole[: start - offset] + PASSWORD + whole[end - offset :]


# A public key's type before its base64: "ssh-ed25519 AAAAC3…", "ecdsa-sha2-nistp256 AAAA…" is meant to be shared.
PUBLIC_KEY_TYPE = re.compile(r"(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+$")


def _mask_random_token(match: re.Match[str]) -> str:
    if PUBLIC_KEY_TYPE.search(match.string, max(0, match.start() - 40), match.start()):
        return match.group(0)
    return API_KEY if looks_random(match.group(0)) else match.group(0)


def _entropy(token: str) -> float:
    """Return the Shannon entropy of the token's characters, in bits a character."""
    total = len(token)
    return -sum(count / total * math.log2(count / total) for count in Counter(token).values())
