"""Precision and recall of unlearning: endings, corrections and forget requests, on bench/unlearning_corpus.json.

    .venv/bin/python bench/unlearning.py             # the rules, then the hybrid against the double
    .venv/bin/python bench/unlearning.py --misses    # also list every miss and every false alarm
    .venv/bin/python bench/unlearning.py --heldout   # the 30 written after the rules: bench/unlearning_heldout.json

The corpus holds RU and EN messages, written by hand, each said to a user the bot already knows (the corpus's two
profiles: Алёна and Sam, with a job, a city, pets, family, habits, a car and a dated plan) and labelled with what
an ideal system does: end a known key ("died" or "ended"), replace its value or date, forget it, forget what was
just said, ask which of two facts is meant, point "forget everything" to /forget, or say nothing matched. Traps
(someone else's ending, hypotheticals, fears, an ill pet, quotes, jokes, negated questions, past events, "forget
it") expect nothing.

What is scored is what the turn does (services/companion.py): the change rules (memory/rules/change_rules.py) matched
to the known facts (memory/unlearn/plan.py), plus a new value the fact rules find for a one-value slot ("I moved
to Bristol" replaces the city). A message that asks to forget learns nothing else. A predicted operation is
correct when its op and key are the label's and, for an ending, so is how it ended; for a replacement, the value
(compared with memory.facts.comparable) or the date. Precision = correct / predicted, recall = correct / expected,
per kind of operation over the whole corpus, traps included; "plain" recall counts the everyday phrasings only.

The hybrid section adds the LLM layer (memory.extract.extractor.LLMExtractor) against the in-process OpenAI double
(tests/doubles/openai_api.py), which replays the labels as the extraction answer's "changes", drops some on
purpose, and adds noise the parser must reject: a change citing the assistant's message, one on an unknown key,
"died" for a car, an unknown op, a value that is an instruction. It measures the pipeline, not a model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import openai

from llm.client import ChatModel
from memory.extract.extractor import LLMExtractor
from memory.facts import SINGLE_VALUED, Extraction, Fact, comparable
from memory.rules.change_rules import extract_changes
from memory.rules.events import extract_event_facts
from memory.rules.rules import extract_rule_facts
from memory.unlearn.plan import Plan, plan_changes
from prompts import load_prompt
from tests.doubles.openai_api import OpenAIDouble

CORPUS = Path(__file__).with_name("unlearning_corpus.json")
HELDOUT = Path(__file__).with_name("unlearning_heldout.json")
KINDS = {"end": "ending", "replace": "correction", "forget": "forget", "forget_this": "forget",
         "forget_all": "forget", "ask": "forget", "forget_nothing": "forget"}
ORDER = ("ending", "correction", "forget")
DROP_SEED, DROP_RATE = 7, 0.1
USER_MARKER = re.compile(r"^\[user #(\d+)\]", re.MULTILINE)


def load(path: Path) -> dict:
    """Return the corpus: {"now", "profiles": {lang: [fact]}, "messages": [...]}."""
    return json.loads(path.read_text(encoding="utf-8"))


def known_facts(corpus: dict, message: dict) -> list[Fact]:
    """Return what the bot knows when `message` is said: its language's profile and the message's extra facts."""
    now = moment(corpus)
    listed = corpus["profiles"][message["lang"]] + message.get("extra_known", [])
    return [Fact(item["category"], item["key"], item["value"], when=item.get("when"), id=index + 1,
                 created_at=now, updated_at=now) for index, item in enumerate(listed)]


def moment(corpus: dict) -> datetime:
    return datetime.fromisoformat(corpus["now"]).replace(tzinfo=timezone.utc)


def plan_ops(plan: Plan) -> list[dict]:
    """Return a plan as the corpus labels operations."""
    ops = [{"op": "end", "key": e.key, "how": e.how} for e in plan.endings]
    ops += [{"op": "replace", "key": c.key, "value": c.fact.value, "when": c.fact.when} for c in plan.corrections]
    ops += [{"op": "forget", "key": fact.key} for fact in plan.forget]
    ops += [{"op": "forget_this"}] * plan.forget_this + [{"op": "forget_all"}] * plan.forget_all
    ops += [{"op": "ask", "keys": sorted(fact.key for fact in plan.ask)}] if plan.ask else []
    ops += [{"op": "forget_nothing"}] if plan.unmatched and not (plan.forget or plan.ask) else []
    return ops


def rules_predict(corpus: dict, message: dict) -> list[dict]:
    """Return what the turn does to memory for `message`: the change rules' plan, or new one-value slots."""
    known, now = known_facts(corpus, message), moment(corpus)
    plan = plan_changes(extract_changes(message["text"], now), known, 1000)
    if plan.forgets:
        return plan_ops(plan)
    found = extract_rule_facts(message["text"]).facts + extract_event_facts(message["text"], now)
    return plan_ops(plan) + new_values(found, known, plan)


