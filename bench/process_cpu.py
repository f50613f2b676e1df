"""What the bot owner's machine pays per message: the CPU, wall time and requests of the real `bot.py` process.

The bench starts the Bot API double and the OpenAI API double (tests/doubles/) in its own process and runs the
bot as `python bot.py` (polling mode) against them over loopback HTTP, with a fresh SQLite database,
EMBEDDINGS=hashing and PROACTIVE=off. No memory extraction runs during a phase: MEMORY_EXTRACT_DELAY_SECONDS=86400
(no user is idle that long) and MEMORY_EXTRACT_EVERY=1000 (none writes that many). Every other setting is at its
default: Telegram's 30 requests/s limiter, typing every 4 s, MODEL_CONCURRENCY unset (1: the double is on
loopback and reports no slots), the INFO log (to a file).

Each phase runs in a bot process of its own, on a fresh database, with 5 users: a warm-up of one message each of
the phase's kind; a wait until the process is quiet; an idle interval as long as the phase is expected to take
(the warm-up's p50 and the pause, x N); then `--messages` N messages round-robin over the users, one at a time
(the next is pushed 0.1 s after the previous one's reply is in), and 1 s for the last turn's upkeep. The texts
are ordinary chat lines, some of which the rules learn a fact from (then a fact is embedded after the turn), in
English (`--language ru`: in Russian).

1. short: the model answers a few words at once; STREAM_REPLIES=off.
2. streamed: a 100-token reply (400 characters) streamed 4 characters a chunk at 40 chunks a second (2.5 s);
   STREAM_REPLIES on (the default), a private chat, so drafts are shown.
3. unstreamed: the same reply with STREAM_REPLIES=off; the double answers it whole after the same 2.5 s.
4. voice: a voice note (tests/fixtures/voice.ogg, Ogg/Opus): getFile, the download, the double's transcript;
   then the short reply of phase 1, unstreamed, so that phase 4 less phase 1 is what the voice adds.
5. spoken: phase 4 with TTS_MODEL=tts-1, so that each reply is spoken too ("when I speak", the default choice):
   "recording voice…", the double's `audio.speech` (the fixture's Ogg/Opus bytes, at once: synthesis runs on the
   speech server, not in the bot) and sendVoice; the next message waits for the voice note. Phase 5 less phase 4
   is what a spoken reply adds in the bot process; "after the reply's text" is the p50 from the reply's text to
   its voice note, "after the push" from the voice note's push to it. A tree from before spoken replies cannot
   run it (leave it out of `--phases` with `--against` such a tree).

Per phase: the process's CPU (the run time of all its threads in nanoseconds, /proc/<pid>/task/*/schedstat;
where the kernel keeps no schedstat, utime + stime from /proc/<pid>/stat, in 10 ms ticks) over the phase, less its CPU
over the idle interval scaled to the phase's length, per message; "with idle", the same without taking the idle
CPU off (what the owner's machine pays while the bot chats, the idle timers' wake-ups meanwhile included); the
wall time from a message's push into the double to its reply's sendMessage there, p50; the requests per message
by method, from the doubles' logs (the long poll's getUpdates included); VmRSS (/proc/<pid>/status) at the end.

Start-up: the process's CPU from exec to ready (its first getUpdates: post_init done, polling begun), on a migrated
empty database and on databases of `--users` users, built with the real Store: each user 3 turns with replies a
month ago and 3 rule-learned facts without embeddings, the LLM pass having read the messages (so none is due).
Then the CPU from ready until the process is quiet (2 s at least, then until a second takes at most 0.02 s of CPU;
120 s at most). Before issue 42 that was mostly the embedding of every fact without a vector, a job 1 s after
start; now nothing at start works per user.

Side by side: `--against TREE` runs the same phases and start-ups with the `bot.py` of another checkout (`git
worktree add /tmp/before COMMIT`), tree after tree within each run, in TREE/.venv's Python where it has one (a
tree from before a change of requirements: `python3 -m venv TREE/.venv; TREE/.venv/bin/pip install -r
TREE/requirements.txt`).

Metrics (docs/metrics.md): `--metrics on` runs the bot with METRICS=on and METRICS_PORT, and at the end of each
phase (once its CPU is read) scrapes /metrics, parses it with prometheus_client's parser and compares it with the
bench's own counts: answered turns and first-words observations against the messages sent (warm-up included), and
prompt and completion tokens against the usage the OpenAI double reported; a difference fails the run. `--metrics
both` measures the bot with METRICS off ("off") and on ("on") side by side, in place of trees, so that the CPU
columns say what recording and serving the metrics cost. "in kernel" is the share of the phase's CPU
spent in system calls (stime). `--profile DIR` runs each phase's bot under py-spy (`--gil`: Python's own time)
and leaves a speedscope file per phase there; the CPU figures of such a run are not comparable.

Figures are medians of `--runs` runs. Other work shares the machine, so they are noisy.

    .venv/bin/python bench/process_cpu.py                          # 3 runs, 30 messages a phase: about 20 minutes
    .venv/bin/python bench/process_cpu.py --runs 1 --messages 10   # a smoke run, about 3 minutes
    .venv/bin/python bench/process_cpu.py --users 1000             # start-up on 0 and 1,000 users only
    .venv/bin/python bench/process_cpu.py --runs 3 --messages 15 --against /tmp/before   # before and after
    .venv/bin/python bench/process_cpu.py --runs 3 --messages 20 --users "" --metrics both  # metrics off and on
    .venv/bin/python bench/process_cpu.py --users "" --phases voice,spoken --persona tests/fixtures/cards/mira.png
    python3 -m venv /tmp/owner && /tmp/owner/bin/pip install -r requirements.txt   # what an owner installs, then
    .venv/bin/python bench/process_cpu.py --runs 2 --messages 15 --users "" --python /tmp/owner/bin/python
    .venv/bin/python bench/process_cpu.py --runs 2 --messages 15 --users "" --language ru   # Russian lines
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PTB_TIMEDELTA", "true")

from memory.facts import Extraction, Fact  # noqa: E402
from memory.store.memory_store import Store  # noqa: E402
from tests.doubles import OpenAIDouble, TaggedReplies  # noqa: E402
from tests.pg import free_port  # noqa: E402
from tests.test_process import environment  # noqa: E402

USERS = (101, 102, 103, 104, 105)
TICK = os.sysconf("SC_CLK_TCK")
VOICE = (ROOT / "tests" / "fixtures" / "voice.ogg").read_bytes()
SENTENCES = ["I live in Berlin and I have a cat named Murka.", "How was your day? I went for a walk.",
             "I like hiking in the mountains.", "What should I cook tonight?", "I work as a nurse.",
             "I'm tired today.", "Tell me something cheerful.", "My sister lives in Lisbon.",
             "Do you remember what I told you?", "I love strong black coffee."]
# --language ru: the same kinds of lines in Russian, a name and places among them (the rules then build the Russian
# word-form analyzer, memory/text/word_forms.py, which a bot that reads only English never holds).
SENTENCES_RU = ["Меня зовут Аня, я живу в Казани, и у меня есть кошка Мурка.", "Как прошёл твой день? Я гуляла.",
                "Я люблю ходить в горы.", "Что мне приготовить сегодня вечером?", "Я работаю медсестрой.",
                "Я сегодня устала.", "Расскажи что-нибудь весёлое.", "Моя сестра Оля живёт в Лиссабоне.",
                "Ты помнишь, что я тебе рассказывала?", "Я люблю крепкий чёрный кофе."]
LINES = {"en": SENTENCES, "ru": SENTENCES_RU}
SHORT = "Oh, that sounds lovely. Tell me more?"
LONG = ("That is a lovely thing to hear, and I am glad you told me. Walks like that clear the head, and the "
        "mountains are best early in the morning, before the crowds come up from the valley. ") * 4
TAG = re.compile(r"\(u\d+ m\d+\)")
RATE = 40  # tokens (4-character chunks) a second
TAIL_S = 1.0  # after the last reply: the turn's upkeep (storing it, embedding what was learned)
# Between a reply and the next message, as a user reads first (no person writes within 1/30 s of a reply).
PAUSE_S = 0.1
FACTS = [("location", "city", "Berlin"), ("pets", "pet:murka", "cat Murka"), ("career", "job_title", "nurse")]
MODEL = "gpt-4o-mini"  # OPENAI_MODEL's default: the label of the tokens /metrics counts


@dataclass(frozen=True)
class Phase:
    name: str
    streamed: bool  # STREAM_REPLIES
    tokens: int  # the reply's length; 0: the short one
    voice: bool = False
    spoken: bool = False  # TTS_MODEL set: the reply to a voice note is spoken too


PHASES = (Phase("short", False, 0), Phase("streamed", True, 100), Phase("unstreamed", False, 100),
          Phase("voice", False, 0, voice=True), Phase("spoken", False, 0, voice=True, spoken=True))


@dataclass
class Bot:
    """A running bot process and the doubles it talks to."""

    process: asyncio.subprocess.Process
    pid: int  # the bot's: the process's own, or its child's under py-spy
    telegram: TaggedReplies
    model: OpenAIDouble
    ready_cpu: float  # CPU seconds from exec to the first getUpdates
    ready_wall: float
    metrics_port: int | None = None  # METRICS_PORT, where /metrics is served (METRICS=on)


def cpu_seconds(pid: int, kernel_only: bool = False) -> float:
    """Return the CPU seconds of a process (all its threads): their run time in nanoseconds from schedstat, where
    the kernel keeps it (a tick of utime + stime is 10 ms, half a millisecond a message at 20 messages), else
    utime + stime from /proc/<pid>/stat. `kernel_only`: only its stime (the kernel's time on its behalf: system
    calls, the loopback network), in ticks."""
    if not kernel_only:
        with contextlib.suppress(OSError, ValueError, IndexError):
            return sum(int((task / "schedstat").read_text().split()[0])
                       for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[12]) + (0 if kernel_only else int(fields[11]))) / TICK


def rss_mib(pid: int) -> float:
    """Return a process's VmRSS in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child_of(pid: int) -> int:
    """Return the first child of process `pid` (the bot under py-spy)."""
    return int(Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0])


