"""The pure pacing of drafts (handlers/transport/streaming.py)."""

import pytest

from handlers.transport.streaming import DraftPacer, draft_text


def test_the_first_draft_waits_a_moment_after_the_first_words():
    pacer = DraftPacer(0.6, first_delay=0.15)
    pacer.begin(100.0)
    assert pacer.wait(100.0) == pytest.approx(0.15)
    assert pacer.wait(100.1) == pytest.approx(0.05)
    assert pacer.wait(100.2) == 0.0
    pacer.begin(100.5)  # only the first words count
    assert pacer.wait(100.2) == 0.0


def test_later_drafts_wait_for_the_interval():
    pacer = DraftPacer(0.6)
    pacer.begin(99.0)
    pacer.showed("Hello", 100.0)
    assert pacer.wait(100.2) == pytest.approx(0.4)
    assert pacer.wait(100.6) == 0.0
    assert pacer.wait(105.0) == 0.0


def test_only_grown_text_is_worth_showing():
    pacer = DraftPacer(0.6)
    assert not pacer.worth_showing("")
    assert not pacer.worth_showing("   \n")
    assert pacer.worth_showing("Hel")
    pacer.showed("Hello", 1.0)
    assert not pacer.worth_showing("Hello")
    assert pacer.worth_showing("Hello, Ann")


def test_a_restarted_answer_waits_until_it_overtakes_what_is_shown():
    pacer = DraftPacer(0.6)
    pacer.showed("The first attempt got this far", 1.0)
    assert not pacer.worth_showing("The second")
    assert pacer.worth_showing("The second attempt is now a little longer")


def test_a_pause_holds_every_draft_until_it_ends():
    pacer = DraftPacer(0.6)
    pacer.begin(10.0)
    pacer.pause(3.0, now=10.0)
    assert pacer.wait(10.0) == 3.0
    pacer.showed("x", 10.0)
    assert pacer.wait(11.0) == pytest.approx(2.0)
    assert pacer.wait(13.0) == 0.0


def test_draft_calls_stay_within_seconds_over_interval_plus_one():
    pacer, sent = DraftPacer(0.6), 0
    now, text = 0.0, ""
    pacer.begin(now)
    while now < 10.0:  # a piece every 25 ms for 10 s, shown whenever the pacer allows
        text += "word "
        if pacer.wait(now) == 0.0 and pacer.worth_showing(text):
            pacer.showed(text, now)
            sent += 1
        now += 0.025
    assert sent <= 10.0 / 0.6 + 1


def test_a_draft_shows_the_piece_being_written_once_past_4096_characters():
    assert draft_text("short answer") == "short answer"
    first, second = "First paragraph. " * 180, "Second one. " * 100
    assert draft_text(first + "\n\n" + second) == second.strip()
    assert draft_text("") == ""
