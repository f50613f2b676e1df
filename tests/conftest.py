import os

# bot.py opts in to python-telegram-bot's timedelta durations; tests that import the
# Application without bot.py's start-up need the same, or PTB warns (and warnings are errors).
os.environ.setdefault("PTB_TIMEDELTA", "true")
