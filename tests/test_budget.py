from llm.roles import EARLIER
from prompts.budget import ELISION, SHORTEST, estimate_tokens, fit_to_budget, shorten

SYSTEM = {"role": "system", "content": "s" * 396}  # 100 tokens
HEADER = estimate_tokens(EARLIER)  # what a run starting with the companion's words adds to system message zero


def said(role, tokens, tag=""):
    return {"role": role, "content": tag + "x" * (4 * (tokens - 1) - len(tag))}


def words(role, tokens, tag="w"):
    """A message of `tokens` tokens in words of four tokens each, `tag` first and "end" last."""
    middle = " ".join(f"{tag}{i:0>14}" for i in range(tokens // 4 - 1))
    return {"role": role, "content": f"{middle} end{'x' * 12}"}


def test_estimate_is_bytes_over_four_so_cyrillic_counts_double():
    assert estimate_tokens("") == 1
    assert estimate_tokens("a" * 400) == 101
    assert estimate_tokens("я" * 400) == 201


def test_no_budget_or_no_history_sends_everything():
    history = [said("user", 500), said("assistant", 500)]
    assert fit_to_budget(SYSTEM, history, 0) == [SYSTEM, *history]
    assert fit_to_budget(SYSTEM, [], 150) == [SYSTEM]


def test_the_oldest_messages_go_first_until_the_prompt_fits():
    history = [said("user", 100, "a"), said("assistant", 100, "b"), said("user", 100, "c"),
               said("assistant", 100, "d"), said("user", 50, "e")]
    assert fit_to_budget(SYSTEM, history, 550) == [SYSTEM, *history]
    # Starting with the companion's words, the run carries the header it rides under in system message zero.
    assert fit_to_budget(SYSTEM, history, 450 + HEADER) == [SYSTEM, *history[1:]]
    assert fit_to_budget(SYSTEM, history, 449 + HEADER) == [SYSTEM, *history[2:]]
    assert fit_to_budget(SYSTEM, history, 350) == [SYSTEM, *history[2:]]  # the previous exchange, whole


def test_the_newest_message_is_kept_even_when_it_alone_is_over_budget():
    history = [said("user", 10), said("user", 5000, "huge")]
    assert fit_to_budget(SYSTEM, history, 300) == [SYSTEM, *history]  # the message before it is short: whole
    assert fit_to_budget(SYSTEM, history, 50) == [SYSTEM, *history]  # the system message alone is over


def test_a_long_reply_is_shortened_rather_than_the_previous_exchange_dropped():
    question, reply, newest = words("user", 40, "q"), words("assistant", 1024, "r"), words("user", 20, "n")
    history = [words("user", 30, "old"), words("assistant", 30, "older"), question, reply, newest]
    messages = fit_to_budget(SYSTEM, history, 400)
    assert messages[:2] == [SYSTEM, question] and messages[-1] == newest
    short = messages[2]
    assert short["role"] == "assistant" and ELISION in short["content"]
    assert sum(estimate_tokens(m["content"]) for m in messages) <= 400
    start, end = short["content"].split(ELISION)
    assert reply["content"].startswith(start + " ") and reply["content"].endswith(" " + end)
    assert end.endswith("endxxxxxxxxxxxx")  # its last words, often the question the new message answers


def test_the_previous_exchange_is_kept_however_little_room_is_left():
    history = [words("user", 500, "q"), words("assistant", 1024, "r"), words("user", 20, "n")]
    messages = fit_to_budget(SYSTEM, history, 120)  # room for the system message and the new message only
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert all(estimate_tokens(m["content"]) <= SHORTEST for m in messages[1:3])
    assert all(ELISION in m["content"] for m in messages[1:3])


def test_the_longer_message_of_the_exchange_gives_way_first():
    history = [words("user", 60, "q"), words("assistant", 1024, "r"), words("user", 20, "n")]
    messages = fit_to_budget(SYSTEM, history, 400)
    assert messages[1] == history[0]  # short enough to stay whole
    assert 400 - 100 - 60 - 20 - 4 < estimate_tokens(messages[2]["content"]) <= 400 - 100 - 60 - 20


def test_shorten_keeps_a_text_that_fits_and_cuts_one_that_does_not_at_word_boundaries():
    text = "The first sentence is here. " * 30 + "Did you like it?"
    assert shorten(text, 1000) == text
    short = shorten(text, 30)
    assert estimate_tokens(short) <= 30
    start, end = short.split(ELISION)
    assert text.startswith(start) and text.endswith(end) and end.endswith("Did you like it?")
    assert text[len(start)] == " " and text[len(text) - len(end) - 1] == " "
    assert shorten("x" * 400, 20) == ELISION.strip()  # one word longer than the room: nothing of it is cut off


def test_topic_lines_go_oldest_first_until_system_and_the_newest_message_fit():
    from prompts.budget import fit_with_lines

    def build(lines):
        return {"role": "system", "content": "s" * 396 + "".join("t" * 400 for _ in lines)}  # 100 each

    history = [said("user", 50), said("assistant", 50), said("user", 100)]
    messages = fit_with_lines(build, ["newest", "older", "oldest"], history, 400)
    assert estimate_tokens(messages[0]["content"]) <= 300  # 1 + 100 + 2×100: the oldest line went
    assert messages[-1] == history[-1]
    everything = fit_with_lines(build, ["a", "b"], history, 0)  # no budget: nothing dropped
    assert len(everything[0]["content"]) == 396 + 800 and len(everything) == 4
    assert fit_with_lines(build, [], history, 400)[0]["content"] == "s" * 396


def test_topic_lines_also_make_room_for_the_previous_exchange_at_its_shortest():
    from prompts.budget import fit_with_lines

    def build(lines):
        return {"role": "system", "content": "s" * 396 + "".join("t" * 400 for _ in lines)}  # 100 each

    history = [words("user", 200, "q"), words("assistant", 1024, "r"), words("user", 20, "n")]
    messages = fit_with_lines(build, ["newer", "older"], history, 330)
    assert len(messages[0]["content"]) == 396 + 400  # 300 + 20 fits 330, yet with 2 × 48 for the exchange not
    assert sum(estimate_tokens(m["content"]) for m in messages) <= 330
