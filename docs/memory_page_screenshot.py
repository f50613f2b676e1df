"""Makes docs/memory-page.png: the memory page of a sample user, in Chromium at a phone's size, light theme.

The real bot runs in polling mode against the Bot API and OpenAI doubles; the user tells it a few things and a
few more are added as the page would add them, then Playwright opens the page with signed initData.

    .venv/bin/python docs/memory_page_screenshot.py     # needs Debian's chromium
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from memory.continuity import Topic  # noqa: E402
from memory.facts import Ending, Extraction, Relation  # noqa: E402
from tests.doubles import OpenAIDouble, TelegramDouble  # noqa: E402
from tests.harness import make_config, running_bot  # noqa: E402
from tests.pg import free_port  # noqa: E402
from tests.webapp_signing import init_data, launch_fragment  # noqa: E402

ANN = 1001
SAID = ["My name is Anna. I live in Lisbon and I work as a nurse.",
        "I have a cat named Barsik and my sister Kate lives in Porto.", "Never use emoji, please."]
# The links the LLM layer would find (the rules alone find none), named by the keys the rules gave the facts.
LINKS = [Relation("name", "pet:barsik", "owns"), Relation("name", "family:sister_kate", "family_with"),
         Relation("name", "city", "located_in"), Relation("family:sister_kate", "plans:kate_s_wedding", "related_to")]
TYPED = [{"category": "plans", "value": "Kate's wedding", "when": "2026-12-19T15:00"},
         {"category": "interests", "value": "learning the guitar"}]
THEME = {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#707579", "link_color": "#3390ec",
         "button_color": "#3390ec", "button_text_color": "#ffffff", "secondary_bg_color": "#f4f4f5"}


async def main() -> None:
    telegram, model = TelegramDouble(), OpenAIDouble()
    await telegram.start()
    await model.start()
    with tempfile.TemporaryDirectory() as folder:
        config = make_config(telegram, model, Path(folder) / "bot.db", webapp_url="https://bot.example/memory/",
                             port=free_port())
        async with running_bot(config) as app:
            for count, text in enumerate(SAID, start=1):
                telegram.push_text(ANN, text)
                await telegram.wait_for_sent(ANN, count)
            for fields in TYPED:
                await app.bot_data.memory_page.add(ANN, fields)
            now = datetime.now(timezone.utc)
            left = Ending("job_title", on=(now - timedelta(days=3)).date().isoformat())  # a job that is the past
            await app.bot_data.store.facts.save_facts(
                ANN, Extraction(relations=LINKS, endings=[left]), now, 100,
                topic=Topic("night shifts, Barsik's vet visit, Kate's wedding plans", now, now))
            async with async_playwright() as driver:
                browser = await driver.chromium.launch(
                    executable_path=shutil.which("chromium"), headless=True, args=["--no-sandbox"])
                page = await browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=1)
                signed = init_data(telegram.token, ANN, int(time.time()))
                await page.goto(f"http://127.0.0.1:{config.port}/memory/" + launch_fragment(signed, THEME))
                await page.wait_for_selector("body.ready")
                await page.screenshot(path=str(ROOT / "docs" / "memory-page.png"), full_page=True)
                await browser.close()
    await telegram.close()
    await model.close()
    print("wrote docs/memory-page.png")


if __name__ == "__main__":
    asyncio.run(main())
