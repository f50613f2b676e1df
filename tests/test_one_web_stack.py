"""One HTTP stack: the bot serves and calls through aiohttp, and tornado is no longer part of it.

python-telegram-bot's `telegram.ext` imports tornado whenever it is installed (for its own webhook server, which
the bot does not use), so tornado leaves the process only when nothing installs it: requirements.txt must not ask
for it, through any package's extras. The shared development environment may still hold it, so the real process
is run with tornado made impossible to import, as on a machine where it is not installed.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from importlib import metadata
from pathlib import Path

import aiohttp
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.harness import wait_healthy
from tests.pg import free_port
from tests.test_process import environment
from tests.timeouts import scaled
from tests.webhook_bots import text_update

ROOT = Path(__file__).resolve().parent.parent
ANN = 1001
SECRET = "s3cret-token-for-one-stack_0123"
# bot.py as `python bot.py` runs it, in a process where tornado cannot be imported; at exit it writes the names of
# the modules it held to the file MODULES_REPORT names.
WITHOUT_TORNADO = """
import atexit, importlib.abc, json, os, runpy, sys

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "tornado":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

def report():
    with open(os.environ["MODULES_REPORT"], "w") as file:
        json.dump(sorted(sys.modules), file)

sys.meta_path.insert(0, NotInstalled())
atexit.register(report)
sys.argv = ["bot.py"]
runpy.run_path("bot.py", run_name="__main__")
"""


def requirement_lines(path: Path) -> list[str]:
    """Return the requirements a requirements file names, following its `-r` includes."""
    lines = []
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r "):
            lines += requirement_lines(path.parent / line[3:].strip())
        elif line:
            lines.append(line)
    return lines


def installed_closure(requirements: list[str]) -> set[str]:
    """Return the names of every package `requirements` bring in, with the extras they ask for, read from what is
    installed here (each package's own requirements, their markers evaluated for this interpreter). A package that
    is not installed here (tornado, on a clean machine) is named, but its own requirements are not read."""
    seen: set[tuple[str, frozenset[str]]] = set()
    waiting = [Requirement(line) for line in requirements]
    while waiting:
        requirement = waiting.pop()
        key = (canonicalize_name(requirement.name), frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            needs = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in needs:
            needed = Requirement(text)
            if needed.marker is None or any(needed.marker.evaluate({"extra": extra})
                                            for extra in requirement.extras or {""}):
                waiting.append(needed)
    return {name for name, _ in seen}


def test_no_requirement_brings_tornado():
    packages = installed_closure(requirement_lines(ROOT / "requirements.txt"))
    assert "tornado" not in packages
    assert {"python-telegram-bot", "aiohttp", "apscheduler", "aiolimiter"} <= packages  # the walk follows extras
    assert "tornado" in installed_closure(["python-telegram-bot[webhooks]"])  # and would find it, were it asked for
    assert "tornado" not in installed_closure(requirement_lines(ROOT / "requirements-local.txt"))


async def test_the_real_bot_serves_its_webhook_where_tornado_is_not_installed(telegram, model, tmp_path):
    port, report = free_port(), tmp_path / "modules.json"
    env = environment(
        TELEGRAM_BOT_TOKEN=telegram.token, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=model.base_url,
        TELEGRAM_API_BASE_URL=telegram.base_url, DATABASE_PATH=str(tmp_path / "db" / "bot.db"),
        WEBHOOK_URL="https://bot.example.com/tg/hook", WEBHOOK_SECRET=SECRET, PORT=str(port),
        MODULES_REPORT=str(report),
    )
    telegram.push_text(ANN, "so the double knows this chat")  # never polled in webhook mode
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", WITHOUT_TORNADO, cwd=ROOT, env=env,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        async with aiohttp.ClientSession() as http:
            assert await wait_healthy(http, port, alive=lambda: process.returncode is None)
            headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
            update = text_update(600, ANN, "hello without tornado", first_name="Ann")
            async with http.post(f"http://127.0.0.1:{port}/tg/hook", data=json.dumps(update),
                                 headers=headers) as response:
                assert response.status == 200
            async with http.post(f"http://127.0.0.1:{port}/tg/hook", data=json.dumps(update),
                                 headers={**headers, "X-Telegram-Bot-Api-Secret-Token": "wrong"}) as response:
                assert response.status == 403
        [reply] = await telegram.wait_for_sent(ANN, 1)
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), scaled(30))
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = stderr.decode()
    assert process.returncode == 0, log
    assert reply["visible_text"] == "echo: hello without tornado"
    assert "bot stopped cleanly" in log and "Traceback" not in log
    modules = json.loads(report.read_text())
    assert "aiohttp.web" in modules and "telegram.ext" in modules
    assert not [name for name in modules if name.split(".")[0] == "tornado"]
