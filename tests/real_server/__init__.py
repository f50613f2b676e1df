"""A real OpenAI-compatible server for the tests: llama-cpp-python's, with Gemma 3 270M, as .ci/real_server made it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.timeouts import scaled

ROOT = Path(__file__).resolve().parent.parent.parent
PYTHON = ROOT / ".real-server" / "venv" / "bin" / "python"
MODEL = ROOT / ".real-server" / "gemma-3-270m-q4_k_m.gguf"
ALIAS = "gemma-3-270m"
CONTEXT = 8192
START_TIMEOUT_S = scaled(120)


def missing() -> str | None:
    """Return why the real server cannot run here, or None when it can."""
    if not PYTHON.exists() or not MODEL.exists():
        return "the real model server is not installed (run .ci/real_server)"
    return None


def server_threads(environ: Mapping[str, str] = os.environ) -> int:
    """Return how many threads the server computes with, for prompts and answers alike: the cores the tests
    leave it.

    Run alone, all of them (its default is half: a 270M model wants them all). Beside pytest-xdist's workers the
    other cores are theirs, and at every step of a batch each thread waits at a barrier, spinning, for any the
    machine has put aside: measured in a full run on 2 cores with 4 workers, two threads took 247 s of CPU for
    what one thread does alone in about 70 (the run took 6.6 minutes). So there, one worker's share: one thread.
    """
    workers = int(environ.get("PYTEST_XDIST_WORKER_COUNT") or 1)
    return max(1, (os.cpu_count() or 1) // workers)


def free_port() -> int:
    """Return a TCP port of 127.0.0.1 that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class RealServer:
    """One llama-cpp-python server process on loopback; `url` is its OpenAI base URL."""

    port: int
    log: Path
    process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        """The server's OpenAI base URL (as the OpenAI double names it)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        """Start the server and return once it answers its model list; raise RuntimeError if it does not."""
        command = [str(PYTHON), "-m", "llama_cpp.server", "--model", str(MODEL), "--model_alias", ALIAS,
                   "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(CONTEXT),
                   "--n_threads", str(server_threads()), "--n_threads_batch", str(server_threads())]
        if niceness := os.nice(0):  # a pytest-xdist worker's lower priority (tests/conftest.py): not the server's
            command = ["nice", "-n", str(-niceness), *command]  # where that is not allowed, it says so and runs
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the real server exited: {self.log.read_text()[-600:]}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the real server did not answer within {START_TIMEOUT_S:g} s")

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and wait for it."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(scaled(10))
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
