"""LoCoMo conversations as bench/recall.py reads them: observation sentences, their dia_ids and session times,
and the questions with their evidence; and the session dates bench/cost.py replays them on.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

DATA = (Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "locomo" / "locomo-dev.json").resolve()


def dia_ids(raw: str | list) -> list[str]:
    """Return the dia_ids named in an evidence or observation field ('D8:6; D9:17', 'D:11:26', a list)."""
    text = " ".join(raw) if isinstance(raw, list) else raw
    return [f"D{a}:{b}" for a, b in re.findall(r"D:?(\d+):(\d+)", text)]


def conversation(
    sample: dict,
) -> tuple[list[str], list[list[str]], np.ndarray, list[tuple[str, set[str]]], np.ndarray]:
    """Return one conversation's observation texts, their dia_ids, their session position (0..1), its questions
    and each observation's session time (seconds since the epoch: the session's date, else one day per session)."""
    texts, ids, sessions, times = [], [], [], []
    names = sorted(sample["observation"], key=lambda name: int(re.search(r"\d+", name).group()))
    for position, name in enumerate(names):
        number = re.search(r"\d+", name).group()
        stamp = session_time(sample["conversation"].get(f"session_{number}_date_time", ""), position)
        for observations in sample["observation"][name].values():
            for text, raw in observations:
                texts.append(text)
                ids.append(dia_ids(raw))
                sessions.append(position / max(len(names) - 1, 1))
                times.append(stamp)
    questions = [(q["question"], set(dia_ids(q["evidence"]))) for q in sample["qa"] if q["category"] != 5]
    questions = [(q, ev) for q, ev in questions if ev]
    return texts, ids, np.array(sessions, dtype=np.float32), questions, np.array(times, dtype=np.float64)


def session_time(raw: str, position: int) -> float:
    """Return a LoCoMo session's date ('1:56 pm on 8 May, 2023') in seconds; position days if it does not parse."""
    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc).timestamp()
    except ValueError:
        return position * 86_400.0


def documents(texts: list[str]) -> list[str]:
    """Return the observations as the bot embeds facts: fact_text of a "note" fact ('note: <observation>')."""
    from memory.facts import Fact
    from memory.recall.recaller import fact_text

    return [fact_text(Fact("other", f"note:{i}", text)) for i, text in enumerate(texts)]


def session_dates(sample: dict) -> dict[int, datetime]:
    """Return LoCoMo's date of each session ("1:56 pm on 8 May, 2023") by number, as UTC datetimes."""
    dates = {}
    for key, value in sample["conversation"].items():
        number = re.fullmatch(r"session_(\d+)_date_time", key)
        if number:
            moment = datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y")
            dates[int(number.group(1))] = moment.replace(tzinfo=timezone.utc)
    return dates


def session_of(dia_id: str) -> int:
    """Return the session number of a LoCoMo turn id ("D8:6" → 8)."""
    return int(dia_id[1:].split(":")[0])