def answer(tokens: int):
    """Return the double's reply function: SHORT, or `tokens` 4-character tokens, ending with the message's tag."""
    def reply(body: dict) -> str:
        found = TAG.search(body["messages"][-1]["content"])
        tag = found.group() if found else ""
        if not tokens:
            return f"{SHORT} {tag}"
        return f"{LONG[:tokens * 4 - len(tag) - 1]} {tag}"
    return reply


def python_of(tree: Path) -> str:
    """Return the Python that runs `tree`'s bot: its own .venv's where it has one (a tree from before a change of
    requirements needs its own packages: tornado before issue 58), else `--python`, else this one."""
    own = tree / ".venv" / "bin" / "python"
    if tree != ROOT:
        return str(own) if own.exists() else sys.executable
    return BOT_PYTHON[0] or sys.executable


@contextlib.asynccontextmanager
async def running_bot(database: Path, streamed: bool, log: Path, tree: Path = ROOT, profile: Path | None = None,
                      metrics: bool = False, spoken: bool = False):
    """Start `python bot.py` of `tree` against fresh doubles, yield it once ready, then stop it with SIGTERM;
    with `profile`, under py-spy, which writes a flame graph there; with `metrics`, METRICS=on on a port of its
    own; with `spoken`, TTS_MODEL=tts-1 (spoken replies)."""
    telegram, model = TaggedReplies(), OpenAIDouble()
    await telegram.start()
    await model.start()
    metrics_port = free_port() if metrics else None
    env = environment(TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
                      TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_PATH=str(database), EMBEDDINGS="hashing",
                      MEMORY_EXTRACT_DELAY_SECONDS="86400", MEMORY_EXTRACT_EVERY="1000", PROACTIVE="off",
                      STREAM_REPLIES="on" if streamed else "off", METRICS="on" if metrics else "off",
                      METRICS_PORT=str(metrics_port or ""), TTS_MODEL="tts-1" if spoken else "",
                      PERSONA_FILE=PERSONA_FILE[0])
    started = time.monotonic()
    with log.open("ab") as out:
        command = [python_of(tree), "bot.py"]
        if profile is not None:
            spy = str(Path(sys.executable).parent / "py-spy")
            # --gil: only the thread running Python, so that time in a system call is not counted as the caller's
            command = [spy, "record", "--nonblocking", "--gil", "--rate", "400", "--format", "speedscope",
                       "-o", str(profile), "--", *command]
        process = await asyncio.create_subprocess_exec(*command, cwd=tree, env=env, stdout=out, stderr=out)
    try:
        await telegram.wait_for_call("getUpdates", timeout=120)
        pid = process.pid if profile is None else child_of(process.pid)
        ready_cpu = cpu_seconds(pid)
        first = next(i for i, (method, _) in enumerate(telegram.calls) if method == "getUpdates")
        yield Bot(process, pid, telegram, model, ready_cpu, telegram.call_times[first] - started, metrics_port)
    finally:
        if process.returncode is None:  # the bot itself is stopped: py-spy then writes its profile and exits
            with contextlib.suppress(ProcessLookupError, StopIteration, IndexError, FileNotFoundError):
                os.kill(process.pid if profile is None else child_of(process.pid), signal.SIGTERM)
            await asyncio.wait_for(process.wait(), 60)
        await model.close()
        await telegram.close()


