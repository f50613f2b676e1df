"""A real speech engine for the tests: Piper behind OpenAI's /v1/audio/speech (shim.py), as .ci/real_tts made it.

`real_tts_server()` starts the shim on a free loopback port and gives its base URL; a test of the bot's spoken
replies points TTS_BASE_URL at it, for example (the names of the settings the bot side of issue 60 adds):

    with real_tts_server(tmp_path / "tts.log") as tts:
        config = make_config(..., tts_base_url=tts.base_url, tts_model=tts.model, tts_voice=tts.voice)
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.timeouts import scaled

ROOT = Path(__file__).resolve().parent.parent.parent
PYTHON = ROOT / ".real-tts" / "venv" / "bin" / "python"
SHIM = Path(__file__).resolve().parent / "shim.py"
MODEL = "piper-en_US-joe-medium"  # shim.py's own name for its one model; it also answers to OpenAI's
VOICE = "alloy"  # every voice OpenAI names is Piper's one voice, joe
START_TIMEOUT_S = scaled(60)
# A companion's reply of 300 characters, the length issue 60 times the first voice note for.
REPLY_300 = (
    "Good evening, Anna! I remember you said the climbing gym gets busy on Tuesdays, so Thursday might suit you "
    "better. How is Murka doing after her visit to the vet? Tell me all about the conference when you are back in "
    "Berlin, and please do not forget that your sister Olya has her birthday this Friday."
)


def missing() -> str | None:
    """Return why the real speech engine cannot run here, or None when it can."""
    if not PYTHON.exists() or not (PYTHON.parent.parent / "pins").exists():
        return "the real speech engine is not installed (run .ci/real_tts)"
    return None


def require_real_tts() -> None:
    """Skip the calling test where the engine is not installed; under CI=true fail it instead, as it must run."""
    reason = missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


@dataclass(frozen=True)
class RealTTS:
    """A running shim: `base_url` is its OpenAI base URL, `model` and `voice` what to ask it for."""

    base_url: str
    process: subprocess.Popen
    model: str = MODEL
    voice: str = VOICE


@contextmanager
def real_tts_server(log: Path) -> Iterator[RealTTS]:
    """Start the shim (its log in `log`), yield it once it listens, and stop it on leaving.

    The shim takes a free port itself and names it in the one line it prints, so no port can be taken between
    choosing it and binding it. Raises RuntimeError if it exits or stays silent for START_TIMEOUT_S.
    """
    command = [str(PYTHON), str(SHIM), "--host", "127.0.0.1", "--port", "0"]
    if niceness := os.nice(0):  # a pytest-xdist worker's lower priority (tests/conftest.py): not the engine's
        command = ["nice", "-n", str(-niceness), *command]  # where that is not allowed, it says so and runs
    with log.open("ab") as sink:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=sink, bufsize=0, start_new_session=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([process.stdout], [], [], left)[0]:
                raise RuntimeError(f"the real TTS shim did not listen within {START_TIMEOUT_S:g} s")
            byte = process.stdout.read(1)
            if not byte:
                raise RuntimeError(f"the real TTS shim exited: {log.read_text()[-600:]}")
            line += byte
        yield RealTTS(line.decode().removeprefix("listening on ").strip() + "/v1", process)
    finally:
        stop(process)


def stop(process: subprocess.Popen) -> None:
    """Stop the shim (SIGTERM, then SIGKILL) and wait for it."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(scaled(10))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if process.stdout is not None:
        process.stdout.close()
