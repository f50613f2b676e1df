"""Talking: what the user says (typed, spoken, shown) goes to the companion, and its answer comes back."""

from __future__ import annotations

import contextlib
import re

from telegram import Chat, Message, MessageEntity, Update
from telegram.constants import ChatType
from telegram.error import TelegramError

from handlers.context import Context
from handlers.forget_commands import send_unlearned
from handlers.jobs import after_turn
from handlers.notes import note_text, send_note, to_confirm
from handlers.reminder_commands import hear_reminders
from handlers.senders import heard_of, speaker_of
from handlers.texts import text
from handlers.usage_commands import limit_line
from handlers.voice_replies import speak_reply
from llm.client import ModelUnavailable
from memory.heard import OWN_WORDS, Heard
from memory.scopes import Scope
from services.companion import DraftReader, Speaker
from services.media import session_words
from transport.replies import keyboard, send_text, typing_indicator
from transport.streaming import DraftStream

OWN_KINDS = ("text", "voice", "photo")  # the kinds of message whose words are the user's own request
TRY_AGAIN = re.compile(r"ta:([0-9]{1,18})")  # ASCII digits, few enough for a 64-bit id


def addressed_text(message: Message, bot_username: str, bot_id: int) -> str | None:
    """Return the text or caption meant for the bot: all of it in a private chat; in a group only when
    the bot is mentioned or replied to (None otherwise)."""
    content = message.text or message.caption or ""
    if message.chat.type == ChatType.PRIVATE:
        return content.strip()
    mention = f"@{bot_username}".lower()
    entities = message.parse_entities([MessageEntity.MENTION]) if message.text else message.parse_caption_entities(
        [MessageEntity.MENTION]
    )
    mentioned = any(value.lower() == mention for value in entities.values())
    replied = message.reply_to_message is not None and message.reply_to_message.from_user is not None
    replied = replied and message.reply_to_message.from_user.id == bot_id  # type: ignore[union-attr]
    if not (mentioned or replied):
        return None
    return _strip_mention(content, mention).strip()


def _strip_mention(content: str, mention: str) -> str:
    lowered = content.lower()
    index = lowered.find(mention)
    while index != -1:
        content = content[:index] + content[index + len(mention) :]
        lowered = content.lower()
        index = lowered.find(mention)
    return content


async def on_text(update: Update, context: Context) -> None:
    """Answer a text message through the companion."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    content = addressed_text(message, context.bot.username, context.bot.id)
    if content is None:
        return
    if not content:
        await message.reply_text(text("empty", user.language_code))
        return
    await converse(update, context, content)


async def converse(
    update: Update, context: Context, words: str, *, kind: str = "text", image: str | None = None,
    over_limit: str | None = None,
) -> None:
    """Answer the user's words (typed, a transcript, a caption, a sticker's emoji) through the companion.

    In a private chat the answer streams as a draft while the model writes it; elsewhere "typing…" shows.
    Past a daily limit (`over_limit`: one the caller found) the words are kept and the user told once a day.
    A message sent on behalf of a chat speaks to that chat's memory; a forward's words, and a quote, are
    context that teaches nothing (handlers/senders.py).
    """
    message, user = update.effective_message, update.effective_user
    assert message is not None and user is not None
    await answer_turn(context, speaker_of(message, user), message.chat, message.message_id, update.update_id, words,
                      kind=kind, image=image, over_limit=over_limit, heard=heard_of(message, context.bot.id),
                      chat_message_id=message.message_id)


async def on_edit(update: Update, context: Context) -> None:
    """Apply an edited message as a correction of what it taught (and tell, as learning always does, what is now
    remembered where that is shown); the bot never answers an edit."""
    message, user = update.edited_message, update.effective_user
    if message is None or user is None or message.forward_origin is not None:
        return
    content = addressed_text(message, context.bot.username, context.bot.id)
    if not content:
        return
    speaker = speaker_of(message, user)
    private = message.chat.type == ChatType.PRIVATE
    scope = await context.bot_data.companion.scope_of(speaker, message.chat.id, message.chat.title, private,
                                                      meet=False)
    if scope is None:  # a group where they never spoke to the bot: nothing of theirs there to correct
        return
    learned = await context.bot_data.companion.edit(speaker, message.message_id, content, scope)
    if not learned or not private:
        return
    confirmed = to_confirm(learned, bool((await context.bot_data.store.users.settings(speaker.id)).get("notify")))
    if confirmed:
        await send_note(context.bot, message.chat.id, confirmed, user.language_code)


async def try_again(update: Update, context: Context) -> None:
    """Answer the message a model outage left unanswered ("ta:<update id>"): the presser's own last message
    only, once; any other press has expired."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    user, chat = query.from_user, query.message.chat
    speaker = Speaker(user.id, user.first_name, user.language_code)
    scope = await context.bot_data.companion.scope_of(speaker, chat.id, chat.title, chat.type == ChatType.PRIVATE,
                                                      meet=False)
    pressed = TRY_AGAIN.fullmatch(query.data or "")
    waiting = await context.bot_data.store.turns.last_unanswered(scope.key) if pressed and scope else None
    if waiting is None or waiting[0] != int(pressed[1]):  # type: ignore[index]
        await query.answer(text("button_expired", user.language_code))
        return
    await query.answer()
    with contextlib.suppress(TelegramError):  # pressed: the button goes (a new apology brings a new one)
        await query.edit_message_reply_markup(None)
    update_id, content, kind = waiting
    await answer_turn(context, speaker, chat, query.message.message_id, update_id, session_words(kind, content),
                      kind=kind)


