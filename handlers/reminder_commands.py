"""Reminders in Telegram: the bot's line on what a message did to them, /reminders, their buttons, and delivery.

Buttons carry `rm:<action>:<reminder id>[:<number>]`: c cancel, t change time (shows the shifts), s shift an active
one by minutes, z snooze a delivered one (a new one-off that many minutes from now), d done, p pick the time the bot
asked about (minutes since the epoch). A button acts only on the presser's own reminder.
"""

from __future__ import annotations

import contextlib
import html
import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from telegram import Chat, InlineKeyboardMarkup, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import TelegramError
from telegram.ext import Application, ExtBot

from handlers.context import Context
from handlers.jobs import delivered, job_queue
from handlers.reminder_timer import ReminderTimer
from handlers.texts import text
from memory.reminder import Reminder
from memory.reminders.kinds import AskReminder, SetReminder
from memory.reminders.reminder_lines import confirmation, delivery, moment, question
from memory.reminders.repeat import Repeat
from memory.store.user_rows import UserRows
from services.companion import Speaker
from services.reminders import ForTurn, Outcome, Sender, model_note
from transport.replies import keyboard, send_text

BUTTON = re.compile(r"rm:([ctszdp]):([0-9]{1,18})(?::([0-9]{1,12}))?")
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
SHIFTS = (10, 60, 24 * 60)  # Change time's choices, in minutes
SNOOZES = (10, 60)  # a delivered reminder's In 10 minutes and In an hour
LIST_LIMIT = 50
FIRST_SWEEP_S = 1.0  # after start-up: what fell due while the bot was down goes out now


def as_request(reminder: Reminder) -> SetReminder:
    """Return a stored reminder as the parser's SetReminder, in its own zone, for the confirmation line."""
    repeat = Repeat.parse(reminder.rule) if reminder.rule else None
    return SetReminder(reminder.task, reminder.due_at.astimezone(ZoneInfo(reminder.zone)), repeat)


def confirmed(reminder: Reminder, language: str | None, now: datetime) -> tuple[str, InlineKeyboardMarkup | None]:
    """Return the confirmation line of a reminder set or moved (said in its own zone), with its Cancel and Change
    time buttons."""
    buttons = [[(text("reminder_cancel", language), f"rm:c:{reminder.id}"),
                (text("reminder_change", language), f"rm:t:{reminder.id}")]]
    return confirmation(as_request(reminder), language or "", local(now, reminder)), keyboard(buttons)


def local(now: datetime, reminder: Reminder) -> datetime:
    """Return `now` in the reminder's own zone, where its "today" and "tomorrow" are said."""
    return now.astimezone(ZoneInfo(reminder.zone))


def describe(outcome: Outcome, language: str | None, now: datetime) -> tuple[str, InlineKeyboardMarkup | None]:
    """Return the bot's own line on what a message did to the user's reminders, with its buttons (`now`: aware, in
    any zone; each reminder is said in its own)."""
    if outcome.kind in ("set", "moved") and outcome.reminder is not None:
        return confirmed(outcome.reminder, language, now)
    if outcome.kind == "ask" and outcome.reminder is not None:
        mine = local(now, outcome.reminder)
        one_day = not outcome.offered
        picks = [(f"{at.astimezone(mine.tzinfo):%H:%M}" if one_day else moment(at, mine, language or ""),
                  f"rm:p:{outcome.reminder.id}:{minutes(at)}") for at in outcome.choices]
        rows = [picks] if one_day else [[pick] for pick in picks]  # a day in each label: one a row
        if outcome.offered:  # neither the rules nor the model could say when: the model's question, or the bot's
            said = outcome.question or text("reminder_when", language)
            return (f"⏰ {outcome.task}: {said}" if outcome.task else f"⏰ {said}"), keyboard(rows)
        ask = AskReminder(outcome.task, tuple(SetReminder(outcome.task, at) for at in outcome.choices))
        line = question(ask, language or "", mine)
        return f"⏰ {outcome.task}: {line}" if outcome.task else f"⏰ {line}", keyboard(rows)
    if outcome.kind == "cancelled" and outcome.reminder is not None:
        return text("reminder_cancelled", language, task=outcome.reminder.task), None
    if outcome.kind == "which":
        rows = [[(f"✕ {moment(r.due_at, local(now, r), language or '')}: {r.task}"[:60],
                  f"rm:c:{r.id}")] for r in outcome.matches]
        return text("reminder_which", language), keyboard(rows)
    if outcome.kind == "unclear" and outcome.question:
        return outcome.question, None
    return text(f"reminder_{outcome.kind}", language), None


