"""The pure parts of the "✎" notes: what is confirmed, how it reads, and its Undo buttons."""

from handlers.notes import MAX_BUTTONS, UNDO_BUTTON, note_text, tag, to_confirm, undo_buttons, wish_line
from memory.facts import Fact

WISH = Fact("style", "style:tone", "no fluff", id=7)
CITY = Fact("location", "city", "Berlin", id=8)


def test_wishes_are_always_confirmed_other_facts_only_with_notify():
    assert to_confirm([WISH, CITY], notify=False) == [WISH]
    assert to_confirm([WISH, CITY], notify=True) == [WISH, CITY]
    assert to_confirm([CITY], notify=False) == []


def test_each_aspect_reads_as_a_wish_in_both_languages():
    assert wish_line(WISH, "en") == "✎ From now on: no fluff"
    assert wish_line(Fact("style", "style:address", "ты"), "ru") == "✎ Теперь на «ты»"
    assert wish_line(Fact("style", "style:avoid_words", "зайкой"), "ru") == "✎ Больше не говорю: зайкой"
    assert wish_line(Fact("style", "style:avoid_topics", "my ex"), "en") == "✎ From now on I won't bring up: my ex"
    assert wish_line(Fact("style", "style:made_up", "x"), "en") == "✎ From now on: x"


def test_a_note_lists_wishes_then_the_other_facts_in_one_line():
    assert note_text([CITY, WISH, Fact("pets", "pet:rex", "dog Rex", id=9)], "en") == (
        "✎ From now on: no fluff\n✎ remembered: Berlin; dog Rex"
    )


def test_one_fact_gets_a_plain_undo_several_get_one_each_named():
    [[(label, data)]] = undo_buttons([WISH], "en")
    assert label == "↩ Undo" and data == f"un:7:{tag('no fluff')}"
    rows = undo_buttons([WISH, CITY], "ru")
    assert [row[0][0] for row in rows] == ["↩ Отменить: no fluff", "↩ Отменить: Berlin"]


def test_buttons_are_valid_callback_data_and_capped():
    many = [Fact("preferences", f"likes:t{i}", "x" * 300, id=10**17 + i) for i in range(20)]
    rows = undo_buttons(many, "en")
    assert len(rows) == MAX_BUTTONS
    assert all(len(data.encode()) <= 64 and UNDO_BUTTON.fullmatch(data) for row in rows for _, data in row)
    assert all(len(label) <= 40 for row in rows for label, _ in row)


def test_facts_without_an_id_get_no_button():
    assert undo_buttons([Fact("style", "style:tone", "dry")], "en") == []


def test_the_tag_changes_with_the_value():
    assert tag("no fluff") != tag("no fluff!") and len(tag("")) == 8
