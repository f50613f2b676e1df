"""The pure parts of "why did you say that?": the record of what a prompt held, and the list read back from it."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory.continuity import Topic
from memory.facts import Fact
from memory.reminder import Reminder
from services.why import FACTS, RECALLED, REMINDERS, TOPICS, WISHES, Remembered, Used, remembered

T0 = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)


def fact(fact_id: int, value: str, category: str = "personal") -> Fact:
    return Fact(category, f"k{fact_id}", value, id=fact_id)


def test_a_record_keeps_ids_by_kind_and_reads_back_the_same():
    topic = Topic(text="the exam", started_at=T0, ended_at=T0, id=7)
    reminder = Reminder(3, 1, 1, None, "call mum", T0, None, "UTC", T0)
    used = Used.of([fact(1, "Berlin")], [fact(2, "Rex")], [fact(5, "ты", "style")], [topic], [reminder])
    assert used == Used(wishes=(5,), facts=(1,), recalled=(2,), topics=(7,), reminders=(3,))
    assert Used.from_json(used.to_json()) == used and used.count == 5
    assert len(used.to_json()) < 100  # one small column of the reply's row


def test_facts_without_an_id_are_not_recorded():
    assert Used.of([Fact("personal", "city", "Berlin")], [], [], [], []) == Used()


@pytest.mark.parametrize("junk", [None, "", "not json", "[1, 2]", "42", '{"facts": "1"}', '{"facts": [true, "2"]}',
                                  '{"facts": [1.5, null, {"a": 1}]}', '{"unknown": [1]}'])
def test_an_unreadable_record_reads_as_nothing_used(junk):
    assert Used.from_json(junk) == Used()


def test_a_record_keeps_the_whole_ids_of_a_mixed_list():
    assert Used.from_json('{"facts": [1, "2", 3, false], "topics": [9]}') == Used(facts=(1, 3), topics=(9,))


def test_the_list_names_each_memory_by_kind_in_order_and_one_gone_since_has_no_value():
    used = Used(wishes=(5,), facts=(1, 4), recalled=(2,), topics=(7, 8), reminders=(3,))
    facts = [fact(1, "Berlin"), fact(2, "Rex"), fact(5, "ты", "style")]
    topics = [Topic(text="the exam", started_at=T0, ended_at=T0, id=7)]
    reminders = [Reminder(3, 1, 1, None, "call mum", T0, None, "UTC", T0)]
    lines = remembered(used, facts, topics, reminders)
    assert lines == [Remembered(WISHES, 5, "ты"), Remembered(FACTS, 1, "Berlin"), Remembered(FACTS, 4, None),
                     Remembered(RECALLED, 2, "Rex"), Remembered(TOPICS, 7, "the exam"), Remembered(TOPICS, 8, None),
                     Remembered(REMINDERS, 3, "call mum")]
    assert [line.markable for line in lines] == [True, True, False, True, True, False, False]


def test_an_empty_record_lists_nothing():
    assert remembered(Used(), [fact(1, "Berlin")], [], []) == []