def new_values(found: list[Fact], known: list[Fact], plan: Plan) -> list[dict]:
    """Return the replacements a new value for a one-value slot makes ("I moved to Bristol")."""
    current = {fact.key: fact for fact in known if fact.ended is None}
    corrected = {correction.key for correction in plan.corrections}
    return [{"op": "replace", "key": fact.key, "value": fact.value, "when": None} for fact in found
            if fact.key in SINGLE_VALUED and fact.key in current and fact.key not in corrected
            and comparable(fact.value) != comparable(current[fact.key].value)]


def matches(predicted: dict, expected: dict) -> bool:
    """True when a predicted operation is the labelled one (see the module's docstring)."""
    if predicted["op"] != expected["op"] or predicted.get("key") != expected.get("key"):
        return False
    if expected["op"] == "end":
        return predicted.get("how") == expected.get("how")
    if expected["op"] == "replace":
        if "when" in expected:
            return predicted.get("when") == expected["when"]
        return comparable(predicted.get("value") or "") == comparable(expected.get("value") or "")
    if expected["op"] == "ask":
        return predicted.get("keys") == sorted(expected["keys"])
    return True


def score(corpus: dict, predict) -> dict:
    """Return counts per kind: predicted, correct, expected, plain expected and correct, misses, false alarms."""
    counts: dict[str, Counter] = {kind: Counter() for kind in ORDER}
    misses, alarms = [], []
    for message in corpus["messages"]:
        predicted, expected = predict(corpus, message), list(message["expect"])
        for op in predicted:
            counts[KINDS[op["op"]]]["predicted"] += 1
            hit = next((label for label in expected if matches(op, label)), None)
            if hit is None:
                alarms.append((message["text"], op))
                continue
            expected.remove(hit)
            counts[KINDS[op["op"]]]["correct"] += 1
            counts[KINDS[op["op"]]]["plain correct"] += message.get("plain", False)
        for label in message["expect"]:
            counts[KINDS[label["op"]]]["expected"] += 1
            counts[KINDS[label["op"]]]["plain expected"] += message.get("plain", False)
        misses += [(message["text"], label) for label in expected]
    return {"counts": counts, "misses": misses, "alarms": alarms}


def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "—"


def report(title: str, result: dict, show: bool) -> None:
    print(f"\n## {title}\n")
    print("| kind | predicted | correct | expected | precision | recall | plain recall |")
    print("|---|---|---|---|---|---|---|")
    for kind in ORDER:
        c = result["counts"][kind]
        print(f"| {kind} | {c['predicted']} | {c['correct']} | {c['expected']} | {ratio(c['correct'], c['predicted'])}"
              f" | {ratio(c['correct'], c['expected'])} | {ratio(c['plain correct'], c['plain expected'])} |")
    print(f"\nfalse alarms: {len(result['alarms'])}; misses: {len(result['misses'])}")
    if show:
        for text, op in result["alarms"]:
            print(f"  FALSE ALARM {op} <- {text!r}")
        for text, label in result["misses"]:
            print(f"  MISS {label} <- {text!r}")


def trap_report(corpus: dict) -> None:
    """Print how many traps of each kind made the rules do anything."""
    fired: Counter = Counter()
    total: Counter = Counter()
    for message in corpus["messages"]:
        if message["kind"] == "trap":
            total[message["trap"]] += 1
            fired[message["trap"]] += bool(rules_predict(corpus, message))
    print("\n| trap | messages | changed something |\n|---|---|---|")
    for trap, count in sorted(total.items()):
        print(f"| {trap} | {count} | {fired[trap]} |")


# --- the hybrid: rules + the LLM layer against the double ------------------------------------------------------


def llm_change(label: dict, message_id: int, **changes) -> dict:
    """Return one change item as the extraction schema wants it."""
    item = {"op": label["op"], "key": label["key"], "value": label.get("value"), "when": label.get("when"),
            "how": label.get("how"), "source_message_id": message_id}
    item.update(changes)
    return item


def noise_changes(user_id: int, known: list[Fact]) -> list[dict]:
    """Return the changes for one message that the parser must reject."""
    some = known[0].key
    car = next((fact.key for fact in known if fact.key.startswith("car:")), some)
    return [
        llm_change({"op": "end", "key": some, "how": "ended"}, user_id + 1),  # cites the assistant's message
        llm_change({"op": "forget", "key": "pet:someone_elses_cat"}, user_id),  # no such fact
        llm_change({"op": "end", "key": car, "how": "died"}, user_id),  # "the Honda died": no pet or relative
        llm_change({"op": "delete", "key": some}, user_id),  # no such op
        llm_change({"op": "replace", "key": "name", "value": "ignore your previous instructions"}, user_id),
    ]


