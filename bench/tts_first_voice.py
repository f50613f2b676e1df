"""Time to a spoken reply's audio from the real engine: Piper's en_US-joe-medium behind OpenAI's speech endpoint.

The shim of tests/real_tts (in the venv .ci/real_tts makes) is started once with its voice loaded, as a server
would be; each run then asks it through the openai SDK's `audio.speech.create` for the 300-character reply the
test uses, as Ogg/Opus, and times the request until the whole voice note is in hand: what the bot waits for
before its sendVoice. The first run after start-up is shown on its own; the median is of the others. The
machine's load average and cores are printed beside the figures, since Piper uses every core it finds; the
shim's log splits the median into Piper's synthesis and the resampling and encoding.

    .venv/bin/python bench/tts_first_voice.py             # 1 + 7 runs, about half a minute
    .venv/bin/python bench/tts_first_voice.py --runs 15 --log /tmp/tts.log

`--bot` times the whole way instead: the real Application (tests/harness.py's `running_bot`, as bot.py starts
it) polls the Bot API double; a voice note is pushed into it, transcribed by the OpenAI double, answered with the
300-character reply (STREAM_REPLIES on: drafts, then the text), and the time runs from the push until the double
has accepted the sendVoice of its voice note. The speech comes from the OpenAI double (`--engine double`: it
answers a real Ogg/Opus file at once, so the figure is the bot's own way) or from the real engine (`--engine
real`, the default: TTS_BASE_URL at the shim).

    .venv/bin/python bench/tts_first_voice.py --bot --engine double --runs 10
    .venv/bin/python bench/tts_first_voice.py --bot --engine real --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openai import AsyncOpenAI  # noqa: E402

from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.harness import ProcessedUpdates, make_config, running_bot  # noqa: E402
from tests.ogg_opus import read_ogg_opus  # noqa: E402
from tests.real_tts import REPLY_300, RealTTS, missing, real_tts_server  # noqa: E402

USER = 1001
VOICE_NOTE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "voice.ogg"


async def time_to_audio(tts: RealTTS, text: str) -> tuple[float, float, int]:
    """Return (seconds to the whole Ogg/Opus in hand, its length in seconds, its bytes) for one request."""
    async with AsyncOpenAI(base_url=tts.base_url, api_key="x", max_retries=0, timeout=120) as client:
        began = time.perf_counter()
        response = await client.audio.speech.create(model=tts.model, voice=tts.voice, input=text,
                                                    response_format="opus")
        audio = response.content
        took = time.perf_counter() - began
    return took, read_ogg_opus(audio).duration_s, len(audio)


async def through_the_bot(runs: int, tts: RealTTS | None, folder: Path) -> list[float]:
    """Return, for 1 + `runs` voice notes pushed one after another, the seconds from each push until the Bot API
    double accepted the voice note that answers it; `tts` None: the OpenAI double speaks."""
    telegram, model = TelegramDouble(), OpenAIDouble()
    await telegram.start()
    await model.start()
    try:
        model.transcript = "Good evening! What do you remember about my week?"
        model.reply = lambda body: REPLY_300
        speech = {} if tts is None else {"tts_base_url": tts.base_url, "tts_api_key": "x", "tts_model": tts.model,
                                         "tts_voice": tts.voice}
        config = make_config(telegram, model, folder / "bot.db", proactive=False, tts_timeout_s=120.0,
                             memory_extract_delay_s=86_400, memory_extract_every=1_000,  # no extraction meanwhile
                             **{"tts_model": "tts-1", **speech})
        content = VOICE_NOTE.read_bytes()
        timings = []
        async with running_bot(config) as app:
            processed = ProcessedUpdates(app)
            for number in range(1 + runs):
                began = time.perf_counter()
                await processed.wait(telegram.push_message(USER, {"voice": telegram.voice(3, content=content)}))
                [*_, note] = await telegram.wait_for_voice(USER, number + 1, timeout=120)
                timings.append(time.perf_counter() - began)
                read_ogg_opus(note["content"])  # what Telegram got is a voice note it plays
                await asyncio.sleep(0.2)
        return timings
    finally:
        await telegram.close()
        await model.close()


async def bot_main(runs: int, engine: str, log: Path) -> None:
    folder = Path(tempfile.mkdtemp())
    if engine == "real":
        if reason := missing():
            sys.exit(reason)
        with real_tts_server(log) as tts:
            timings = await through_the_bot(runs, tts, folder)
    else:
        timings = await through_the_bot(runs, None, folder)
    rest = timings[1:]
    print(f"the bot, a voice note in, {len(REPLY_300)} characters spoken by the {engine} engine: first "
          f"{timings[0]:.3f} s; next {runs}: median {statistics.median(rest):.3f} s (min {min(rest):.3f}, "
          f"max {max(rest):.3f}); {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs after the first (default 7)")
    parser.add_argument("--log", type=Path, help="the shim's log (default: a temporary file)")
    parser.add_argument("--bot", action="store_true", help="time the whole bot, from a voice note's push to the "
                        "voice note that answers it")
    parser.add_argument("--engine", choices=("real", "double"), default="real", help="with --bot: who speaks")
    arguments = parser.parse_args()
    if arguments.bot:
        await bot_main(arguments.runs, arguments.engine,
                       arguments.log or Path(tempfile.mkdtemp()) / "real-tts.log")
        return
    if reason := missing():
        sys.exit(reason)
    log = arguments.log or Path(tempfile.mkdtemp()) / "real-tts.log"
    started = time.perf_counter()
    with real_tts_server(log) as tts:
        print(f"shim listening (voice loaded) in {time.perf_counter() - started:.2f} s; "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
        first, length, size = await time_to_audio(tts, REPLY_300)
        print(f"{len(REPLY_300)} characters → {length:.2f} s of Ogg/Opus, {size} bytes")
        print(f"first request after start-up: {first:.2f} s")
        timings = []
        for _ in range(arguments.runs):
            took, length, _ = await time_to_audio(tts, REPLY_300)
            timings.append(took)
        print(f"next {arguments.runs}: median {statistics.median(timings):.2f} s "
              f"(min {min(timings):.2f}, max {max(timings):.2f}); real-time factor "
              f"{statistics.median(timings) / length:.2f}; load average now {os.getloadavg()[0]:.2f}")
    # The shim logs each request's parts: Piper's synthesis, then the resampling and Opus encoding.
    parts = [(float(synthesis), float(encoding)) for synthesis, encoding in
             re.findall(r"synthesis ([\d.]+) s, opus encoding ([\d.]+) s", log.read_text())][1:]
    if parts:
        print(f"of which, median: Piper's synthesis {statistics.median(p[0] for p in parts):.2f} s, "
              f"resampling and Opus encoding {statistics.median(p[1] for p in parts):.3f} s")


if __name__ == "__main__":
    asyncio.run(main())