async def settle(pid: int, quiet: float = 0.02, limit: float = 120.0) -> None:
    """Return once the process spends at most `quiet` CPU seconds in a second, or after `limit` seconds; never
    before 2 s, so that the embedding backlog (a job 1 s after start) has begun."""
    await asyncio.sleep(2.0)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        await asyncio.sleep(1.0)
        if cpu_seconds(pid) - before <= quiet:
            return


async def send(bot: Bot, phase: Phase, count: int, numbers, spoken: list[tuple[float, float]] | None = None
               ) -> list[float]:
    """Send `count` messages one at a time, round-robin over USERS; return each one's push-to-reply seconds. In a
    spoken phase each waits for its voice note too, and (push to voice note, reply to voice note) go to `spoken`."""
    walls = []
    for _ in range(count):
        number = next(numbers)
        user = USERS[number % len(USERS)]
        lines = LINES[LANGUAGE[0]]
        text = f"{lines[number * 3 % len(lines)]} (u{user} m{number})"
        waiter = asyncio.get_running_loop().create_future()
        bot.telegram.waiters[(user, number)] = waiter
        pushed = time.perf_counter()
        if phase.voice:
            bot.model.transcript = text
            bot.telegram.push_message(user, {"voice": bot.telegram.voice(content=VOICE)})
        else:
            bot.telegram.push_text(user, text)
        voices = len(bot.telegram.voices_to(user))
        await asyncio.wait_for(waiter, 60)
        walls.append(bot.telegram.arrived[-1][2] - pushed)
        if phase.spoken:
            await bot.telegram.wait_for_voice(user, voices + 1, timeout=60)
            voiced = time.perf_counter()
            (spoken if spoken is not None else []).append((voiced - pushed, voiced - bot.telegram.arrived[-1][2]))
        await asyncio.sleep(PAUSE_S)
    return walls


