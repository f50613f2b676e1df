"""Reasoning models' thinking told apart from their answer: whole texts, streams piece by piece, the cap's room."""

from __future__ import annotations

import random

import pytest

from llm.server import ServerFeatures
from llm.thinking import ThinkingSplitter, opened_in_prompt, reasoning_of, reasoning_tokens, split_thinking

# ----- whole answers -----


@pytest.mark.parametrize(
    ("text", "thinking", "answer"),
    [
        ("<think>\nThe user greets me.\n</think>\n\nHello!", "The user greets me.", "Hello!"),
        ("<think>a</think>Hello", "a", "Hello"),
        ("\n  <think>a</think>  \n\t Hello", "a", "Hello"),  # whitespace before the block and after it
        ("<thinking>plan</thinking>\nHi", "plan", "Hi"),
        ("<THINK>loud</THINK>Hi", "loud", "Hi"),
        ("<think></think>Hi", "", "Hi"),  # Qwen3 with thinking off: an empty block
        ("<think>\n\n</think>\n\n", "", ""),
        # A cut answer: the block never closed, so all of it is thinking.
        ("<think>Let me consider the options", "Let me consider the options", ""),
        ("<thinking>still", "still", ""),
        # The template opened the block in the prompt: only its end comes.
        ("Okay, the user wants a joke.\n</think>\n\nWhy did…", "Okay, the user wants a joke.", "Why did…"),
        ("</think>\n\nHi", "", "Hi"),
        ("thought</thinking>answer", "thought", "answer"),
        # Nested-looking text: the first closing tag of the block's own name ends it.
        ("<think>I could write <think> here</think>The answer", "I could write <think> here", "The answer"),
        ("<think>a<think>b</think>c</think>d", "a<think>b", "c</think>d"),
        ("<think>mentions </thinking> on the way</think>Hi", "mentions </thinking> on the way", "Hi"),
    ],
)
def test_a_leading_block_or_a_closing_tag_before_any_opening_is_thinking(text, thinking, answer):
    assert split_thinking(text) == (thinking, answer)


@pytest.mark.parametrize(
    "text",
    [
        "Hello there",
        "",
        "Wrap your reasoning in <think> tags, like <think>this</think>.",  # asked about the tags mid-answer
        "Sure: <think>",
        "The tag <thinking> opens it and </thinking> closes it.",
        "<b>bold</b> is not thinking",
        "<thinker>is a word</thinker>",
        "think about it </ think>",
    ],
)
def test_text_without_leading_thinking_is_all_answer(text):
    assert split_thinking(text) == ("", text)
    assert not opened_in_prompt(text)


def test_a_text_closing_a_block_it_never_opened_was_opened_in_the_prompt():
    assert opened_in_prompt("reasoning\n</think>\n\nanswer")
    assert opened_in_prompt("</thinking>answer")
    assert not opened_in_prompt("<think>a</think>b")
    assert not opened_in_prompt("a <think> b </think> c")


def test_once_the_prompt_is_known_to_open_the_block_text_up_to_the_first_close_is_thinking():
    assert split_thinking("about <think> tags</think>Answer", opened=True) == ("about <think> tags", "Answer")
    assert split_thinking("cut off mid-thought", opened=True) == ("cut off mid-thought", "")
    assert split_thinking("<think>a</think>b", opened=True) == ("a", "b")


# ----- streams -----


def fed(pieces: list[str], opened: bool = False) -> list[str]:
    splitter = ThinkingSplitter(opened)
    return [splitter.feed(piece) for piece in pieces]


def test_a_block_split_across_pieces_shows_nothing_until_it_closes():
    assert fed(["<thi", "nk>", "The user", " asks", "</thi", "nk>", "\n\n", "Hel", "lo"]) == [
        "", "", "", "", "", "", "", "Hel", "Hello"]


def test_a_block_that_never_closes_shows_nothing():
    assert fed(["<think>", "a long thought"] + ["more "] * 50) == [""] * 52


def test_plain_text_is_shown_from_its_first_words():
    assert fed(["Hel", "lo ", "there"]) == ["Hel", "Hello ", "Hello there"]


def test_leading_whitespace_and_the_start_of_a_tag_wait():
    assert fed(["\n", " ", "<", "t", "h", "ink>", "x", "</think>", "Hi"]) == ["", "", "", "", "", "", "", "", "Hi"]
    assert fed(["<", "b>bold"]) == ["", "<b>bold"]
    assert fed(["</", "think>", "Hi"]) == ["", "", "Hi"]
    assert fed(["<thinking", ">", "x", "</thinking>", " Yes"]) == ["", "", "", "", "Yes"]


