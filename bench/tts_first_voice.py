"""Time to a spoken reply's audio from the real engine: Piper's en_US-joe-medium behind OpenAI's speech endpoint.

The shim of tests/real_tts (in the venv .ci/real_tts makes) is started once with its voice loaded, as a server
would be; each run then asks it through the openai SDK's `audio.speech.create` for the 300-character reply the
test uses, as Ogg/Opus, and times the request until the whole voice note is in hand: what the bot waits for
before its sendVoice. The first run after start-up is shown on its own; the median is of the others. The
machine's load average and cores are printed beside the figures, since Piper uses every core it finds; the
shim's log splits the median into Piper's synthesis and the resampling and encoding.

    .venv/bin/python bench/tts_first_voice.py             # 1 + 7 runs, about half a minute
    .venv/bin/python bench/tts_first_voice.py --runs 15 --log /tmp/tts.log
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

from tests.ogg_opus import read_ogg_opus  # noqa: E402
from tests.real_tts import REPLY_300, RealTTS, missing, real_tts_server  # noqa: E402


async def time_to_audio(tts: RealTTS, text: str) -> tuple[float, float, int]:
    """Return (seconds to the whole Ogg/Opus in hand, its length in seconds, its bytes) for one request."""
    async with AsyncOpenAI(base_url=tts.base_url, api_key="x", max_retries=0, timeout=120) as client:
        began = time.perf_counter()
        response = await client.audio.speech.create(model=tts.model, voice=tts.voice, input=text,
                                                    response_format="opus")
        audio = response.content
        took = time.perf_counter() - began
    return took, read_ogg_opus(audio).duration_s, len(audio)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs after the first (default 7)")
    parser.add_argument("--log", type=Path, help="the shim's log (default: a temporary file)")
    arguments = parser.parse_args()
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
