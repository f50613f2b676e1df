"""Who really speaks in a message, and which of its words are theirs: a chat that posts as itself, forwards, quotes."""

from __future__ import annotations

from telegram import Message, MessageOrigin, MessageOriginChannel, MessageOriginChat, MessageOriginHiddenUser, User

from memory.heard import Heard
from services.companion import Speaker

QUOTE_MAX_CHARS = 500  # a quote is context for the reply; a long one is cut


def speaker_of(message: Message, user: User) -> Speaker:
    """Return whose memory a message speaks to: the chat it was sent on behalf of, else its sender.

    An anonymous group admin's message comes `from` GroupAnonymousBot, and a post on behalf of a channel `from`
    Channel_Bot: bots every such sender shares. The real speaker is `sender_chat`, so memory is keyed on that
    chat's id (negative, so it never meets a user's). Everyone who posts as that chat shares its memory.
    """
    chat = message.sender_chat
    if chat is not None:
        return Speaker(chat.id, chat.title or chat.first_name, None)
    return Speaker(user.id, user.first_name, user.language_code)


def heard_of(message: Message, bot_id: int) -> Heard:
    """Return how the message's words came: someone else's (forwarded), the user's own, and any quote beside them."""
    forwarded = None
    if message.forward_origin is not None:
        forwarded = origin_name(message.forward_origin, bot_id)
    elif message.is_automatic_forward:  # a linked channel's post, copied into its discussion group
        forwarded = message.sender_chat.title if message.sender_chat and message.sender_chat.title else "a channel"
    quote = message.quote.text if message.quote is not None else None
    if quote and len(quote) > QUOTE_MAX_CHARS:
        quote = quote[:QUOTE_MAX_CHARS].rstrip() + "…"
    return Heard(forwarded_from=forwarded, quote=quote or None)


def origin_name(origin: MessageOrigin, bot_id: int) -> str:
    """Return who first wrote a forwarded message, as the model is told: a name, a chat's title, or "you"."""
    user = getattr(origin, "sender_user", None)
    if isinstance(user, User):
        if user.id == bot_id:
            return "you (your own earlier reply)"
        return user.full_name or "someone"
    if isinstance(origin, MessageOriginHiddenUser):
        return origin.sender_user_name or "someone"
    if isinstance(origin, MessageOriginChat):
        return origin.sender_chat.title or "a chat"
    if isinstance(origin, MessageOriginChannel):
        return origin.chat.title or "a channel"
    return "someone"