def test_a_tag_mentioned_mid_answer_is_shown_as_it_is():
    assert fed(["Use ", "<think>", " tags", "</think>", "."])[-1] == "Use <think> tags</think>."


def test_an_unexpected_closing_tag_moves_the_answer_past_it():
    # The first time a template opens the block in the prompt, the thinking shows until its end comes.
    assert fed(["Okay, ", "the user", "</think>", "\n\nHi"]) == ["Okay, ", "Okay, the user", "", "Hi"]


def test_when_the_prompt_opens_the_block_nothing_shows_before_its_end():
    assert fed(["Okay, ", "the user", "</th", "ink>", "\n\n", "Hi"], opened=True) == ["", "", "", "", "", "Hi"]
    assert fed(["no thinking this time"], opened=True) == [""]


PIECES = ["<think>", "</think>", "<thinking>", "</thinking>", "<", "</", "think", ">", "\n", " ", "Hi", "a.",
          "<b>", "ok", "</th", "ink>", "<thi", "nking>", "\x00"]


@pytest.mark.parametrize("opened", [False, True])
def test_a_stream_cut_anywhere_agrees_with_the_whole_text(opened):
    """Any text, cut into pieces anywhere: each step tells what split_thinking tells of the text so far,
    except that the start of a tag waits; at the end, exactly what it tells of the whole."""
    rng = random.Random(40)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 6)))) if len(text) > 1 else []
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)] if text else []
        splitter, so_far = ThinkingSplitter(opened), ""
        for piece in pieces:
            so_far += piece
            head = so_far.lstrip().lower()
            waits = any(tag.startswith(head) and len(head) < len(tag)
                        for tag in ("<think>", "<thinking>", "</think>", "</thinking>"))
            expected = "" if waits else split_thinking(so_far, opened)[1].lstrip()
            assert splitter.feed(piece) == expected, (pieces, so_far)


def test_a_long_thought_streamed_token_by_token_shows_nothing_then_the_answer():
    splitter = ThinkingSplitter()
    assert splitter.feed("<think>") == ""
    assert all(splitter.feed("hmm ") == "" for _ in range(20000))
    assert splitter.feed("</thi") == "" and splitter.feed("nk> done") == "done"
    assert splitter.feed(" and dusted") == "done and dusted"


# ----- reasoning fields and usage -----


def test_reasoning_comes_from_either_field():
    assert reasoning_of(dict(reasoning_content="a", content="x")) == "a"
    assert reasoning_of(dict(reasoning="b", content="")) == "b"
    assert reasoning_of(dict(reasoning_content=None, reasoning="c")) == "c"
    assert reasoning_of(dict(content="x")) == ""
    assert reasoning_of(dict(reasoning_content=17)) == ""


def test_reasoning_tokens_are_read_from_usage_where_counted():
    assert reasoning_tokens(dict(completion_tokens_details=dict(reasoning_tokens=300))) == 300
    assert reasoning_tokens(dict(completion_tokens_details=dict(reasoning_tokens=0))) == 0
    assert reasoning_tokens(dict(completion_tokens_details=None)) == 0
    assert reasoning_tokens(None) == 0


# ----- the cap's room for thinking -----


def test_the_cap_gets_room_for_thinking_once_the_model_is_seen_thinking(caplog):
    features = ServerFeatures()
    assert features.answer_cap(1024) == 1024 and features.answer_cap(None) is None
    caplog.set_level("INFO")
    features.learn_thinking("its answers hold a <think> block")
    features.learn_thinking("again")
    assert features.answer_cap(1024) == 2048 and features.answer_cap(3072) == 6144
    assert len([r for r in caplog.records if "thinking:" in r.getMessage()]) == 1


def test_a_set_room_is_always_added_and_half_the_context_window_bounds_it():
    features = ServerFeatures(reasoning_tokens=500)
    assert features.answer_cap(1024) == 1524
    features.learn_thinking("seen")
    assert features.answer_cap(1024) == 1524
    features.learn_context(4096, "stated")
    assert features.answer_cap(1024) == 1524  # 2048 is half
    assert features.answer_cap(1800) == 2048
    assert features.answer_cap(3072) == 3072  # never less than asked for


def test_a_template_that_opens_the_thinking_is_noted_once(caplog):
    features = ServerFeatures()
    caplog.set_level("INFO")
    features.learn_thinking("a block", in_prompt=True)
    features.learn_thinking("a block", in_prompt=True)
    assert features.thinks and features.thinking_in_prompt
    assert len([r for r in caplog.records if "opens it in the prompt" in r.getMessage()]) == 1
