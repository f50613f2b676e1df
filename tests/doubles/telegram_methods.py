"""Bot API method implementations for TelegramDouble, with the real service's checks."""

from __future__ import annotations

import re
import time
from pathlib import PurePosixPath
from typing import Any

from .telegram_markup import ParseError, parse_text, utf16_len

CHAT_ACTIONS = {
    "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
    "upload_document", "choose_sticker", "find_location", "record_video_note", "upload_video_note",
}
DEFAULT_EXCLUDED_UPDATES = {"chat_member", "message_reaction", "message_reaction_count"}
COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
NOT_MODIFIED = ("Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message")
METHODS = {
    "getMe": "_get_me", "getUpdates": "_get_updates", "deleteWebhook": "_delete_webhook",
    "setWebhook": "_set_webhook", "getWebhookInfo": "_get_webhook_info", "logOut": "_true",
    "close": "_true", "sendMessage": "_send_message", "editMessageText": "_edit_message_text",
    "deleteMessage": "_delete_message", "sendChatAction": "_send_chat_action",
    "setMyCommands": "_set_my_commands", "deleteMyCommands": "_delete_my_commands",
    "getMyCommands": "_get_my_commands", "answerCallbackQuery": "_answer_callback_query",
    "sendDocument": "_send_document", "editMessageReplyMarkup": "_edit_message_reply_markup",
    "getFile": "_get_file", "sendMessageDraft": "_send_message_draft",
    "setChatMenuButton": "_set_chat_menu_button", "getChatMenuButton": "_get_chat_menu_button",
    "sendVoice": "_send_voice",
}
MAX_DOWNLOAD_SIZE = 20 * 1024 * 1024
FILE_FOLDERS = {"voice": ("voice", ".oga"), "audio": ("music", ".mp3"),
                "video_note": ("video_notes", ".mp4"), "photo": ("photos", ".jpg"),
                "document": ("documents", ""), "sticker": ("stickers", ".webp"),
                "video": ("videos", ".mp4"), "animation": ("animations", ".mp4")}
AUDIO_SUFFIXES = {"audio/mpeg": ".mp3", "audio/ogg": ".ogg", "audio/mp4": ".m4a",
                  "audio/x-m4a": ".m4a", "audio/wav": ".wav", "audio/x-wav": ".wav",
                  "audio/flac": ".flac"}


def opus_voice(data: bytes) -> bool:
    """True when `data` is what Telegram plays as a voice note: an Ogg stream whose first packet is OpusHead."""
    if data[:4] != b"OggS" or len(data) < 27:
        return False
    body = 27 + data[26]
    return data[body:body + 8] == b"OpusHead"


def file_path_for(kind: str, item: dict, number: int) -> str:
    """Telegram-like file_path of a media item, e.g. "voice/file_3.oga", "documents/file_4.pdf"."""
    folder, suffix = FILE_FOLDERS.get(kind, ("documents", ""))
    named = PurePosixPath(str(item.get("file_name") or "")).suffix
    if kind == "document":
        suffix = named
    elif kind == "audio":
        suffix = named or AUDIO_SUFFIXES.get(item.get("mime_type", ""), suffix)
    elif kind == "sticker" and (item.get("is_animated") or item.get("is_video")):
        suffix = ".tgs" if item.get("is_animated") else ".webm"
    return f"{folder}/file_{number}{suffix}"


class ApiError(Exception):
    """A Bot API error answer: HTTP status, description and optional parameters."""

    def __init__(self, code: int, description: str, parameters: dict | None = None) -> None:
        super().__init__(description)
        self.code, self.description, self.parameters = code, description, parameters


