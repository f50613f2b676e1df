from prompts.budget import estimate_tokens, fit_to_budget

SYSTEM = {"role": "system", "content": "s" * 396}  # 100 tokens


def said(role, tokens, tag=""):
    return {"role": role, "content": tag + "x" * (4 * (tokens - 1) - len(tag))}


def test_estimate_is_bytes_over_four_so_cyrillic_counts_double():
    assert estimate_tokens("") == 1
    assert estimate_tokens("a" * 400) == 101
    assert estimate_tokens("я" * 400) == 201


def test_no_budget_or_no_history_sends_everything():
    history = [said("user", 500), said("assistant", 500)]
    assert fit_to_budget(SYSTEM, history, 0) == [SYSTEM, *history]
    assert fit_to_budget(SYSTEM, [], 150) == [SYSTEM]


def test_the_oldest_messages_go_first_until_the_prompt_fits():
    history = [said("user", 100, "a"), said("assistant", 100, "b"), said("user", 100, "c"), said("user", 50, "d")]
    assert fit_to_budget(SYSTEM, history, 400) == [SYSTEM, *history[1:]]  # 100 + 100 + 100 + 50
    assert fit_to_budget(SYSTEM, history, 349) == [SYSTEM, *history[2:]]
    assert fit_to_budget(SYSTEM, history, 450) == [SYSTEM, *history]


def test_the_newest_message_is_kept_even_when_it_alone_is_over_budget():
    history = [said("user", 10), said("user", 5000, "huge")]
    assert fit_to_budget(SYSTEM, history, 300) == [SYSTEM, history[-1]]
    assert fit_to_budget(SYSTEM, history, 50) == [SYSTEM, history[-1]]  # the system message alone is over


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