def requests_so_far(bot: Bot) -> collections.Counter:
    """Every request the doubles have had from the bot, by method."""
    counts = collections.Counter(method for method, _ in bot.telegram.calls)
    counts.update({"file download": len(bot.telegram.downloads), "chat completions": len(bot.model.requests),
                   "embeddings": len(bot.model.embedding_requests),
                   "transcriptions": len(bot.model.transcription_requests),
                   "speech": len(bot.model.speech_requests)})
    return counts


async def scrape(port: int) -> dict[tuple[str, frozenset], float]:
    """Return every sample /metrics serves on `port`, parsed by prometheus_client's parser, by name and labels."""
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as response:
        response.raise_for_status()
        text = await response.text()
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def compare_metrics(phase: str, found: dict[tuple[str, frozenset], float], sent: int, bot: Bot,
                    cpu: float) -> tuple[list[str], list[str]]:
    """Return lines comparing a scrape with the bench's own counts (`sent` messages, the usage the double reported,
    the CPU the bench read), and the problems among them: a count that differs."""
    def sample(name: str, **labels: str) -> float:
        return found.get((name, frozenset(labels.items())), float("nan"))

    reported = {kind: sum(usage[f"{kind}_tokens"] for usage in bot.model.usages) for kind in ("prompt", "completion")}
    checks = [("turns answered", sample("companion_turns_total", outcome="answered"), sent, "messages sent"),
              ("first words observed", sample("companion_first_words_seconds_count"), sent, "messages sent"),
              *((f"{kind} tokens", sample("companion_model_tokens_total", model=MODEL, kind=kind), reported[kind],
                 "the double reported") for kind in ("prompt", "completion"))]
    lines, problems = [], []
    for what, counted, own, whose in checks:
        agree = counted == own
        lines.append(f"{phase:<12}{what:<22}{counted:>10,.0f} on /metrics {'=' if agree else '!='} {own:>10,} {whose}")
        if not agree:
            problems.append(f"metrics: {phase}: {what} {counted:,.0f} on /metrics, {own:,} {whose}")
    count = sample("companion_first_words_seconds_count")
    mean = sample("companion_first_words_seconds_sum") / count if count else float("nan")
    lines.append(f"{phase:<12}{'first words, mean':<22}{mean:>10.3f} s"
                 f" (the bench's push-to-reply wall p50 is in the table above)")
    lines.append(f"{phase:<12}{'process CPU':<22}{sample('process_cpu_seconds_total'):>10.2f} s on /metrics (ticks),"
                 f" {cpu:.2f} s read by the bench (schedstat)")
    return lines, problems


