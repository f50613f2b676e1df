"""What the rules say about every message of the corpora, and of LoCoMo's turns: the record issue 27's speed-ups
must leave byte for byte as it is (tests/test_rules_golden.py).

For each message: the facts, dated events, style wishes and changes the rules find, and the message with its
secrets masked, each as its repr, against one fixed clock. The corpora's records are kept whole in
tests/fixtures/rules_golden.json, so that a test that fails shows which message changed and how; LoCoMo is not
in this repository (../shared/data/locomo, on the team's machines only), so of its turns a digest of each is
kept instead.

    .venv/bin/python -m tests.rules_golden     # write the record again (only when a change of output is meant)
"""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from memory.rules.change_rules import extract_changes
from memory.rules.events import extract_event_facts
from memory.rules.rules import extract_rule_facts
from memory.secrets.masking import mask_secrets
from memory.style.wishes import extract_style_facts

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "tests" / "fixtures" / "rules_golden.json"
LOCOMO = (ROOT / ".." / "shared" / "data" / "locomo" / "locomo-dev.json").resolve()
CORPORA = ("extraction_corpus", "style_corpus", "secrets_corpus", "dates_corpus", "unlearning_corpus",
           "unlearning_heldout")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=ZoneInfo("Europe/Moscow"))


def said(text: str) -> str:
    """Everything the rules find in `text`, as one line of reprs."""
    found = extract_rule_facts(text)
    return repr((found.facts, found.relations, extract_event_facts(text, NOW), extract_style_facts(text),
                 extract_changes(text, NOW), mask_secrets(text)))


def corpus_texts(name: str) -> list[str]:
    """The messages of bench/<name>.json, in their order."""
    data = json.loads((ROOT / "bench" / f"{name}.json").read_text(encoding="utf-8"))
    messages = data["messages"] if isinstance(data, dict) else data
    return [message["text"] for message in messages]


def locomo_turns() -> list[tuple[str, str]]:
    """(dia_id, text) of every turn of the LoCoMo conversations here, or none when the data is not."""
    if not LOCOMO.is_file():
        return []
    turns = []
    for conversation in json.loads(LOCOMO.read_text(encoding="utf-8")):
        sessions = conversation["conversation"]
        for key, session in sessions.items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [(f"{conversation['sample_id']}:{turn['dia_id']}", turn["text"]) for turn in session]
    return turns


def digest(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()[:16]


def record() -> dict:
    """The record as it is written: each corpus's lines whole, LoCoMo's as digests by turn."""
    result: dict = {name: [said(text) for text in corpus_texts(name)] for name in CORPORA}
    turns = locomo_turns()
    if turns:
        result["locomo"] = {turn: digest(said(text)) for turn, text in turns}
    return result


def main() -> None:
    now = record()
    if "locomo" not in now and RECORD.is_file():  # written where LoCoMo is absent: keep its digests
        now["locomo"] = json.loads(RECORD.read_text(encoding="utf-8")).get("locomo", {})
    RECORD.write_text(json.dumps(now, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {RECORD}: " + ", ".join(f"{name} {len(lines)}" for name, lines in now.items()))


if __name__ == "__main__":
    sys.exit(main())
