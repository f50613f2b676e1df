"""bot.py's warm_up readies at start what a first message would otherwise pay for: after it, the rules of a turn
compile no pattern and build no prefilter (RE2 filter) for a pattern."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.timeouts import scaled

ROOT = Path(__file__).resolve().parent.parent

TURN_AFTER_WARM_UP = textwrap.dedent("""
    import re, sys
    from datetime import datetime, timezone
    import bot
    from memory.rules.change_rules import extract_changes
    from memory.rules.events import extract_event_facts
    from memory.rules.rules import extract_rule_facts
    from memory.secrets.masking import mask_secrets
    from memory.style.wishes import extract_style_facts
    from memory.text import prefilter

    bot.warm_up()
    learned = []
    prefilter.PatternFilter = lambda patterns: learned.append([p.pattern[:60] for p in patterns]) or None
    now = datetime(2026, 12, 4, 12, tzinfo=timezone.utc)
    for text in ("Привет! Меня зовут Аня, я живу в Казани, работаю врачом. Пиши без смайликов, пожалуйста.",
                 "Hi, I'm Tom, 34. I love hiking with my dog Rex; please keep answers short.",
                 "Забудь про мою собаку. Вчера рассталась с Олегом, завтра экзамен."):
        mask_secrets(text); extract_changes(text, now); extract_rule_facts(text)
        extract_event_facts(text, now); extract_style_facts(text)
    print(learned)
""")


def test_after_the_warm_up_a_first_message_reads_no_pattern_again():
    done = subprocess.run([sys.executable, "-c", TURN_AFTER_WARM_UP], cwd=ROOT, capture_output=True, text=True,
                          timeout=scaled(120))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
