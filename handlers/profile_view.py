"""The pure /profile page: facts grouped by category with dates, relations, delete and page buttons."""

from __future__ import annotations

from typing import Sequence
from zoneinfo import ZoneInfo

from handlers.notes import short, wish_line
from handlers.texts import CATEGORY_NAMES, language_of, text
from memory.continuity import Topic
from memory.facts import CATEGORIES, Fact, Relation, is_style
from memory.time.schedule import parse_when

PAGE_SIZE = 8
TOPICS_SHOWN = 5  # the newest conversation lines, on the first page
Buttons = list[list[tuple[str, str]]]  # rows of (label, callback data)


def page_count(facts: Sequence[Fact]) -> int:
    """Return how many pages the facts fill (at least one)."""
    return max(1, -(-len(facts) // PAGE_SIZE))


def profile_order(facts: Sequence[Fact]) -> list[Fact]:
    """Return the facts shown on /profile (not the name, which has its own line), by category, then key."""
    rank = {category: index for index, category in enumerate(CATEGORIES)}
    shown = [fact for fact in facts if fact.key != "name"]
    return sorted(shown, key=lambda f: (rank.get(f.category, len(rank)), f.key))


def render_profile(
    name: str | None,
    facts: Sequence[Fact],
    relations: Sequence[Relation],
    memory_on: bool,
    page: int,
    timezone: ZoneInfo,
    language_code: str | None,
    zone_line: str | None = None,
    topics: Sequence[Topic] = (),
) -> tuple[str, Buttons]:
    """Return the text and inline buttons of one /profile page; `page` is clamped to the pages there are.

    `zone_line` names the user's time zone and where it came from; dates are shown in `timezone`. `topics`
    (newest first) are the lines of recent conversations, listed on the first page with their own ✕.
    """
    ordered = profile_order(facts)
    pages = page_count(ordered)
    page = min(max(page, 0), pages - 1)
    shown = ordered[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    titles = CATEGORY_NAMES[language_of(language_code)]
    lines = [text("profile_title", language_code)]
    if pages > 1:
        lines[0] += f" ({text('profile_page', language_code, page=str(page + 1), pages=str(pages))})"
    if not memory_on:
        lines.append(text("memory_is_off", language_code))
    if name:
        lines.append(text("profile_name", language_code, name=name))
    if zone_line:
        lines.append(zone_line)
    category = None
    for fact in shown:
        if fact.category != category:
            category = fact.category
            lines += ["", titles.get(category, category)]
        learned = fact.updated_at.astimezone(timezone).strftime("%d.%m.%Y") if fact.updated_at else ""
        shown_as = wish_line(fact, language_code).removeprefix("✎ ") if is_style(fact) else fact.value
        lines.append(f"• {shown_as}{_when(fact.when)}{_past(fact, timezone, language_code)} — {learned}")
    links = _links(shown, facts, relations)
    if links:
        lines += ["", text("profile_links", language_code), *links]
    recent = [topic for topic in topics if topic.id is not None][:TOPICS_SHOWN] if page == 0 else []
    if recent:
        lines += ["", text("profile_topics", language_code)]
        lines += [f"• {topic.ended_at.astimezone(timezone):%d.%m.%Y}: {topic.text}" for topic in recent]
    lines += ["", text("profile_hint", language_code)]
    buttons: Buttons = [[(f"✕ {short(fact.value)}", f"pf:del:{fact.id}:{page}")] for fact in shown]
    buttons += [[(f"✕ {short(topic.text)}", f"pf:tp:{topic.id}:{page}")] for topic in recent]
    navigation = []
    if page > 0:
        navigation.append(("‹", f"pf:pg:{page - 1}"))
    if page < pages - 1:
        navigation.append(("›", f"pf:pg:{page + 1}"))
    if navigation:
        buttons.append(navigation)
    return "\n".join(lines), buttons


def _links(shown: Sequence[Fact], facts: Sequence[Fact], relations: Sequence[Relation]) -> list[str]:
    """Return compact lines for the relations that start at a fact on this page: 'engineer — works_at → Acme'."""
    by_key = {fact.key: fact for fact in facts}
    on_page = {fact.key for fact in shown}
    lines = []
    for relation in relations:
        source, target = by_key.get(relation.source_key), by_key.get(relation.target_key)
        if relation.source_key in on_page and source and target:
            lines.append(f"• {short(source.value)} — {relation.relation} → {short(target.value)}")
    return lines


def _past(fact: Fact, timezone: ZoneInfo, language_code: str | None) -> str:
    """Return ' (past since 01.12.2026)' or ' (died 30.11.2026)' for a fact that ended, '' for a current one."""
    if fact.ended is None:
        return ""
    ended = parse_when(fact.ended_on)
    day = ended[0] if ended else fact.ended_at.astimezone(timezone).date() if fact.ended_at else None
    date = f"{day:%d.%m.%Y}" if day else ""
    return f" ({text('profile_died' if fact.ended == 'died' else 'profile_past', language_code, date=date).strip()})"


def _when(when: str | None) -> str:
    """Return ' (04.12.2026 10:00)' for a dated fact, '' for any other."""
    parsed = parse_when(when)
    if parsed is None:
        return ""
    day, moment = parsed
    return f" ({day:%d.%m.%Y}{f' {moment:%H:%M}' if moment else ''})"

