"""The pacing of drafts, and when their text is read (transport/streaming.py)."""

import asyncio

import pytest
from telegram.error import NetworkError

from transport.streaming import LATE_S, MAX_GAP, DraftPacer, Drafts, DraftStream, draft_text


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


class FakeBot:
    """Takes drafts (sendMessageDraft) as the Bot would, and notes their texts."""

    def __init__(self, failures: int = 0) -> None:
        self.drafts: list[str] = []
        self.failures = failures  # the first this many fail as the network would

    async def send_message_draft(self, chat_id: int, draft_id: int, text: str, **kwargs) -> bool:
        if self.failures:
            self.failures -= 1
            raise NetworkError("connection reset")
        self.drafts.append(text)
        return True


async def test_a_draft_stream_reads_the_text_only_when_a_draft_goes_out():
    """A hundred pieces come, a few drafts go: the text (echo-stripped by the companion, services/companion.py's
    DraftReader) is worked out for the drafts only, never once per piece."""
    bot, reads = FakeBot(), []
    stream = DraftStream(Drafts(True, 0.2), bot, chat_id=1, draft_id=7)
    text = ""
    for number in range(100):
        text += f"word{number} "
        stream.show(lambda text=text: reads.append(text) or text)
        await asyncio.sleep(0.005)
    await stream.close()
    assert 1 <= len(bot.drafts) <= 4 and len(reads) == len(bot.drafts)
    assert bot.drafts == [piece.strip() for piece in reads]  # each draft is the text read for it


async def test_a_due_draft_goes_out_with_the_text_just_read_and_says_when_the_next_may():
    """The draft rides on the read that brought the text (no wake-up of its own), and the reader is told when
    to read again for the next one."""
    bot, now = FakeBot(), [100.0]
    stream = DraftStream(Drafts(True, 1.0), bot, chat_id=1, draft_id=7, clock=lambda: now[0])
    assert stream.show(lambda: "Hello") == pytest.approx(0.15)  # the first words: the first draft in 0.15 s
    now[0] = 100.15
    assert stream.show(lambda: "Hello there") == pytest.approx(1.0)  # it goes now; the next in a second
    await asyncio.sleep(0)
    assert bot.drafts == ["Hello there"] and stream.sent == 1
    now[0] = 100.5
    assert stream.show(lambda: "Hello there, friend") == pytest.approx(0.65)
    await asyncio.sleep(0.05)
    assert bot.drafts == ["Hello there"]
    await stream.close()
    assert bot.drafts == ["Hello there"]  # nothing after close: the reply itself follows


async def test_a_draft_due_while_no_text_comes_goes_a_moment_later_with_what_there_is():
    bot = FakeBot()
    stream = DraftStream(Drafts(True, 0.2), bot, chat_id=1, draft_id=7)
    stream.show(lambda: "Hello")  # then the model pauses: no read shows anything
    await asyncio.sleep(0.15 + LATE_S + 0.1)
    assert bot.drafts == ["Hello"] and stream.sent == 1
    await stream.close()


async def test_a_draft_that_fails_is_tried_again_with_the_same_text():
    bot = FakeBot(failures=1)
    stream = DraftStream(Drafts(True, 0.2), bot, chat_id=1, draft_id=7)
    stream.show(lambda: "Hello")
    await asyncio.sleep(0.15 + LATE_S + 0.05)
    assert bot.drafts == [] and stream.sent == 0
    await asyncio.sleep(0.2 + LATE_S + 0.1)
    assert bot.drafts == ["Hello"] and stream.sent == 1
    await stream.close()


async def test_whoever_waits_for_a_draft_on_the_screen_is_told_once_one_is_there_not_when_one_fails():
    bot, told = FakeBot(failures=1), []
    stream = DraftStream(Drafts(True, 0.2), bot, chat_id=1, draft_id=7)
    stream.when_shown(lambda: told.append("first"))
    stream.show(lambda: "Hello")
    await asyncio.sleep(0.15 + LATE_S + 0.05)
    assert bot.drafts == [] and told == []  # the draft failed: "typing…" goes on
    await asyncio.sleep(0.2 + LATE_S + 0.1)
    assert bot.drafts == ["Hello"] and told == ["first"]
    stream.when_shown(lambda: told.append("late"))  # one is showing already: told at once
    assert told == ["first", "late"]
    await stream.close()


async def test_no_draft_goes_once_closed():
    bot = FakeBot()
    stream = DraftStream(Drafts(True, 0.2), bot, chat_id=1, draft_id=7)
    stream.show(lambda: "Hello")
    await stream.close()
    assert stream.show(lambda: "Hello there") is None
    await asyncio.sleep(0.15 + LATE_S + 0.1)
    assert bot.drafts == []


def test_later_drafts_come_further_apart_up_to_twice_the_interval():
    pacer = DraftPacer(1.0)
    pacer.begin(0.0)
    gaps = []
    for number, now in enumerate([0.15, 1.15, 2.65, 4.65, 6.65]):
        pacer.showed("x" * (number + 1), now)
        gaps.append(pacer.wait(now))
    assert gaps == pytest.approx([1.0, 1.5, 2.0, 2.0, 2.0]) and MAX_GAP == 2.0
    pacer.failed("xxxx")  # the last one did not show: the gap is the one before it
    assert pacer.wait(6.65) == pytest.approx(2.0) and pacer.shown == "xxxx"
    fresh = DraftPacer(1.0)
    fresh.showed("a", 0.0)
    fresh.showed("ab", 1.0)
    fresh.failed("a")
    assert fresh.wait(1.0) == pytest.approx(1.0)