async def answer_turn(
    context: Context, speaker: Speaker, chat: Chat, draft_id: int, update_id: int, words: str, *, kind: str = "text",
    image: str | None = None, over_limit: str | None = None, heard: Heard = OWN_WORDS,
    chat_message_id: int | None = None,
) -> None:
    """Run the turn of update `update_id` for `speaker` and send what comes of it into `chat` (a draft numbered
    `draft_id` in a private chat); a model outage gets the apology with a Try again button. The speaker's memory
    pass waits until the reply is delivered, and their idle delay counts from then. In a group the turn speaks
    to the speaker's memory in that group alone (memory/scopes.py)."""
    services = context.bot_data
    private = chat.type == ChatType.PRIVATE
    scope = await services.companion.scope_of(speaker, chat.id, chat.title, private)
    assert scope is not None  # met now when new
    draft = services.drafts.open(context.bot, chat.id, draft_id) if private else None
    with services.keeper.conversation(scope.key):
        await _run_turn(context, speaker, chat, update_id, words, draft, scope, kind=kind, image=image,
                        over_limit=over_limit, heard=heard, chat_message_id=chat_message_id)


async def _run_turn(
    context: Context, speaker: Speaker, chat: Chat, update_id: int, words: str, draft: DraftStream | None,
    scope: Scope, *, kind: str, image: str | None, over_limit: str | None, heard: Heard, chat_message_id: int | None,
) -> None:
    services, language, private = context.bot_data, speaker.language_code, scope.private
    # Only the user's own words ask for a reminder: never a forward, a sticker, or the quote beside them.
    own = heard.forwarded_from is None and kind in OWN_KINDS
    reminders = await hear_reminders(context, speaker, chat, words, update_id, own)
    first_words = services.metrics.first_words(services.inbox.arrived(update_id))  # a first draft, else the reply
    async with typing_indicator(context.bot, chat.id, services.config.typing_interval_s) as stop_typing:
        if draft is not None:  # in a private chat the reply shows as a draft: "typing…" only until the first one
            draft.when_shown(stop_typing)
            draft.when_shown(first_words)
        try:
            try:
                answer = await services.companion.reply(
                    speaker, words, update_id, kind=kind, image=image,
                    on_text=draft.show if draft else None if private else unseen,
                    private=private, over_limit=over_limit, heard=heard, chat_message_id=chat_message_id,
                    reminders=reminders, scope=scope,
                )
            finally:
                if draft is not None:  # no draft may arrive after the answer or the apology
                    await draft.close()
        except ModelUnavailable:
            services.metrics.turn("model_failure")
            retry = keyboard([[(text("try_again", language), f"ta:{update_id}")]])
            await context.bot.send_message(chat.id, text("model_down", language), reply_markup=retry)
            return
    if answer is not None:
        services.metrics.turn("forget" if answer.unlearned is not None
                             else "limited" if answer.limited is not None else "answered")
    if answer is not None and answer.unlearned is not None:
        if answer.text:
            await _send_reply(context, chat.id, answer.text, scope, answer.reply_id)
        await send_unlearned(context.bot, chat.id, answer.unlearned, language, private)
    elif answer is not None and answer.limited is not None:
        if answer.limited.notice:
            await send_text(context.bot, chat.id, limit_line(answer.limited, services.clock(), language))
        after_turn(services, context.job_queue, scope.key, answer.unread, False)  # the extractor still reads it
    elif answer is not None:
        reply = answer.text
        if answer.unseen_photo:
            reply += "\n\n" + text("photo_unseen", language)
        confirmed = to_confirm(answer.learned, answer.notify)
        if confirmed and not private:  # no Undo buttons outside the user's private chat
            reply += "\n\n" + note_text(confirmed, language)
        await _send_reply(context, chat.id, reply, scope, answer.reply_id)
        first_words()
        if private:  # spoken only in the user's private chat (docs/behaviour.md, "Spoken replies")
            await speak_reply(context.bot, services.spoken, chat.id, speaker.id, answer.text, spoke=kind == "voice",
                              interval=services.config.typing_interval_s)
        if confirmed and private:
            await send_note(context.bot, chat.id, confirmed, language)
        after_turn(services, context.job_queue, scope.key, answer.unread, bool(answer.learned))


def unseen(read: DraftReader) -> None:
    """Take the answer so far and show none of it: a group has no drafts, yet its reply streams too, so that a slow
    local server's long answer is waited for piece by piece (each within MODEL_TIMEOUT_SECONDS), not whole within
    one timeout (a 270M model's 1,024 tokens take about 40 s on 2 cores: three timeouts and the apology)."""


async def _send_reply(context: Context, chat_id: int, reply: str, scope: Scope, reply_id: int | None) -> None:
    """Send the reply (with the 🧠 button under it where WHY_BUTTON is on) and record which Telegram message carried
    it, so that a "/why" in reply to it finds it."""
    brain = None
    if context.bot_data.config.why_button and reply_id is not None:
        brain = keyboard([[("🧠", f"wy:r:{reply_id}")]])
    sent = await send_text(context.bot, chat_id, reply, reply_markup=brain)
    if reply_id is not None and sent is not None:
        await context.bot_data.store.turns.mark_sent(scope.key, reply_id, sent)