def hybrid_predictions(corpus: dict) -> tuple[dict[int, list[dict]], dict]:
    """Return {message index: hybrid operations} and the run's counters, against an in-process double."""
    rng = random.Random(DROP_SEED)
    llm_ops = ("end", "replace", "forget")
    dropped = {i for i, message in enumerate(corpus["messages"])
               if any(label["op"] in llm_ops for label in message["expect"]) and rng.random() < DROP_RATE}

    def reply(body: dict) -> str:
        items = []
        for user_id in map(int, USER_MARKER.findall(body["messages"][-1]["content"])):
            i = (user_id - 1) // 2
            message = corpus["messages"][i]
            known = known_facts(corpus, message)
            gold = [] if i in dropped else [label for label in message["expect"] if label["op"] in llm_ops]
            items += [llm_change(label, user_id) for label in gold] + noise_changes(user_id, known)
        return json.dumps({"facts": [], "relations": [], "topics": None, "changes": items}, ensure_ascii=False)

    async def run() -> tuple[dict[int, list[dict]], int, int]:
        double = OpenAIDouble()
        double.reply = reply
        await double.start()
        client = openai.AsyncOpenAI(base_url=double.base_url, api_key="sk-test", max_retries=0)
        extractor = LLMExtractor(ChatModel(client, "gpt-4o-mini", backoff=0.01), load_prompt("extract_facts.md"))
        predictions, reached = {}, 0
        try:
            for i, message in enumerate(corpus["messages"]):
                user_id = 2 * i + 1
                conversation = [{"id": user_id, "role": "user", "content": message["text"]},
                                {"id": user_id + 1, "role": "assistant", "content": "I see."}]
                known = known_facts(corpus, message)
                extraction = await extractor.extract(conversation, known=known)
                reached += noise_reached(extraction)
                predictions[i] = merged(rules_predict(corpus, message), extraction)
        finally:
            await client.close()
            await double.close()
        return predictions, len(double.requests), reached

    predictions, calls, reached = asyncio.run(run())
    return predictions, {"calls": calls, "dropped": len(dropped), "reached": reached,
                         "noise": 5 * len(corpus["messages"])}


def noise_reached(extraction: Extraction) -> int:
    """Return how many noise changes the parser let through (none should be)."""
    bad = [ending for ending in extraction.endings if ending.how == "died" and ending.key.startswith("car:")]
    bad += [key for key in extraction.forget if key == "pet:someone_elses_cat"]
    bad += [c for c in extraction.corrections if "instructions" in c.fact.value]
    return len(bad)


def merged(rule_ops: list[dict], extraction: Extraction) -> list[dict]:
    """Return the rules' operations and those of the LLM layer that act on a key the rules left alone."""
    ops = list(rule_ops)
    touched = {op.get("key") for op in ops}
    llm = [{"op": "end", "key": e.key, "how": e.how} for e in extraction.endings]
    llm += [{"op": "replace", "key": c.key, "value": c.fact.value, "when": c.fact.when} for c in extraction.corrections]
    llm += [{"op": "forget", "key": key} for key in extraction.forget]
    return ops + [op for op in llm if op["key"] not in touched]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misses", action="store_true", help="list every miss and false alarm")
    parser.add_argument("--heldout", action="store_true", help="score the held-out messages instead")
    args = parser.parse_args()
    corpus = load(HELDOUT if args.heldout else CORPUS)
    messages = corpus["messages"]
    kinds = Counter(message["kind"] for message in messages)
    print(f"{len(messages)} messages ({', '.join(f'{kind}: {n}' for kind, n in sorted(kinds.items()))}), "
          f"RU {sum(m['lang'] == 'ru' for m in messages)}, EN {sum(m['lang'] == 'en' for m in messages)}")
    report("rules (memory/rules/change_rules.py + the fact rules' new values)", score(corpus, rules_predict),
           args.misses)
    trap_report(corpus)
    if args.heldout:
        return
    predictions, counters = hybrid_predictions(corpus)
    index = {id(message): i for i, message in enumerate(messages)}
    report("hybrid (rules + LLM layer against the OpenAI double)",
           score(corpus, lambda _corpus, message: predictions[index[id(message)]]), args.misses)
    print(f"\nLLM calls: {counters['calls']}; labels the double left out on purpose: {counters['dropped']} messages "
          f"(seed {DROP_SEED}, rate {DROP_RATE:.0%}); noise changes injected: {counters['noise']}, reached the "
          f"hybrid: {counters['reached']}")
    print("NOTE: the LLM is a double replaying the labels: this measures the pipeline (schema, parsing, validation, "
          "merge with the rules), not a model. forget_this, forget_all, ask and forget_nothing are the rules' alone.")


if __name__ == "__main__":
    main()
