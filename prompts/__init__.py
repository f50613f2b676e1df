"""Prompt templates (as files) and the pure builders that fill them."""

from pathlib import Path

PROMPTS_DIR = Path(__file__).resolve().parent


def load_prompt(name: str) -> str:
    """Return the text of a template file in prompts/, without trailing whitespace."""
    return (PROMPTS_DIR / name).read_text(encoding="utf-8").strip()
