"""Streamed replies: how soon the user sees the first words, against the whole reply arriving as it does without.

The real Application polls the Bot API double over loopback HTTP and calls the OpenAI API double, which
writes a reply of `--tokens` tokens (4 characters each) at `--rate` tokens a second after a wait of
`--first-ms` before the first one: by default 400 tokens at 40/s after 500 ms, a reply of about 10.5 s, as
a slow local model (Ollama on a CPU) writes it. Without streaming the double answers the whole reply after
that same 10.5 s. Each run is one private-chat message; the two modes take turns, `--runs` times each.

Measured from the moment the message is pushed into the double: the first draft (`sendMessageDraft`)
accepted, and the final message (`sendMessage`) accepted; the number of drafts per reply against the
bound the issue sets (reply seconds / STREAM_INTERVAL_MS + 1); and the CPU seconds of this process (the
bot and both doubles) per reply.

    .venv/bin/python bench/stream.py            # 3 runs of each mode, about 70 s
    .venv/bin/python bench/stream.py --runs 1   # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("PTB_TIMEDELTA", "true")

from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.harness import make_config, running_bot  # noqa: E402

USER = 5001


async def one_reply(telegram: TelegramDouble, streaming: bool, text: str) -> dict:
    """Push one message and return when its first draft and its message arrived, and what it cost."""
    drafts_before, sent_before = len(telegram.drafts), len(telegram.sent)
    cpu, pushed = time.process_time(), time.monotonic()
    telegram.push_text(USER, text)
    [*_, reply] = await telegram.wait_for_sent(USER, sent_before + 1, timeout=120)
    drafts = telegram.drafts[drafts_before:]
    return {
        "streaming": streaming,
        "first_words": (drafts[0]["at"] if drafts else reply["at"]) - pushed,
        "whole": reply["at"] - pushed,
        "drafts": len(drafts),
        "streamed_s": (drafts[-1]["at"] - drafts[0]["at"]) if drafts else 0.0,
        "cpu_s": time.process_time() - cpu,
        "length": len(reply["visible_text"]),
    }


async def run(args: argparse.Namespace) -> None:
    answer = " ".join(f"w{i:02d}" for i in range(args.tokens))[: args.tokens * 4]
    generation = args.first_ms / 1000 + args.tokens / args.rate
    telegram, model = TelegramDouble(), OpenAIDouble()
    await telegram.start()
    await model.start()
    model.reply = lambda body: answer
    model.stream_chunk_chars, model.stream_chunk_interval = 4, 1 / args.rate
    results = []
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = make_config(telegram, model, Path(folder) / "bot.db", embeddings="hashing",
                                 stream_interval_s=args.interval_ms / 1000, model_attempt_timeout_s=30,
                                 model_retry_budget_s=60, memory_extract_delay_s=3600)
            for run_number in range(args.runs):
                for streaming in (True, False):
                    # The same reply either way: streamed piece by piece, or all of it after the same time.
                    model.delay = 0.0 if streaming else generation
                    model.stream_first_delay = args.first_ms / 1000
                    async with running_bot(replace(config, stream_replies=streaming)):
                        results.append(await one_reply(telegram, streaming, f"run {run_number}"))
                        await asyncio.sleep(0.2)
    finally:
        await model.close()
        await telegram.close()
    report(results, args, generation)


def report(results: list[dict], args: argparse.Namespace, generation: float) -> None:
    """Print medians side by side, and every run."""
    def median(streaming: bool, key: str) -> float:
        return statistics.median(r[key] for r in results if r["streaming"] is streaming)

    print(f"model double: {args.tokens} tokens at {args.rate:g}/s after {args.first_ms} ms = {generation:.1f} s"
          f" a reply; STREAM_INTERVAL_MS={args.interval_ms}; {args.runs} runs of each mode, medians")
    print(f"{'':32}{'streaming':>10}{'without':>10}")
    for label, key in (("first words seen (s)", "first_words"), ("whole reply sent (s)", "whole"),
                       ("CPU per reply, bot+doubles (s)", "cpu_s")):
        print(f"{label:32}{median(True, key):>10.3f}{median(False, key):>10.3f}")
    ratio = median(False, "whole") / median(True, "first_words")
    print(f"first words {ratio:.1f}x sooner than the whole reply without streaming")
    bound = generation / (args.interval_ms / 1000) + 1
    drafts = [r["drafts"] for r in results if r["streaming"]]
    print(f"drafts per reply: {min(drafts)}–{max(drafts)} (bound: reply seconds / interval + 1 = {bound:.1f})")
    for r in results:
        mode = "streaming" if r["streaming"] else "without  "
        print(f"  {mode} first words {r['first_words']:.3f}s  whole {r['whole']:.3f}s  drafts {r['drafts']:>3}"
              f"  drafted over {r['streamed_s']:.2f}s  cpu {r['cpu_s']:.3f}s  {r['length']} chars")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--rate", type=float, default=40.0, help="tokens a second")
    parser.add_argument("--first-ms", type=int, default=500, help="wait before the first token")
    parser.add_argument("--interval-ms", type=int, default=600, help="STREAM_INTERVAL_MS")
    args = parser.parse_args()
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