async def measure_phase(phase: Phase, folder: Path, messages: int, tree: Path = ROOT,
                        profile: Path | None = None, metrics: bool = False,
                        checks: list[str] | None = None, problems: list[str] | None = None) -> dict:
    """Run one phase in a fresh process and database; return its figures. With `metrics`, the bot runs with
    METRICS=on and its /metrics is scraped at the end and compared with the bench's counts (lines to `checks`, any
    difference to `problems`)."""
    async with running_bot(folder / f"{phase.name}.db", phase.streamed, folder / "bot.log", tree, profile,
                           metrics, phase.spoken) as bot:
        pid = bot.pid
        bot.model.reply = answer(phase.tokens)
        bot.model.stream_chunk_chars, bot.model.stream_chunk_interval = 4, 1 / RATE
        bot.model.delay = 0.0 if phase.streamed else phase.tokens / RATE
        numbers = iter(range(10**6))
        warm = await send(bot, phase, len(USERS), numbers)
        await settle(pid)
        idle_cpu, idle_started = cpu_seconds(pid), time.monotonic()
        await asyncio.sleep(messages * (statistics.median(warm) + PAUSE_S) + TAIL_S)
        idle_cpu, idle_wall = cpu_seconds(pid) - idle_cpu, time.monotonic() - idle_started
        before, cpu, started = requests_so_far(bot), cpu_seconds(pid), time.monotonic()
        kernel = cpu_seconds(pid, kernel_only=True)
        spoken: list[tuple[float, float]] = []
        walls = await send(bot, phase, messages, numbers, spoken)
        await asyncio.sleep(TAIL_S)
        cpu, wall = cpu_seconds(pid) - cpu, time.monotonic() - started
        kernel = cpu_seconds(pid, kernel_only=True) - kernel
        requests = requests_so_far(bot) - before
        if bot.metrics_port is not None:
            lines, differ = compare_metrics(phase.name, await scrape(bot.metrics_port), len(USERS) + messages, bot,
                                            cpu_seconds(pid))
            (checks if checks is not None else []).extend(lines)
            (problems if problems is not None else []).extend(differ)
        return {"cpu_ms": (cpu - idle_cpu * wall / idle_wall) / messages * 1000, "raw_ms": cpu / messages * 1000,
                "wall_p50": statistics.median(walls),
                "kernel_share": kernel / cpu if cpu else 0.0,
                "rss": rss_mib(pid), "idle_ms_s": idle_cpu / idle_wall * 1000,
                **({"first_voice_p50": statistics.median(first for first, _ in spoken),
                    "voice_after_text_p50": statistics.median(after for _, after in spoken)} if spoken else {}),
                **{method: n / messages for method, n in requests.items()}}


async def measure_start(database: Path, folder: Path, tree: Path = ROOT, metrics: bool = False) -> dict:
    """Start the bot on `database`; return the CPU and wall to ready, the CPU until quiet, and RSS then."""
    async with running_bot(database, True, folder / "bot.log", tree, metrics=metrics) as bot:
        pid = bot.pid
        await settle(pid)
        return {"cpu": bot.ready_cpu, "wall": bot.ready_wall, "after": cpu_seconds(pid) - bot.ready_cpu,
                "rss": rss_mib(pid)}


