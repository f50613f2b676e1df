"""Chat messages in the shape the strictest chat templates accept (Gemma's, Mistral's and others).

Those templates raise unless the system message comes first and only once, and user and assistant turns
alternate starting with the user. A session can break that without anyone doing wrong: a turn whose model
call failed leaves two user messages in a row, a message the companion wrote first leaves two of its own
in a row or one at the start, and a message written first ends with its task as a second system message.
"""

from __future__ import annotations

from typing import Sequence

EARLIER = "What you (the assistant) said earlier in this chat:"


def strict_roles(messages: Sequence[dict]) -> list[dict]:
    """Return `messages` with every system message merged into one at the front, consecutive messages of the
    same role merged into one (their texts joined by a blank line), and the companion's messages before the
    user's first one moved into that system message as context, so that the turns alternate from the user.

    Image parts stay where they were, after the text that came before them. Messages already in that shape
    come back equal.
    """
    system: list[str] = []
    turns: list[dict] = []
    for message in messages:
        role, content = message["role"], message.get("content") or ""
        if role == "system":
            system.append(text_of(content))
        elif turns and turns[-1]["role"] == role:
            turns[-1] = {"role": role, "content": joined(turns[-1]["content"], content)}
        else:
            turns.append({"role": role, "content": content})
    while turns and turns[0]["role"] != "user":
        if system or any(turn["role"] == "user" for turn in turns):
            system.append(f"{EARLIER}\n{text_of(turns.pop(0)['content'])}")
        else:  # nothing but the companion's words: they become the one message there is
            turns[0] = {"role": "user", "content": turns[0]["content"]}
    if not turns and system:  # a template drops a system message with no user turn to fold it into
        return [{"role": "user", "content": "\n\n".join(system)}]
    head = [{"role": "system", "content": "\n\n".join(system)}] if system else []
    return head + turns


def text_of(content: str | list) -> str:
    """Return the text of a message's content: the string, or its text parts joined (images left out)."""
    if isinstance(content, str):
        return content
    texts = [part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"]
    return "\n\n".join(texts)


def joined(first: str | list, second: str | list) -> str | list:
    """Return two contents as one: strings joined by a blank line, or one list of parts when either has parts."""
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}" if first and second else first or second
    return [*as_parts(first), *as_parts(second)]


def as_parts(content: str | list) -> list[dict]:
    """Return a content as a list of parts: a string becomes one text part (none when empty)."""
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": content}] if content else []
