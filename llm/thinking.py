"""Reasoning models' thinking told apart from their answer (pure): `<think>` blocks, and reasoning fields.

Servers send thinking in one of two forms. In the text: a `<think>…</think>` block (`<thinking>` for some)
before the answer, or only the closing tag when the chat template opened the block in the prompt
(DeepSeek-R1 distills, Qwen3 thinking models). Or apart from it: a `reasoning_content` field (llama.cpp,
vLLM, DeepSeek) or `reasoning` (Ollama, OpenRouter) on the message and on each stream delta.
"""

from __future__ import annotations

import re

TAG = re.compile(r"<(/?)(think|thinking)>", re.IGNORECASE)
CLOSING = re.compile(r"</(?:think|thinking)>", re.IGNORECASE)
TAGS = ("<think>", "<thinking>", "</think>", "</thinking>")
LONGEST_TAG = max(len(tag) for tag in TAGS)
REASONING_FIELDS = ("reasoning_content", "reasoning")


def split_thinking(text: str, opened: bool = False) -> tuple[str, str]:
    """Return (thinking, answer) of a model's text; ("", text) when it holds no thinking.

    Thinking is a `<think>` (or `<thinking>`) block at the very start, up to its first closing tag, or all
    the text before a closing tag that comes before any opening one (the template opened the block in the
    prompt). A block never closed is all thinking: the cap cut it off. Tags later in an answer are words the
    answer is about. `opened`: the template is known to open the block, so the text up to the first closing
    tag is thinking whatever it holds, and all of it when no closing tag came.
    """
    head = len(text) - len(text.lstrip())
    first = TAG.search(text)
    if first is not None and not first.group(1) and first.start() == head:
        closing = re.compile(f"</{first.group(2)}>", re.IGNORECASE).search(text, first.end())
        if closing is None:
            return text[first.end():].strip(), ""
        return text[first.end():closing.start()].strip(), text[closing.end():].lstrip()
    closing = CLOSING.search(text) if opened else first if first is not None and first.group(1) else None
    if closing is not None:
        return text[:closing.start()].strip(), text[closing.end():].lstrip()
    return (text.strip(), "") if opened else ("", text)


def opened_in_prompt(text: str) -> bool:
    """True when the text closes a thinking block it never opened: the chat template opened it in the prompt."""
    first = TAG.search(text)
    return first is not None and bool(first.group(1))


def reasoning_of(part: dict) -> str:
    """Return the thinking a message or stream delta (its JSON object) carries apart from its content ("" when
    none)."""
    for name in REASONING_FIELDS:
        value = part.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def reasoning_tokens(usage: dict | None) -> int:
    """Return the thinking tokens a completion's usage counts (`completion_tokens_details.reasoning_tokens`), or 0."""
    details = usage.get("completion_tokens_details") if usage else None
    tokens = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return tokens if isinstance(tokens, int) and tokens > 0 else 0


class ThinkingSplitter:
    """Follows a streamed text piece by piece and tells how much of it so far is surely answer.

    What it tells always equals `split_thinking` of the text so far, except that nothing is answer while the
    text is only the start of a tag. It scans each piece once (with a tag's length of overlap), so a long
    thinking streamed token by token costs no more than reading it.
    """

    def __init__(self, opened: bool = False) -> None:
        self.opened = opened
        self.text = ""
        self._ends: re.Pattern | None = None  # what ends the thinking, once the start of the text is known
        self._from = 0  # where that search begins
        self._start: int | None = None  # where the answer begins, once found
        self._plain = False  # no block at the start: all answer, unless a closing tag comes first

    def feed(self, piece: str) -> str:
        """Add the next piece; return the answer so far ("" while the text may still be thinking)."""
        scanned = len(self.text)
        self.text += piece
        if self._start is None:
            self._find_start(scanned)
        if self._start is not None:
            return self.text[self._start:].lstrip()
        return self.text.lstrip() if self._plain and not self.opened else ""

    def _find_start(self, scanned: int) -> None:
        if self._ends is None:
            head = self.text.lstrip()
            if not head or any(tag.startswith(head.lower()) and len(head) < len(tag) for tag in TAGS):
                return  # nothing yet, or maybe a tag: wait for more
            first = TAG.match(head)
            if first is not None and not first.group(1):
                self._ends = re.compile(f"</{first.group(2)}>", re.IGNORECASE)
                self._from = len(self.text) - len(head) + first.end()
            else:
                self._plain = True
                self._ends = CLOSING if self.opened else TAG
            scanned = self._from
        found = self._ends.search(self.text, max(self._from, scanned - LONGEST_TAG + 1))
        if found is not None:
            # In plain text an opening tag before any closing one is a word of the answer: no thinking.
            self._start = found.end() if self._ends is not TAG or found.group(1) else 0