async def populate(path: Path, users: int) -> None:
    """Fill a database through the real Store: each user 3 turns a month ago and 3 rule-learned facts, read."""
    store = await Store.open(path)
    month_ago = datetime.now(timezone.utc) - timedelta(days=30)
    for user_id in range(1, users + 1):
        now = month_ago + timedelta(seconds=user_id)
        for number in range(3):
            turn = await store.turns.begin_turn(user_id=user_id, first_name="Ann", language_code="en", now=now,
                                          update_id=None, history_limit=20,
                                          text=SENTENCES[(user_id + number) % len(SENTENCES)])
            await store.turns.add_reply(user_id, SHORT, now, 20, reply_to=turn.message_id, tokens=900)
        facts = [Fact(category, key, value, source_message_id=turn.message_id) for category, key, value in FACTS]
        await store.facts.save_facts(user_id, Extraction(facts), now, 100, extracted_upto=turn.message_id)
    await store.close()


def median_of(runs: list[dict]) -> dict:
    """Each figure's median over the runs (a method missing from a run counts 0)."""
    keys = {key for run in runs for key in run}
    return {key: statistics.median(run.get(key, 0) for run in runs) for key in keys}


def report(phases: dict[str, dict[str, dict]], starts: dict[str, dict[int, dict]], args: argparse.Namespace,
           problems: list[str], checks: list[str]) -> None:
    """Print each tree's figures, phase by phase and start-up by start-up, side by side."""
    print(f"the real bot.py process; {len(USERS)} users, {args.messages} messages a phase, one at a time; "
          f"medians of {args.runs} run(s); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'phase':<12}{'tree':<8}{'CPU/message':>13}{'with idle':>11}{'in kernel':>11}{'wall p50':>10}"
          f"{'RSS end':>11}{'idle CPU':>12}")
    for name in args.phases:
        for tree, figures in phases.items():
            p = figures[name]
            print(f"{name:<12}{tree:<8}{p['cpu_ms']:>10.2f} ms{p['raw_ms']:>8.2f} ms{p['kernel_share']:>10.0%}"
                  f"{p['wall_p50']:>9.3f}s"
                  f"{p['rss']:>7.1f} MiB"
                  f"{p['idle_ms_s']:>7.2f} ms/s")
    columns = [(tree, name) for name in args.phases for tree in phases]
    figures = [phases[tree][name] for tree, name in columns]
    for name in args.phases:
        for tree, figures_of in phases.items():
            p = figures_of[name]
            if "first_voice_p50" in p:
                print(f"{name:<12}{tree:<8}first voice note p50 {p['first_voice_p50']:.3f} s after the push,"
                      f" {p['voice_after_text_p50']:.3f} s after the reply's text")
    methods = sorted({key for p in figures for key in p}
                     - {"cpu_ms", "raw_ms", "kernel_share", "wall_p50", "rss", "idle_ms_s", "first_voice_p50",
                        "voice_after_text_p50"})
    print(f"\n{'requests per message':<22}" + "".join(f"{name[:8] + ' ' + tree[:3]:>13}" for tree, name in columns))
    for method in methods:
        if any(p.get(method) for p in figures):
            print(f"{method:<22}" + "".join(f"{p.get(method, 0):>13.2f}" for p in figures))
    print(f"\n{'start-up':<14}{'tree':<8}{'CPU to ready':>14}{'wall to ready':>15}{'CPU ready->quiet':>18}"
          f"{'RSS quiet':>12}")
    for users in next(iter(starts.values()), {}):
        for tree, sizes in starts.items():
            s = sizes[users]
            if not s:
                continue  # it never started (its problem is printed below)
            print(f"{f'{users:,} users':<14}{tree:<8}{s['cpu']:>12.2f} s{s['wall']:>13.2f} s{s['after']:>16.2f} s"
                  f"{s['rss']:>8.1f} MiB")
    if checks:
        print("\n/metrics at the end of each phase, against the bench's own counts (the last run)")
        for line in checks:
            print(line)
    for line in problems[:10]:
        print(line if line.startswith("metrics: ") else "log: " + line)