class BotApiMethods:
    """Mixin with one handler per Bot API method; state lives on TelegramDouble."""

    def _last_bot_message(self, chat_id: int) -> dict:
        for (cid, _), message in reversed(self._messages.items()):
            if cid == chat_id and message["from"]["id"] == self.bot_user["id"]:
                return message
        return self._new_bot_message(chat_id, {"text": "(earlier bot message)"})

    def _new_bot_message(self, chat_id: int, fields: dict) -> dict:
        message = {"message_id": self._next_message_id(chat_id), "from": self.bot_user,
                   "chat": self._chats[chat_id], "date": int(time.time()), **fields}
        self._messages[(chat_id, message["message_id"])] = message
        return message

    def _chat_id(self, p: dict) -> int:
        chat_id = p.get("chat_id")
        if chat_id is None or chat_id == "":
            raise ApiError(400, "Bad Request: chat_id is empty")
        if isinstance(chat_id, str) and re.fullmatch(r"-?\d+", chat_id):
            chat_id = int(chat_id)
        if isinstance(chat_id, bool) or chat_id not in self._chats:
            raise ApiError(400, "Bad Request: chat not found")
        if chat_id in self.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        return chat_id

    def _caption_into(self, p: dict, fields: dict[str, Any]) -> str:
        """Check p's caption as Telegram does (1,024 characters once parsed), put it and its entities into a sent
        message's `fields`; return the visible caption."""
        caption, entities = self._formatted(p, "caption", 1024, "message caption")
        if caption:
            fields["caption"] = caption
        if entities:
            fields["caption_entities"] = entities
        return caption

    def _formatted(self, p: dict, key: str, limit: int, what: str, *,
                   allow_empty: bool = False) -> tuple[str, list]:
        """Parse p[key] with p's parse_mode; check emptiness and the length limit."""
        allow_empty = allow_empty or key == "caption"
        raw = p.get(key)
        if raw is None or raw == "":
            if allow_empty:
                return "", []
            raise ApiError(400, "Bad Request: message text is empty")
        try:
            text, entities = parse_text(str(raw), p.get("parse_mode"))
        except ParseError as error:
            raise ApiError(400, f"Bad Request: can't parse entities: {error}") from None
        except KeyError:
            raise ApiError(400, "Bad Request: unsupported parse_mode") from None
        if not text.strip() and not allow_empty:
            raise ApiError(400, "Bad Request: message text is empty")
        if utf16_len(text) > limit:
            raise ApiError(400, f"Bad Request: {what} is too long")
        given = p.get("caption_entities" if key == "caption" else "entities")
        if not p.get("parse_mode") and isinstance(given, list):
            entities = given
        return text, entities

    def _markup(self, p: dict) -> dict | None:
        """Validate reply_markup; return it when it is an inline keyboard, else None."""
        markup = p.get("reply_markup")
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
        if not {"keyboard", "remove_keyboard", "force_reply", "inline_keyboard"} & markup.keys():
            raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
        rows = markup.get("inline_keyboard")
        if rows is None:
            return None
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise ApiError(400, "Bad Request: field \"inline_keyboard\" must be an Array of Array")
        for button in (b for row in rows for b in row):
            if not isinstance(button, dict) or not button.get("text"):
                raise ApiError(400, "Bad Request: BUTTON_TEXT_INVALID")
            if len(button) < 2:
                raise ApiError(400, "Bad Request: can't parse inline keyboard button: "
                                    "Text buttons are unallowed in the inline keyboard")
            if "callback_data" in button and not 1 <= len(
                    str(button["callback_data"]).encode("utf-8")) <= 64:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
            if "web_app" in button:
                self._check_web_app(button["web_app"])
                if self._chats.get(self._chat_id(p), {}).get("type") != "private":
                    raise ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")
        return markup

    @staticmethod
    def _check_web_app(web_app: object) -> None:
        url = web_app.get("url") if isinstance(web_app, dict) else None
        if not isinstance(url, str) or not url.startswith("https://"):
            raise ApiError(400, f"Bad Request: inline keyboard button Web App URL '{url}' is invalid: "
                                "Only HTTPS links are allowed")

    def _set_chat_menu_button(self, p: dict) -> bool:
        button = p.get("menu_button") or {"type": "default"}
        if not isinstance(button, dict) or button.get("type") not in ("default", "commands", "web_app"):
            raise ApiError(400, "Bad Request: can't parse menu button JSON object")
        if button["type"] == "web_app":
            if not 1 <= len(str(button.get("text") or "")) <= 64:
                raise ApiError(400, "Bad Request: BUTTON_TEXT_INVALID")
            self._check_web_app(button.get("web_app"))
        if p.get("chat_id") is not None:
            self._chat_id(p)
        self.menu_button = button
        return True

    def _get_chat_menu_button(self, p: dict) -> dict:
        return self.menu_button

    def _bot_message(self, p: dict, verb: str) -> dict:
        chat_id = self._chat_id(p)
        message_id = p.get("message_id")
        if not isinstance(message_id, int) or isinstance(message_id, bool):
            raise ApiError(400, "Bad Request: message identifier is not specified")
        message = self._messages.get((chat_id, message_id))
        if message is None:
            raise ApiError(400, f"Bad Request: message to {verb} not found")
        if verb == "edit" and message["from"]["id"] != self.bot_user["id"]:
            raise ApiError(400, "Bad Request: message can't be edited")
        return message

    @staticmethod
    def _true(p: dict) -> bool:
        return True

    def _get_me(self, p: dict) -> dict:
        return dict(self.bot_user, can_join_groups=True, can_read_all_group_messages=False,
                    supports_inline_queries=False)

    async def _get_updates(self, p: dict) -> list[dict]:
        if self.webhook_url:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")
        offset = int(p.get("offset") or 0)
        limit = min(max(int(p.get("limit") or 100), 1), 100)
        timeout = min(max(float(p.get("timeout") or 0), 0.0), 50.0)
        if "allowed_updates" in p:
            self._allowed_updates = set(p["allowed_updates"] or []) or None
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]

        def ready() -> list[dict] | None:
            if generation != self._poll_generation:
                raise ApiError(409, "Conflict: terminated by other getUpdates request; "
                                    "make sure that only one bot instance is running")
            self._updates = [u for u in self._updates if self._allowed(u)]
            return self._updates[:limit] or None
        return await self._wait_until(ready, timeout) or []

    def _allowed(self, update: dict) -> bool:
        kind = next((k for k in update if k != "update_id"), "")
        if self._allowed_updates is None:
            return kind not in DEFAULT_EXCLUDED_UPDATES
        return kind in self._allowed_updates

    def _delete_webhook(self, p: dict) -> bool:
        self.webhook_url, self.webhook_secret = "", None
        if p.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _set_webhook(self, p: dict) -> bool:
        url = str(p.get("url") or "")
        if url and not url.startswith("https://"):
            raise ApiError(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        if p.get("drop_pending_updates"):
            self._updates.clear()
        self.webhook_url, self.webhook_secret = url, p.get("secret_token")
        return True

    def _get_webhook_info(self, p: dict) -> dict:
        return {"url": self.webhook_url, "has_custom_certificate": False,
                "pending_update_count": len(self._updates)}

    def _send_message(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        text, entities = self._formatted(p, "text", 4096, "message")
        markup = self._markup(p)
        reply = p.get("reply_parameters") or {}
        reply_id = reply.get("message_id", p.get("reply_to_message_id"))
        allow = reply.get("allow_sending_without_reply", p.get("allow_sending_without_reply"))
        if reply_id is not None and (chat_id, reply_id) not in self._messages and not allow:
            raise ApiError(400, "Bad Request: message to be replied not found")
        fields: dict[str, Any] = {"text": text}
        if entities:
            fields["entities"] = entities
        if markup:
            fields["reply_markup"] = markup
        if reply_id is not None and (chat_id, reply_id) in self._messages:  # as Telegram: the message answered
            fields["reply_to_message"] = dict(self._messages[(chat_id, reply_id)])
        message = self._new_bot_message(chat_id, fields)
        self.sent.append(dict(p, chat_id=chat_id, message_id=message["message_id"],
                              visible_text=text, at=time.monotonic()))
        return message

    def _edit_message_text(self, p: dict) -> dict:
        message = self._bot_message(p, "edit")
        text, entities = self._formatted(p, "text", 4096, "message")
        markup = self._markup(p)
        if (message.get("text"), message.get("entities") or [], message.get("reply_markup")) == (
                text, entities, markup):
            raise ApiError(400, NOT_MODIFIED)
        message.update(text=text, edit_date=int(time.time()))
        for key, value in (("entities", entities), ("reply_markup", markup)):
            message.pop(key, None)
            if value:
                message[key] = value
        return message

    def _edit_message_reply_markup(self, p: dict) -> dict:
        message = self._bot_message(p, "edit")
        markup = self._markup(p)
        if message.get("reply_markup") == markup:
            raise ApiError(400, NOT_MODIFIED)
        message.pop("reply_markup", None)
        if markup:
            message["reply_markup"] = markup
        message["edit_date"] = int(time.time())
        return message

    def _delete_message(self, p: dict) -> bool:
        message = self._bot_message(p, "delete")
        del self._messages[(message["chat"]["id"], message["message_id"])]
        return True

    def _send_chat_action(self, p: dict) -> bool:
        self._chat_id(p)
        if p.get("action") not in CHAT_ACTIONS:
            raise ApiError(400, "Bad Request: wrong parameter action in request")
        return True

    def _set_my_commands(self, p: dict) -> bool:
        commands = p.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError(400, "Bad Request: can't parse commands JSON object")
        for command in commands:
            if not isinstance(command, dict) or not COMMAND_RE.fullmatch(
                    str(command.get("command", ""))):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise ApiError(400, "Bad Request: command description is empty or too long")
        self.commands = commands
        return True

    def _delete_my_commands(self, p: dict) -> bool:
        self.commands = []
        return True

    def _get_my_commands(self, p: dict) -> list:
        return self.commands

    def _answer_callback_query(self, p: dict) -> bool:
        query_id = str(p.get("callback_query_id", ""))
        if query_id not in self._callback_ids:
            raise ApiError(400, "Bad Request: query is too old and response timeout expired "
                                "or query ID is invalid")
        self._callback_ids.discard(query_id)
        return True

    def _send_document(self, p: dict) -> dict:
        chat_id = self._chat_id(p)
        document = p.get("document")
        if isinstance(document, str) and document.startswith("attach://"):
            document = p.get(document[len("attach://"):])
        if isinstance(document, dict):
            if not document["content"]:
                raise ApiError(400, "Bad Request: file must be non-empty")
            self._file_counter += 1
            info = {"file_id": f"DOCUMENT-FILE-{self._file_counter}",
                    "file_unique_id": f"Udoc{self._file_counter}",
                    "file_name": document["filename"], "mime_type": document["mime_type"],
                    "file_size": len(document["content"])}
            self._register_file("document", info, document["content"])
        elif isinstance(document, str) and document:
            self._file_counter += 1
            info = {"file_id": document, "file_unique_id": f"Udoc{self._file_counter}"}
        else:
            raise ApiError(400, "Bad Request: there is no document in the request")
        fields: dict[str, Any] = {"document": info}
        caption = self._caption_into(p, fields)
        message = self._new_bot_message(chat_id, fields)
        self.documents.append(dict(p, chat_id=chat_id, document=document,
                                   message_id=message["message_id"], visible_caption=caption))
        return message

    def _send_voice(self, p: dict) -> dict:
        """sendVoice: an uploaded OGG/Opus file (or a known file_id), an optional caption of at most 1,024
        characters checked like any caption, an optional whole-number duration."""
        chat_id = self._chat_id(p)
        voice = p.get("voice")
        if isinstance(voice, str) and voice.startswith("attach://"):
            voice = p.get(voice[len("attach://"):])
        if isinstance(voice, dict):
            content = voice["content"]
            if not content:
                raise ApiError(400, "Bad Request: file must be non-empty")
            if not opus_voice(content):
                # Telegram plays only OGG/Opus as a voice note; anything else is refused here, never a silent bubble
                raise ApiError(400, "Bad Request: VOICE_FILE_INVALID")
            self._file_counter += 1
            info = {"file_id": f"VOICE-FILE-{self._file_counter}", "file_unique_id": f"Uvoice{self._file_counter}",
                    "duration": 0, "mime_type": "audio/ogg", "file_size": len(content)}
            self._register_file("voice", info, content)
        elif isinstance(voice, str) and voice in self._files:
            content = self._files[voice]["content"]
            info = dict(self._files[voice]["item"])
        else:
            raise ApiError(400, "Bad Request: there is no voice in the request")
        duration = p.get("duration")
        if duration is not None:
            if isinstance(duration, bool) or not isinstance(duration, int) or duration < 0:
                raise ApiError(400, "Bad Request: wrong duration specified")
            info["duration"] = duration
        fields: dict[str, Any] = {"voice": info}
        caption = self._caption_into(p, fields)
        self._markup(p)
        message = self._new_bot_message(chat_id, fields)
        self.voices.append(dict(p, chat_id=chat_id, voice=info, content=content, message_id=message["message_id"],
                                visible_caption=caption))
        return message

    def _get_file(self, p: dict) -> dict:
        file_id = p.get("file_id")
        entry = self._files.get(file_id) if isinstance(file_id, str) else None
        if entry is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        size = entry["item"].get("file_size")
        if size is not None and size > MAX_DOWNLOAD_SIZE:
            raise ApiError(400, "Bad Request: file is too big")
        if entry["content"] is None:
            # pushed without content: the double has no bytes it could serve
            raise ApiError(400, "Bad Request: invalid file_id")
        if entry["path"] is None:
            self._file_counter += 1
            entry["path"] = file_path_for(entry["kind"], entry["item"], self._file_counter)
            self._paths[entry["path"]] = file_id
        item = entry["item"]
        return {"file_id": file_id, "file_unique_id": item["file_unique_id"],
                "file_size": size if size is not None else len(entry["content"]),
                "file_path": entry["path"]}

    def _send_message_draft(self, p: dict) -> bool:
        if self._draft_refusal is not None:
            raise self._draft_refusal
        chat_id = self._chat_id(p)
        if self._chats[chat_id]["type"] != "private":
            raise ApiError(400, "Bad Request: TEXTDRAFT_PEER_INVALID")
        draft_id = p.get("draft_id")
        if isinstance(draft_id, str) and re.fullmatch(r"-?\d+", draft_id):
            draft_id = int(draft_id)
        if not isinstance(draft_id, int) or isinstance(draft_id, bool) or draft_id == 0:
            raise ApiError(400, "Bad Request: DRAFT_ID_INVALID")
        text, _ = self._formatted(p, "text", 4096, "message", allow_empty=True)
        self.drafts.append(dict(p, chat_id=chat_id, draft_id=draft_id, visible_text=text,
                                at=time.monotonic()))
        return True
