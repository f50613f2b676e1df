from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from handlers.profile_view import PAGE_SIZE, page_count, render_profile
from memory.facts import Fact, Relation

UTC = ZoneInfo("UTC")
DAY = datetime(2026, 11, 29, 10, 0, tzinfo=timezone.utc)


def fact(i, category, key, value):
    return Fact(category, key, value, id=i, created_at=DAY, updated_at=DAY)


FACTS = [
    fact(1, "personal", "name", "Anna"),
    fact(2, "pets", "pet:murka", "cat Murka"),
    fact(3, "career", "job_title", "engineer"),
    fact(4, "career", "employer", "Acme"),
    fact(5, "location", "city", "Kazan"),
]


def test_facts_are_grouped_by_category_with_their_dates_and_a_delete_button_each():
    body, buttons = render_profile("Anna", FACTS, [], True, 0, UTC, "en")
    assert body.splitlines()[:2] == ["What I remember about you", "Name: Anna"]
    assert "Work and study\n• Acme — 29.11.2026\n• engineer — 29.11.2026" in body
    assert "Pets\n• cat Murka — 29.11.2026" in body
    assert body.index("Work and study") < body.index("Pets") < body.index("Places")
    assert [row[0][1] for row in buttons] == ["pf:del:4:0", "pf:del:3:0", "pf:del:2:0", "pf:del:5:0"]
    assert all(len(data.encode()) <= 64 for row in buttons for _, data in row)


def test_relations_are_shown_compactly():
    body, _ = render_profile(None, FACTS, [Relation("job_title", "employer", "works_at")], True, 0, UTC, "en")
    assert "Connections:\n• engineer — works_at → Acme" in body


def test_long_profiles_are_paginated():
    many = [fact(i, "preferences", f"likes:thing{i:02}", f"thing {i}") for i in range(1, 20)]
    assert page_count(many) == 3
    first, first_buttons = render_profile(None, many, [], True, 0, UTC, "en")
    assert "(page 1 of 3)" in first and first.count("• thing") == PAGE_SIZE
    assert first_buttons[-1] == [("›", "pf:pg:1")]
    last, last_buttons = render_profile(None, many, [], True, 2, UTC, "en")
    assert "(page 3 of 3)" in last and last.count("• thing") == 19 - 2 * PAGE_SIZE
    assert last_buttons[-1] == [("‹", "pf:pg:1")]
    clamped, _ = render_profile(None, many, [], True, 99, UTC, "en")
    assert clamped == last


def test_memory_off_is_said_and_russian_is_used_for_russian_clients():
    body, _ = render_profile(None, FACTS, [], False, 0, UTC, "ru")
    assert "Память выключена" in body and "Работа и учёба" in body


def test_the_zone_line_and_a_plans_date_are_shown():
    plan = Fact("plans", "plan:exam", "exam", id=9, created_at=DAY, updated_at=DAY, when="2026-12-04T10:00")
    body, _ = render_profile("Anna", [*FACTS, plan], [], True, 0, UTC, "en", "Time zone: Europe/Kazan")
    assert body.splitlines()[1:3] == ["Name: Anna", "Time zone: Europe/Kazan"]
    assert "Plans and dates\n• exam (04.12.2026 10:00) — 29.11.2026" in body


def test_style_wishes_come_first_and_read_as_wishes():
    wishes = [fact(7, "style", "style:address", "ты"), fact(8, "style", "style:tone", "без воды")]
    body, buttons = render_profile("Anna", FACTS + wishes, [], True, 0, UTC, "ru")
    assert body.index("Как с тобой говорить") < body.index("Работа и учёба")
    assert "• Теперь на «ты» — 29.11.2026" in body and "• Теперь так: без воды — 29.11.2026" in body
    assert [row[0][1] for row in buttons][:2] == ["pf:del:7:0", "pf:del:8:0"]


def test_recent_conversation_lines_are_listed_on_the_first_page_with_a_delete_button_each():
    from memory.continuity import Topic

    topics = [Topic(f"line {i}", DAY, DAY, id=40 + i) for i in range(7)]
    body, buttons = render_profile("Anna", FACTS, [], True, 0, UTC, "en", topics=topics)
    assert "What we talked about lately:\n• 29.11.2026: line 0" in body
    assert [data for row in buttons for _, data in row if data.startswith("pf:tp:")] == [
        f"pf:tp:{40 + i}:0" for i in range(5)]
    many = [fact(i, "preferences", f"likes:t{i:02}", f"t {i}") for i in range(1, 20)]
    second, _ = render_profile(None, many, [], True, 1, UTC, "en", topics=topics)
    assert "What we talked about" not in second