async def run(args: argparse.Namespace) -> int:
    sizes = [0] + [int(n) for n in args.users.split(",") if n.strip()]
    # Each "tree" is a checkout and whether its bot runs with METRICS=on.
    if args.metrics == "both":
        trees = {"off": (ROOT, False), "on": (ROOT, True)}
    else:
        trees = {"this": (ROOT, args.metrics == "on"),
                 **({"before": (Path(args.against).resolve(), False)} if args.against else {})}
    phases = [phase for phase in PHASES if phase.name in args.phases]
    phase_runs = {tree: {phase.name: [] for phase in phases} for tree in trees}
    start_runs: dict[str, dict[int, list[dict]]] = {tree: {size: [] for size in sizes} for tree in trees}
    problems: list[str] = []
    checks: list[str] = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for size in sizes:
            started = time.perf_counter()
            await populate(folder / f"users-{size}.db", size)
            if size:
                print(f"database of {size:,} users built in {time.perf_counter() - started:.1f} s", flush=True)
        for number in range(args.runs):
            for tree, (path, metrics) in trees.items():  # side by side: each run measures every tree in turn
                work = folder / f"run-{number}-{tree}"
                work.mkdir()
                if metrics:
                    checks.clear()  # the last run's comparison is printed; any run's difference fails
                for phase in phases:
                    profile = Path(args.profile) / f"{tree}-{phase.name}-{number}.json" if args.profile else None
                    runs = phase_runs[tree][phase.name]
                    runs.append(await measure_phase(phase, work, args.messages, path, profile, metrics, checks,
                                                    problems))
                    print(f"run {number + 1}, {tree}, {phase.name}: {runs[-1]['cpu_ms']:.2f} ms a message", flush=True)
                for size in sizes:
                    shutil.copyfile(folder / f"users-{size}.db", work / f"users-{size}.db")
                    try:
                        start = await measure_start(work / f"users-{size}.db", work, path, metrics)
                    except AssertionError as error:  # a tree from before a migration cannot open this one's file
                        problems.append(f"{tree}: no start-up on {size:,} users ({error})")
                        continue
                    start_runs[tree][size].append(start)
                log = (work / "bot.log").read_text(errors="replace").splitlines()
                problems += [f"{tree}: {line}" for line in log if "ERROR" in line or "Traceback" in line]
    report({tree: {name: median_of(runs) for name, runs in runs_of.items()} for tree, runs_of in phase_runs.items()},
           {tree: {size: median_of(runs) for size, runs in runs_of.items()} for tree, runs_of in start_runs.items()},
           args, problems, checks)
    return 1 if problems else 0


LANGUAGE = ["en"]  # --language: the phases' lines, English or Russian
BOT_PYTHON = [""]  # --python: the interpreter of this tree's bot (empty: the bench's own)
PERSONA_FILE = [""]  # --persona: the owner's character for every phase's bot (empty: the built-in one)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=30, help="messages a phase")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--users", default="1000,10000", help="start-up on databases of these many users, and empty")
    parser.add_argument("--phases", default=",".join(phase.name for phase in PHASES),
                        type=lambda text: [name for name in text.split(",") if name],
                        help="which phases, comma-separated (none: only start-up)")
    parser.add_argument("--against", metavar="TREE",
                        help="also measure the bot of another checkout (git worktree add TREE COMMIT), side by side")
    parser.add_argument("--profile", metavar="DIR", help="run each phase's bot under py-spy; speedscope files there")
    parser.add_argument("--metrics", choices=("off", "on", "both"), default="off",
                        help="on: METRICS=on, /metrics scraped after each phase and checked against the bench's counts;"
                             " both: METRICS off and on side by side (in place of --against)")
    parser.add_argument("--persona", metavar="FILE", default="",
                        help="PERSONA_FILE for every bot: a Markdown file or a character card (JSON, PNG)")
    parser.add_argument("--python", metavar="PATH", default="",
                        help="the Python that runs this tree's bot, e.g. a venv with requirements.txt alone: what an"
                             " owner installs (the dev packages add cryptography, which python-telegram-bot imports)")
    parser.add_argument("--language", choices=sorted(LINES), default="en",
                        help="the language of the phases' lines (ru: a name and places among them)")
    args = parser.parse_args()
    LANGUAGE[0] = args.language
    BOT_PYTHON[0] = args.python
    PERSONA_FILE[0] = str(Path(args.persona).resolve()) if args.persona else ""
    if args.metrics != "off" and args.against:
        parser.error("--metrics measures this tree only; leave out --against")
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