def minutes(at: datetime) -> int:
    """Return `at` as whole minutes since the epoch, for a button's data."""
    return int((at - EPOCH).total_seconds() // 60)


def heard_at(arrived: float | None, clock: Callable[[], datetime]) -> datetime | None:
    """Return the wall-clock time at which a message reached the bot, from its time.monotonic() `arrived`, or None
    when that is not known (replayed after a restart): "через 1 минуту" counts from the message, not from when its
    turn reached the reminders."""
    if arrived is None:
        return None
    return clock() - timedelta(seconds=max(0.0, time.monotonic() - arrived))


async def hear_reminders(
    context: Context, speaker: Speaker, chat: Chat, words: str, update_id: int, own: bool
) -> ForTurn:
    """Act on a reminder request in the user's `own` words and send the bot's line on it (and, in their private
    chat, once, the reminders missed while the bot was down); return what the turn's model should see of them.
    In a group, cancelling and moving reach only the reminders set in that group, and the model sees none."""
    services, language = context.bot_data, speaker.language_code
    private = chat.type == ChatType.PRIVATE
    asker = None if private or speaker.id < 0 else (speaker.first_name or str(speaker.id))
    sent = heard_at(services.inbox.arrived(update_id), services.reminders.clock)
    outcome = await services.reminders.hear(speaker.id, chat.id, words, update_id, asker, sent) if own else None
    listed, missed = await services.reminders.for_turn(speaker.id, private)
    if missed:
        await send_text(context.bot, chat.id, text("reminder_missed", language, tasks="; ".join(missed)))
    if outcome is None:
        return ForTurn(listed)
    line, markup = describe(outcome, language, services.clock())
    await context.bot.send_message(chat.id, line, reply_markup=markup)
    return ForTurn(listed, model_note(outcome))


async def reminders_command(update: Update, context: Context) -> None:
    """/reminders: the active ones, soonest first, each with its Cancel button."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    services, language = context.bot_data, user.language_code
    active = await services.store.reminders.reminders(user.id)
    if not active:
        await message.reply_text(text("reminders_none", language))
        return
    now = services.clock()
    lines, rows = [text("reminders_header", language)], []
    for reminder in active[:LIST_LIMIT]:
        zone = ZoneInfo(reminder.zone)
        when = moment(reminder.due_at.astimezone(zone), now.astimezone(zone), language or "")
        repeat = Repeat.parse(reminder.rule) if reminder.rule else None
        lines.append(f"⏰ {when}: {reminder.task}" + (f" ({repeat.describe(language or '')})" if repeat else ""))
        rows.append([(f"✕ {reminder.task}"[:40], f"rm:c:{reminder.id}")])
    await message.reply_text("\n".join(lines), reply_markup=keyboard(rows))


async def reminder_button(update: Update, context: Context) -> None:
    """Carry out a reminder's button for the presser's own reminder; any other press has expired."""
    query = update.callback_query
    if query is None:
        return
    user, services = query.from_user, context.bot_data
    language = user.language_code
    pressed = BUTTON.fullmatch(query.data or "")
    found = await services.store.reminders.reminder(user.id, int(pressed[2])) if pressed else None
    if pressed is None or found is None:
        await query.answer(text("button_expired", language))
        return
    action, number = pressed[1], int(pressed[3] or 0)
    now = services.clock()
    if action == "c":
        done = await services.store.reminders.cancel_reminder(user.id, found.id)
        await query.answer()
        await _edit(query, text("reminder_cancelled" if done else "button_expired", language, task=found.task))
    elif action == "t":
        await query.answer()
        shifts = [(text(f"reminder_shift_{by}", language), f"rm:s:{found.id}:{by}") for by in SHIFTS]
        with contextlib.suppress(TelegramError):
            await query.edit_message_reply_markup(keyboard([shifts]))
    elif action in ("s", "z", "p") and (number or action != "s"):
        if action == "p":
            at = EPOCH + timedelta(minutes=number)
            changed = await services.reminders.choose(user.id, found.id, at)
        elif action == "s":
            changed = await services.reminders.shift(user.id, found.id, timedelta(minutes=number))
        else:
            changed = await services.reminders.snooze(user.id, found.id, timedelta(minutes=number))
        if changed is None:
            await query.answer(text("button_expired", language))
            return
        await query.answer()
        line, markup = confirmed(changed, language, now)
        await _edit(query, line, markup)
    else:  # done
        await query.answer("👍")
        with contextlib.suppress(TelegramError):
            await query.edit_message_reply_markup(None)


async def _edit(query, line: str, markup: InlineKeyboardMarkup | None = None) -> None:
    with contextlib.suppress(TelegramError):  # the message may be too old to edit: the answer said enough
        await query.edit_message_text(line, reply_markup=markup)


def reminder_sender(bot: ExtBot, users: UserRows) -> Sender:
    """Return the function that delivers a due reminder into the chat it was asked in (a group's mentions the
    asker), with its Done, In 10 minutes and In an hour buttons, and says how it went."""

    async def send(reminder: Reminder, late: timedelta | None) -> str:
        profile = await users.profile(reminder.user_id)
        language = profile.language_code if profile else None
        line = html.escape(delivery(reminder.task, language or "", late))
        if reminder.asker is not None:
            line = f'<a href="tg://user?id={reminder.user_id}">{html.escape(reminder.asker)}</a>, {line}'
        buttons = keyboard([
            [(text("reminder_done", language), f"rm:d:{reminder.id}")],
            [(text(f"reminder_snooze_{by}", language), f"rm:z:{reminder.id}:{by}") for by in SNOOZES],
        ])
        return await delivered(
            bot.send_message(reminder.chat_id, line, parse_mode=ParseMode.HTML, reply_markup=buttons), "a reminder"
        )

    return send


async def start_reminders(app: Application) -> None:
    """Sweep for due reminders a second after start-up, then when the soonest is due (handlers/reminder_timer.py).
    On SQLite (one process) claims left by a process that died while sending are let go first; on PostgreSQL
    another machine's claim simply expires."""
    services = app.bot_data
    if not services.store.on_postgres:
        await services.store.reminders.release_reminder_claims()
    ReminderTimer(job_queue(app), services.reminders, services.config.reminder_sweep_s).start(FIRST_SWEEP_S)
