"""send_text: what reaches Telegram for awkward answers (a recording fake of the Bot, no network)."""

from __future__ import annotations

from handlers.transport.replies import send_text


class RecordingBot:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_message(self, chat_id: int, text: str, **kwargs) -> None:
        assert text.strip(), "Telegram refuses an empty message"
        self.sent.append(text)


async def test_an_answer_ending_in_a_run_of_nul_bytes_sends_no_empty_piece():
    bot = RecordingBot()
    await send_text(bot, 1, "echo: " + "\x00" * 4097)  # the second piece held only NULs
    assert bot.sent == ["echo:"]


async def test_nul_bytes_inside_an_answer_are_dropped_and_the_rest_kept():
    bot = RecordingBot()
    await send_text(bot, 1, "a\x00b " + "word " * 1000)
    assert "".join(bot.sent).replace(" ", "") == "ab" + "word" * 1000
