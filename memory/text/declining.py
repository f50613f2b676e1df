"""Write memory/text/ru_declined.json again: what pymorphy3's dictionary says of every Russian noun and phrase the
patterns of memory/ decline as they are imported (memory/text/word_forms.py reads it, so that importing the rules
builds no analyzer). Run it after changing the words a pattern declines, or the dictionary:

    .venv/bin/python -m memory.text.declining
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

import memory
from memory.text import word_forms


def write(path: Path = word_forms.DECLINED_FILE) -> int:
    """Import every module of memory/ with the table forgotten, write what the analyzer declined meanwhile to
    `path`, one noun or phrase a line, and return how many. In a process of its own: a module imported before
    declined its words already."""
    declined = word_forms.record_declining()
    for module in pkgutil.walk_packages(memory.__path__, "memory."):
        importlib.import_module(module.name)  # each pattern module declines its words as it is imported
    kinds = [(kind, sorted(entries.items())) for kind, entries in declined.items()]
    lines = ",\n".join(f"{json.dumps(kind)}: {{\n" + ",\n".join(
        f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}" for key, value in entries
    ) + "\n}" for kind, entries in kinds)
    path.write_text("{\n" + lines + "\n}\n", encoding="utf-8")
    return sum(len(entries) for _, entries in kinds)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else word_forms.DECLINED_FILE
    print(f"wrote {write(target)} nouns and phrases to {target}")
