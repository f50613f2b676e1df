"""Cost report: prompt tokens per turn and model calls for memory upkeep over a long LoCoMo conversation.

One speaker of a LoCoMo conversation is the user: their turns go, in order, as Telegram messages from one
user to the real Application (python-telegram-bot, handlers, rules, SQLite store in a temp dir, JobQueue
upkeep), which talks to the Bot API and OpenAI doubles on loopback. The other speaker's turns are not sent.
The chat model answers every turn with a fixed ~60-token reply; asked to extract, it answers with LoCoMo's
observations of the user whose dia_id is among the messages of that batch, each citing the bot's id of
its source message. Each LoCoMo session ends with an idle pause: the bot's idle sweep extracts then.

Measured, per turn: prompt tokens of the chat completion the bot sent (count of the OpenAI double:
len(text) // 4 + 1 per message; tiktoken is not installed), against a full-history baseline computed from
the same transcript (persona-only system message + every earlier user message and bot reply + the new
message); and, cumulatively, the model calls memory upkeep made, counted from the double's recorded
requests: extraction completions (requests with response_format), fact-embedding requests (upkeep) and
query-embedding requests (recall of the message; one per turn once the user has more facts than
MEMORY_PROMPT_FACTS). Merging makes no call: it is pure code in the store.

Also measured, from the second turn on: how much of the chat request a server could reuse, the longest
common prefix with the previous turn's request (llama.cpp keeps the longest common prefix of consecutive
prompts; hosted providers cache prefixes). Each request's messages as the server saw them, serialised as
their roles and contents one after another; the prefix in tokens by the bot's own estimate
(llm/tokens.py) and as a share of the whole request; median and quartiles over the run.

    .venv/bin/python bench/cost.py                  # the longest dev conversation, about 45 s
    .venv/bin/python bench/cost.py --turns 40       # a quick run
    .venv/bin/python bench/cost.py --conv conv-26 --speaker Caroline --json
    .venv/bin/python bench/cost.py --conv all       # the prefix figures of every conversation, about 2 min
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import os
import re
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PTB_TIMEDELTA", "true")

from bench.recall_data import DATA, dia_ids, session_dates, session_of  # noqa: E402
from llm.tokens import estimate_tokens  # noqa: E402
from memory.facts import slug  # noqa: E402
from prompts.system import build_system_message  # noqa: E402
from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.doubles.openai_api import count_tokens, message_text  # noqa: E402
from tests.harness import make_config, running_bot  # noqa: E402

USER_ID = 5001
REPLY = ("That sounds like a lot, and I'm really glad you told me about it. How are you feeling about it now? "
         "I'd love to hear more about what happened next and who was there with you. Take your time, "
         "I'm here and listening. What was the best part?")
# (category, key family, importance) by the first keyword found in an observation; else personal/note/5.
KINDS = [
    (r"wife|husband|kids?|son|daughter|mother|mom|dad|father|sister|brother|family|parents", "family", "family", 7),
    (r"dog|cat|pet|puppy|kitten", "pets", "pet", 7),
    (r"job|work|career|company|business|boss|colleague|team|coach|school|study", "career", "work", 6),
    (r"lives|moved|city|country|trip|travel|visit", "location", "place", 5),
    (r"likes?|loves?|enjoys?|hobby|favou?rite|plays?|reading|book|music|game|watch", "interests", "likes", 5),
]
FACT_LINE = re.compile(r'^- .*"', re.M)  # a fact line of system message zero (values are quoted)
MARKS = (1, 20, 50, 100, 200, 300, 400, 500, 600)


def load(path: Path, conv: str | None, speaker: str | None):
    """Return (sample id, user name, the user's sessions as [[(dia_id, text)]], dia_id → observations, turns)."""
    samples = json.loads(path.read_text(encoding="utf-8"))

    def sessions_of(sample: dict) -> list[list[dict]]:
        talk = sample["conversation"]
        names = sorted((k for k in talk if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
        return [talk[name] for name in names]

    if conv is None:  # the longest: the most turns
        sample = max(samples, key=lambda s: sum(len(session) for session in sessions_of(s)))
    else:
        sample = next((s for s in samples if s["sample_id"] == conv), None)
        if sample is None:
            sys.exit(f"no conversation {conv!r} in {path}; have {', '.join(s['sample_id'] for s in samples)}")
    observed: dict[str, dict[str, list[str]]] = {}
    for per_speaker in sample["observation"].values():
        for name, items in per_speaker.items():
            for text, raw in items:
                for dia in dia_ids(raw):
                    observed.setdefault(name, {}).setdefault(dia, []).append(text)
    names = (sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"])
    # The user is the speaker with more observations (more to remember), unless named.
    user = speaker or max(names, key=lambda n: sum(len(v) for v in observed.get(n, {}).values()))
    if user not in names:
        sys.exit(f"{user!r} is not a speaker of {sample['sample_id']}: {', '.join(names)}")
    sessions = [[(t["dia_id"], t["text"]) for t in session if t["speaker"] == user and t["text"].strip()]
                for session in sessions_of(sample)]
    total = sum(len(session) for session in sessions_of(sample))
    return sample["sample_id"], user, [s for s in sessions if s], observed.get(user, {}), total, sample


def observation_fact(text: str, user: str, message_id: int, n: int) -> dict:
    """Return an extraction item for one observation sentence, with a category and a multi-valued key."""
    category, family, importance = "personal", "note", 5
    for pattern, *kind in KINDS:
        if re.search(rf"\b(?:{pattern})\b", text, re.IGNORECASE):
            category, family, importance = kind
            break
    words = re.sub(rf"^{re.escape(user)}('s)?\s+", "", text)
    return {"category": category, "key": f"{family}:{slug(words)[:32]}_{n}", "value": text,
            "importance": importance, "confidence": 0.9, "source_message_id": message_id}


class LoCoMoModel(OpenAIDouble):
    """The OpenAI double answering chat turns with REPLY and extraction calls with LoCoMo's observations."""

    def __init__(self, user: str, observations: dict[str, list[str]], summaries: dict[int, str]) -> None:
        super().__init__()
        self.user, self.observations, self.summaries = user, observations, summaries
        self.dia_by_line: dict[str, list[str]] = {}  # first line of a sent message → its dia_ids
        self.facts_given = 0
        self.reply = self.answer

    def sent(self, dia_id: str, text: str) -> None:
        self.dia_by_line.setdefault(text.splitlines()[0].strip(), []).append(dia_id)

    def answer(self, body: dict) -> str:
        if "response_format" not in body:
            return REPLY
        facts, sessions = [], []
        for message_id, line in re.findall(r"^\[user #(\d+)\] (.*)$", body["messages"][-1]["content"], re.M):
            for dia in dict.fromkeys(self.dia_by_line.get(line.strip(), [])):
                sessions.append(session_of(dia))
                for text in self.observations.get(dia, []):
                    facts.append(observation_fact(text, self.user, int(message_id), self.facts_given))
                    self.facts_given += 1
        # The conversation's topic line: LoCoMo's own summary of the session (the bot caps it at 200 characters).
        topics = self.summaries.get(sessions[-1]) if sessions else None
        return json.dumps({"facts": facts, "relations": [], "topics": topics})


def serialised(messages: list[dict]) -> str:
    """Return a chat request's messages as a server's template lays them out: each role, then its text."""
    return "".join(f"<{m['role']}>\n{message_text(m['content'])}\n" for m in messages)


def shared_prefix(previous: str, current: str) -> tuple[int, float, str]:
    """Return the tokens of the longest common prefix of two serialised requests (llm/tokens.py's estimate),
    their share of `current`'s tokens, and the part of the request where they part: a section of system
    message zero by its heading, or the session's messages."""
    common = os.path.commonprefix([previous, current])
    shared = estimate_tokens(common) if common else 0
    system_end = current.find("\n<", 1)
    if system_end != -1 and len(common) > system_end:
        part = "the session's messages"
    else:
        headings = re.findall(r"^## (.+)$", common, re.M)
        part = headings[-1] if headings else "the persona"
    return shared, shared / estimate_tokens(current), part


def tokens(messages: list[dict]) -> int:
    """Prompt tokens of a chat request, as the double's usage block counts them."""
    return sum(count_tokens(message_text(m["content"])) for m in messages)


async def settle(app, timeout: float = 60.0) -> None:
    """Wait until the idle sweep has read every user message and (if embedded eagerly) every fact has a vector."""
    store, recaller = app.bot_data.store, app.bot_data.keeper.recaller
    deadline = time.monotonic() + timeout

    async def embedding_due() -> bool:  # a remote embedder embeds new facts with the next query instead
        return recaller.embeds_eagerly and bool(await store.facts.facts_to_embed(USER_ID, recaller.embedder.name))

    while await store.facts.unread_count(USER_ID) or await embedding_due():
        if time.monotonic() > deadline:
            raise RuntimeError("memory upkeep did not finish in time")
        await asyncio.sleep(0.05)


async def replay(args) -> dict:
    sample_id, user, sessions, observations, total, sample = load(args.data, args.conv, args.speaker)
    summaries = {int(re.search(r"\d+", key).group()): text for key, text in sample["session_summary"].items()}
    telegram, model = TelegramDouble(), LoCoMoModel(user, observations, summaries)
    dates, clock = session_dates(sample), Clock()
    await telegram.start()
    await model.start()
    # (dia_id, text, last of its session), in order; LoCoMo's sessions are days apart: idle points.
    turns = [(dia, text, i == len(s) - 1) for s in sessions for i, (dia, text) in enumerate(s)]
    sent, out = turns[: args.turns or len(turns)], args.out
    print(f"LoCoMo {sample_id}: {total} turns in {len(sessions)} sessions; the user is {user}: "
          f"{len(turns)} turns ({sum(len(v) for v in observations.values())} observations), {len(sent)} sent", file=out)
    rows, sent_texts, transcript, previous = [], set(), [], None
    with tempfile.TemporaryDirectory() as folder:
        config = make_config(telegram, model, Path(folder) / "bot.db", telegram_max_rate=0,
                             memory_extract_delay_s=args.idle, memory_max_facts=args.max_facts,
                             history_limit=args.history_limit, embeddings=args.embeddings,
                             proactive=False)  # its clock is LoCoMo's, years ago: every check-in would be due
        print(f"settings: HISTORY_LIMIT {config.history_limit}, PROMPT_MAX_TOKENS {config.prompt_max_tokens},"
              f" MEMORY_EXTRACT_EVERY {config.memory_extract_every},"
              f" MEMORY_MAX_FACTS {config.memory_max_facts}, MEMORY_PROMPT_FACTS {config.memory_prompt_facts},"
              f" EMBEDDINGS {config.embeddings}, idle delay {config.memory_extract_delay_s:g} s (production 30 s)",
              file=out)
        async with running_bot(config, clock=clock) as app:
            persona, store = app.bot_data.companion.persona, app.bot_data.store
            for turn, (dia_id, text, session_end) in enumerate(sent, 1):
                clock.step(dates.get(session_of(dia_id)))
                model.sent(dia_id, text)
                sent_texts.add(text)
                telegram.push_text(USER_ID, text, first_name=user)
                await telegram.wait_for_sent(USER_ID, turn, timeout=30)
                request = [r for r in model.requests if "response_format" not in r][-1]
                system = request["messages"][0]
                persona_only = build_system_message(persona, None, [], now=datetime.now(timezone.utc),
                                                    previous=None, timezone=config.tz, display_name=user)
                transcript.append(request["messages"][-1])  # the user's message as the bot stored it
                seen = serialised(request["messages"])
                prefix, share, part = shared_prefix(previous, seen) if previous is not None else (None, None, None)
                previous = seen
                block = last_time(system["content"])
                rows.append(dict(turn=turn, session=session_of(dia_id),
                                 topic_tokens=count_tokens(block) if block else 0,
                                 topic_lines=[line.split(":")[0][2:] for line in block.splitlines()
                                              if line.startswith("- ")], block=block.strip(),
                                 facts=len(await store.facts.facts(USER_ID)), prompt=tokens(request["messages"]),
                                 history=len(request["messages"]) - 1,
                                 system=tokens([system]), persona=tokens([persona_only]),
                                 prompt_facts=len(FACT_LINE.findall(about(system["content"]))),
                                 baseline=tokens([persona_only, *transcript]), prefix=prefix,
                                 prefix_share=share, prefix_part=part, **counts(model, sent_texts)))
                transcript.append({"role": "assistant", "content": REPLY})
                if session_end:
                    clock.idle()
                    await settle(app)  # the session is over: days pass, the idle sweep extracts
            clock.idle()
            await settle(app)
            rows[-1].update(facts=len(await store.facts.facts(USER_ID)), **counts(model, sent_texts))
    await model.close()
    await telegram.close()
    return dict(conversation=sample_id, user=user, turns_in_conversation=total, user_turns=len(turns),
                sent=len(sent), observations_given=model.facts_given, rows=rows, config=dict(
                    history_limit=config.history_limit, extract_every=config.memory_extract_every,
                    max_facts=config.memory_max_facts, prompt_facts=config.memory_prompt_facts,
                    embeddings=config.embeddings))


class Clock:
    """The bot's clock during the replay: LoCoMo's date for the first message of a session, half a second
    per message after it (under the idle delay, as when the turns were sent in real time: no idle pass
    mid-session), an hour of silence when a session ends (so the idle sweep extracts)."""

    def __init__(self) -> None:
        self.now = datetime(2020, 1, 1, tzinfo=timezone.utc)
        self.session: datetime | None = None

    def __call__(self) -> datetime:
        return self.now

    def step(self, session_date: datetime | None) -> None:
        if session_date is not None and session_date != self.session:
            self.session = session_date
            self.now = max(session_date, self.now + timedelta(hours=4))  # LoCoMo's dates go forward
        else:
            self.now += timedelta(seconds=0.5)

    def idle(self) -> None:
        self.now += timedelta(hours=1)


def last_time(system: str) -> str:
    """The "Last time you talked" block of system message zero, or ""."""
    if "## Last time you talked" not in system:
        return ""
    return system.split("## Last time you talked", 1)[1].split("\n## ", 1)[0]


def about(system: str) -> str:
    """The sections of system message zero about the person: their name and facts, core and recalled."""
    sections = system.split("\n## ")
    return "\n".join(section for section in sections
                     if section.startswith(("The person you are talking with", "Recalled for this message")))


def counts(model: LoCoMoModel, sent_texts: set[str]) -> dict:
    """Cumulative upkeep calls so far, from the double's recorded requests."""
    extraction = [r for r in model.requests if "response_format" in r]
    query = sum(1 for r in model.embedding_requests if is_query(r["input"], sent_texts))
    return dict(extraction=len(extraction), extraction_tokens=sum(tokens(r["messages"]) for r in extraction),
                fact_embedding=len(model.embedding_requests) - query, query_embedding=query)


def is_query(inputs: str | list[str], sent_texts: set[str]) -> bool:
    """True for the recall embedding of a user's message (its first input; new facts may ride along)."""
    inputs = [inputs] if isinstance(inputs, str) else inputs
    return bool(inputs) and inputs[0] in sent_texts


def targets(result: dict) -> list[tuple[str, bool | None, str]]:
    """Return (target, met, figures) for the issue's three targets."""
    rows, end = result["rows"], result["rows"][-1]
    at = {row["turn"]: row for row in rows}
    checks = []
    if 20 in at:
        checks.append(("prompt flat from turn 20 to the end, within ±20 %", *flatness(rows, 20)))
        full = next((row["turn"] for row in rows if row["prompt_facts"] >= result["config"]["prompt_facts"]), None)
        if full and full != 20:
            met, figures = flatness(rows, full)
            checks.append((f"(the same from turn {full}, the first with a full fact block)", met, figures))
        after = [row["prompt"] for row in rows if row["turn"] >= 20]
        history, facts_block = end["prompt"] - end["system"], end["system"] - end["persona"]
        checks.append((f"prompt ≤ 1,500 tokens (the issue: with 200 stored facts; here {end['facts']} stored, "
                       f"MEMORY_MAX_FACTS {result['config']['max_facts']})", max(after) <= 1500,
                       f"largest after turn 20: {max(after):,} tokens; at the end {end['prompt']:,} = "
                       f"{end['persona']:,} persona and clock + {facts_block:,} for "
                       f"{end['prompt_facts']} facts in the prompt ({facts_block / max(end['prompt_facts'], 1):.0f} "
                       f"a fact) + {history:,} history (the newest {end['history']} of up to "
                       f"{result['config']['history_limit']} messages that fit PROMPT_MAX_TOKENS, "
                       f"the bot's replies {count_tokens(REPLY)} each)"))
    row = at.get(200)
    checks.append(("≥ 10× fewer prompt tokens than full history by turn 200",
                   None if row is None else row["baseline"] >= 10 * row["prompt"],
                   "the run is shorter than 200 turns" if row is None else
                   f"turn 200: {row['baseline']:,} vs {row['prompt']:,} = {row['baseline'] / row['prompt']:.1f}×"))
    n = end["turn"]
    llm, facts, query = end["extraction"] / n, end["fact_embedding"] / n, end["query_embedding"] / n
    checks.append(("≤ 0.25 upkeep calls per user message, LLM calls (extraction; merging makes none)",
                   llm <= 0.25, f"{end['extraction']} extraction calls / {n} messages = {llm:.3f}; "
                   "the same with EMBEDDINGS=hashing or local, which make no network call"))
    checks.append((f"≤ 0.25 upkeep calls per user message, extraction + fact embeddings (EMBEDDINGS="
                   f"{result['config']['embeddings']})", llm + facts <= 0.25,
                   f"({end['extraction']} + {end['fact_embedding']}) / {n} = {llm + facts:.3f}; " + (
                       f"besides, recall embeds the message: {end['query_embedding']} calls = {query:.3f} per "
                       "message (on the reply path; 0 network calls with hashing or local)"
                       if result["config"]["embeddings"] == "openai" else
                       "every embedding ran in-process (no network call)")))
    return checks


def prefix_figures(rows: list[dict]) -> dict:
    """Return the median and quartiles of the prefix each request shares with the one before, in tokens and
    as a share of the request (every turn but the first)."""
    measured = [row for row in rows if row["prefix"] is not None]
    if len(measured) < 2:
        return {}
    return dict(turns=len(measured), tokens=statistics.quantiles([row["prefix"] for row in measured], n=4),
                shares=statistics.quantiles([row["prefix_share"] for row in measured], n=4))


def prefix_report(rows: list[dict]) -> str:
    """Return the lines about the prefix a server could reuse from the previous turn's request."""
    figures = prefix_figures(rows)
    if not figures:
        return "prefix shared with the previous turn's request: too few turns"
    (q1, median, q3), (s1, share, s3) = figures["tokens"], figures["shares"]
    parts = collections.Counter(row["prefix_part"] for row in rows if row["prefix"] is not None)
    return (f"prefix shared with the previous turn's request ({figures['turns']} turns; llm/tokens.py's estimate "
            f"of the roles and contents in order): median {median:,.0f} tokens ({share:.0%}), quartiles "
            f"{q1:,.0f}–{q3:,.0f} tokens ({s1:.0%}–{s3:.0%})\nwhere consecutive requests part: " + ", ".join(
                f"{part} {count}" for part, count in parts.most_common()))


def flatness(rows: list[dict], start: int) -> tuple[bool, str]:
    """Return whether every prompt from turn `start` on is within ±20 % of that turn's, and the figures."""
    after = [row["prompt"] for row in rows if row["turn"] >= start]
    low, high = min(after) / after[0], max(after) / after[0]
    windows = [sum(after[i:i + 20]) / 20 for i in range(0, len(after) - 19, 20)] or [sum(after) / len(after)]
    return 0.8 <= low and high <= 1.2, (
        f"turn {start}: {after[0]:,} tokens; every later turn {low:.2f}–{high:.2f}× that; means of 20-turn "
        f"windows {min(windows):,.0f}–{max(windows):,.0f} ({min(windows) / windows[0]:.2f}–"
        f"{max(windows) / windows[0]:.2f}× the first)")


def report(result: dict) -> None:
    rows = result["rows"]
    shown = [row for row in rows if row["turn"] in MARKS or row is rows[-1]]
    print("\ntokens = len(text) // 4 + 1 per message (the OpenAI double's count; tiktoken is not installed).")
    print("baseline = persona-only system message + every earlier user message and bot reply + the new one.")
    print("facts = stored, shown = in system message zero, prompt = tokens of the chat request, (sys0) = its "
          "system message zero.")
    print("calls/msg = cumulative upkeep calls / user messages so far (the last row after the final idle pass).\n")
    print(f"{'turn':>5} {'facts':>5} {'shown':>5} {'prompt':>7} {'(sys0)':>7} {'baseline':>9} {'ratio':>6}  "
          f"{'extract':>7} {'fact-emb':>8} {'query-emb':>9} {'extract tok':>11}")
    for row in shown:
        n = row["turn"]
        print(f"{n:>5} {row['facts']:>5} {row['prompt_facts']:>5} {row['prompt']:>7,} {row['system']:>7,} "
              f"{row['baseline']:>9,} {row['baseline'] / row['prompt']:>5.1f}x  {row['extraction'] / n:>7.3f} "
              f"{row['fact_embedding'] / n:>8.3f} {row['query_embedding'] / n:>9.3f} {row['extraction_tokens']:>11,}")
    end = rows[-1]
    chat_total = sum(row["prompt"] for row in rows)
    print(f"\ntotals over {end['turn']} messages: chat prompts {chat_total:,} tokens (full history: "
          f"{sum(row['baseline'] for row in rows):,}); extraction prompts {end['extraction_tokens']:,} tokens "
          f"in {end['extraction']} calls ({end['extraction_tokens'] // max(end['extraction'], 1):,} a call; "
          f"{end['extraction_tokens'] / chat_total:.0%} on top of the chat prompts); "
          f"{result['observations_given']} observations returned by the extractor double")
    print("\nthe \"Last time you talked\" block at the first message of each session (LoCoMo's session summaries"
          " as the extractor double's topic lines, capped at 200 characters by the bot):")
    print(f"{'session':>7} {'turn':>5} {'lines':>5} {'tokens':>6}  how long ago")
    starts = [row for i, row in enumerate(rows) if i == 0 or row["session"] != rows[i - 1]["session"]]
    for row in starts:
        print(f"{row['session']:>7} {row['turn']:>5} {len(row['topic_lines']):>5} {row['topic_tokens']:>6}  "
              f"{', '.join(row['topic_lines']) or '-'}")
    if starts[-1]["block"]:
        print(f"the block at the start of session {starts[-1]['session']}:\n## Last time you talked\n"
              f"{starts[-1]['block']}")
    carried = [row["topic_tokens"] for row in rows if row["topic_tokens"]]
    if carried:
        ordered = sorted(carried)
        print(f"turns carrying the block: {len(carried)} of {len(rows)}; its tokens: median "
              f"{ordered[len(ordered) // 2]}, max {ordered[-1]}")
    print(f"\n{prefix_report(rows)}")
    print("\ntargets:")
    for name, met, figures in targets(result):
        verdict = "n/a" if met is None else "met" if met else "NOT MET"
        print(f"  [{verdict}] {name}: {figures}")


def every_conversation(args) -> None:
    """Replay each conversation of the data set (its default speaker as the user) and report the prefix
    figures of each and of all their turns pooled; with --json, print the results as a list."""
    ids = [sample["sample_id"] for sample in json.loads(args.data.read_text(encoding="utf-8"))]
    results = [asyncio.run(replay(argparse.Namespace(**{**vars(args), "conv": sample_id}))) for sample_id in ids]
    if args.json:
        print(json.dumps(results, ensure_ascii=False))
        return
    print()
    for result in results:
        print(f"{result['conversation']} ({result['user']}): {prefix_report(result['rows'])}")
    print(f"all {len(results)}: {prefix_report([row for result in results for row in result['rows']])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="a file in LoCoMo's format")
    parser.add_argument("--conv", help="sample_id of the conversation (default: the one with the most turns); "
                        "all: each conversation in turn, its prefix figures and theirs pooled")
    parser.add_argument("--speaker", help="the speaker who is the user (default: the one with more observations)")
    parser.add_argument("--turns", type=int, help="send at most this many of the user's turns")
    parser.add_argument("--max-facts", type=int, default=200, help="MEMORY_MAX_FACTS (production default 100)")
    parser.add_argument("--history-limit", type=int, default=20, help="HISTORY_LIMIT (production default 20)")
    parser.add_argument("--embeddings", default="openai", choices=("openai", "hashing", "local"))
    parser.add_argument("--idle", type=float, default=1.0, help="MEMORY_EXTRACT_DELAY_SECONDS for the run")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args()
    args.out = sys.stderr if args.json else sys.stdout  # with --json, stdout holds only the JSON
    logging.basicConfig(level=logging.ERROR)
    started = time.perf_counter()
    if args.conv == "all":
        every_conversation(args)
        print(f"\n({time.perf_counter() - started:.0f} s)", file=args.out)
        return
    result = asyncio.run(replay(args))
    if args.json:
        result["targets"] = [dict(target=n, met=m, figures=f) for n, m, f in targets(result)]
        print(json.dumps(result, ensure_ascii=False))
        return
    report(result)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
