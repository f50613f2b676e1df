"""Strict local double of the Telegram Bot API, served by aiohttp for python-telegram-bot."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.timeouts import scaled

from .telegram_markup import utf16_len
from .telegram_methods import METHODS, ApiError, BotApiMethods

RAW_KEYS = {"text", "caption", "secret_token", "callback_query_id", "url", "inline_message_id"}
MEDIA_DEFAULTS = {
    "sticker": {"type": "regular", "width": 512, "height": 512, "is_animated": False,
                "is_video": False, "emoji": "🙂"},
    "voice": {"duration": 2, "mime_type": "audio/ogg"},
    "audio": {"duration": 3, "mime_type": "audio/mpeg"},
    "document": {"file_name": "file.txt", "mime_type": "text/plain"},
    "video": {"width": 640, "height": 360, "duration": 3},
    "video_note": {"length": 240, "duration": 3},
    "animation": {"width": 320, "height": 240, "duration": 2},
}
# What Telegram's front end answers while the Bot API behind it is down: nginx's page, not JSON.
BAD_GATEWAY_PAGE = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
                    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n"
                    "</body>\r\n</html>\r\n")
MENTION_RE = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}")


def _decode(key: str, value: str) -> Any:
    """Decode one form value the way PTB encoded it (JSON, except raw string keys)."""
    if key in RAW_KEYS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


class TelegramDouble(BotApiMethods):
    """Bot API double: push updates in, inspect what the bot called, inject failures.

    Media built with content=bytes are served by getFile and GET /file/bot<token>/<path>
    (recorded in downloads); sendMessageDraft calls that pass the checks land in drafts.
    """

    def __init__(self, token: str = "123456:TEST-TOKEN", bot_id: int = 777000111,
                 bot_username: str = "companion_test_bot") -> None:
        self.token = token
        self.bot_id, self.bot_username = bot_id, bot_username
        self.bot_user = {"id": bot_id, "is_bot": True, "first_name": "Companion",
                         "username": bot_username}
        self.calls: list[tuple[str, dict]] = []
        self.call_times: list[float] = []  # time.monotonic() of each of calls
        self.sent: list[dict] = []
        self.documents: list[dict] = []
        self.voices: list[dict] = []  # accepted sendVoice calls, each with the file's bytes as `content`
        self.drafts: list[dict] = []
        self.downloads: list[str] = []
        self.commands: list = []
        self.menu_button: dict = {"type": "commands"}  # a fresh bot's: the command list
        self.webhook_url = ""
        self.webhook_secret: str | None = None
        self._updates: list[dict] = []
        self._next_update_id = 1
        self._allowed_updates: set[str] | None = None
        self._poll_generation = 0
        self._chats: dict[int, dict] = {}
        self._users: dict[int, dict] = {}
        self._messages: dict[tuple[int, int], dict] = {}
        self._last_message_id: dict[int, int] = {}
        self._callback_ids: set[str] = set()
        self._file_counter = 0
        self._files: dict[str, dict] = {}
        self._paths: dict[str, str] = {}
        self._draft_refusal: ApiError | None = None
        self.blocked: set[int] = set()  # users who blocked the bot: their chat answers 403
        self._delays: dict[str, float] = {}
        self._failures: dict[str, deque] = {}
        self._down: tuple[float, Callable[[], float]] | None = None  # an outage: until when, by which clock
        self._polling_down = False
        self.refused = 0  # calls the outage refused
        self._activity = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._methods = {name.lower(): (name, getattr(self, attr))
                         for name, attr in METHODS.items()}

    # ----- server lifecycle -----

    async def start(self) -> None:
        """Start serving on a free port of 127.0.0.1."""
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0,
                                     access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def close(self) -> None:
        """Release long polls and stop the server."""
        self._closing = True
        self._notify()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def base_url(self) -> str:
        """Value for PTB's base_url; PTB appends the token."""
        return f"http://127.0.0.1:{self._port}/bot"

    @property
    def base_file_url(self) -> str:
        """Value for PTB's base_file_url; PTB appends the token, then '/' and the file_path."""
        return f"http://127.0.0.1:{self._port}/file/bot"

    # ----- injecting updates -----

    def push_text(self, user_id: int, text: str, **kwargs: Any) -> int:
        """Push a text message from a user; see push_message for keyword arguments."""
        return self.push_message(user_id, {"text": text}, **kwargs)

    def push_message(self, user_id: int, fields: dict, *, chat_id: int | None = None,
                     chat_type: str = "private", first_name: str = "Ann",
                     username: str | None = None, language_code: str = "en",
                     reply_to_bot: bool = False, entities: list | None = None, reply_to: int | None = None) -> int:
        """Push a message with arbitrary fields (media get plausible file ids); return update_id. It answers the
        bot's last message in the chat with `reply_to_bot`, or the message `reply_to` of the chat."""
        user = self._remember_user(user_id, first_name, username, language_code)
        chat = self._remember_chat(user, user_id if chat_id is None else chat_id, chat_type)
        self.blocked.discard(chat["id"])  # writing to the bot unblocks it
        replied = dict(self._last_bot_message(chat["id"])) if reply_to_bot else None
        if reply_to is not None:
            replied = dict(self._messages[(chat["id"], reply_to)])
        message = {"message_id": self._next_message_id(chat["id"]), "from": user, "chat": chat,
                   "date": int(time.time())}
        for key, value in fields.items():
            message[key] = self._fill_media(key, value)
        if "text" in message:
            self._set_text_entities(message, entities)
        if replied:
            message["reply_to_message"] = replied
        return self.push_update({"message": message})

    def know_private_chat(self, user_id: int, first_name: str = "Ann") -> None:
        """Make a user's private chat known, as their first message would, without pushing one: the bot may then
        write there first (a reminder, a check-in), where the double answers "chat not found" otherwise."""
        self._remember_chat(self._remember_user(user_id, first_name, None, "en"), user_id, "private")

    def push_edited_text(self, user_id: int, message_id: int, text: str, *,
                         chat_id: int | None = None) -> int:
        """Push an edited_message update (the original need not have been pushed)."""
        cid = user_id if chat_id is None else chat_id
        original = self._messages.get((cid, message_id))
        if original is None:
            user = self._users.get(user_id) or self._remember_user(user_id, "Ann", None, "en")
            chat = self._chats.get(cid) or self._remember_chat(user, cid, "private")
            original = {"message_id": message_id, "from": user, "chat": chat,
                        "date": int(time.time()) - 60}
            self._last_message_id[cid] = max(self._last_message_id.get(cid, 0), message_id)
        elif original["from"]["id"] != user_id:
            raise ValueError(f"message {message_id} in chat {cid} is not from user {user_id}")
        edited = dict(original, text=text, edit_date=int(time.time()))
        self._set_text_entities(edited, None)
        return self.push_update({"edited_message": edited})

    def push_callback(self, user_id: int, data: str, message_id: int,
                      chat_id: int | None = None) -> int:
        """Push a callback_query pressed by user_id on a message the bot sent."""
        cid = user_id if chat_id is None else chat_id
        message = self._messages.get((cid, message_id))
        if message is None or message["from"]["id"] != self.bot_user["id"]:
            raise ValueError(f"the bot sent no message {message_id} to chat {cid}")
        user = self._users.get(user_id) or self._remember_user(user_id, "Ann", None, "en")
        query_id = str(4_000_000_000 + self._next_update_id)
        self._callback_ids.add(query_id)
        query = {"id": query_id, "from": user, "message": dict(message),
                 "chat_instance": str(abs(cid) * 7 + 13), "data": data}
        return self.push_update({"callback_query": query})

    def push_update(self, update: dict) -> int:
        """Queue a raw update (update_id assigned if missing); return its update_id."""
        update = dict(update)
        if "update_id" not in update:
            update["update_id"] = self._next_update_id
        self._next_update_id = max(self._next_update_id, update["update_id"] + 1)
        for key in ("message", "edited_message", "channel_post", "callback_query"):
            message = update.get(key)
            if key == "callback_query" and message is not None:
                message = message.get("message")
            if isinstance(message, dict) and isinstance(message.get("chat"), dict):  # a poison update is kept as is
                self._chats.setdefault(message["chat"]["id"], message["chat"])
                ident = (message["chat"]["id"], message["message_id"])
                if key == "edited_message" or ident not in self._messages:
                    self._messages[ident] = message
        self._updates.append(update)
        self._notify()
        return update["update_id"]

    def sticker(self, emoji: str = "🙂", *, content: bytes | None = None, **extra: Any) -> dict:
        """A sticker object for push_message."""
        return self._fill_media("sticker", {"emoji": emoji, **extra}, [content])

    def photo(self, width: int = 800, height: int = 533, *,
              content: bytes | list[bytes | None] | None = None,
              file_size: int | None = None) -> list[dict]:
        """A photo (a thumbnail and a full size) for push_message.

        content as bytes is served for the full size only; as a list, one entry per size
        (thumbnail first, None for no bytes). file_size overrides the full size's byte count.
        """
        sizes = [{"width": width // 8, "height": height // 8}, {"width": width, "height": height}]
        if file_size is not None:
            sizes[-1]["file_size"] = file_size
        contents = content if isinstance(content, list) else [None, content]
        if len(contents) != len(sizes):
            raise ValueError(f"a photo has {len(sizes)} sizes, got {len(contents)} contents")
        return self._fill_media("photo", sizes, contents)

    def voice(self, duration: int = 2, *, content: bytes | None = None, **extra: Any) -> dict:
        """A voice note object for push_message; content is served by getFile (see _fill_media)."""
        return self._fill_media("voice", {"duration": duration, **extra}, [content])

    def audio(self, duration: int = 3, *, content: bytes | None = None, **extra: Any) -> dict:
        """An audio (music) object for push_message; pass file_name or mime_type in extra."""
        return self._fill_media("audio", {"duration": duration, **extra}, [content])

    def video_note(self, duration: int = 3, *, content: bytes | None = None,
                   **extra: Any) -> dict:
        """A round video note object for push_message."""
        return self._fill_media("video_note", {"duration": duration, **extra}, [content])

    def document(self, file_name: str = "file.txt", mime_type: str = "text/plain", *,
                 content: bytes | None = None, **extra: Any) -> dict:
        """A document object for push_message."""
        return self._fill_media("document", {"file_name": file_name, "mime_type": mime_type,
                                             **extra}, [content])

    def forget_file(self, file_id: str) -> None:
        """Make a file vanish: getFile answers invalid file_id, its old path 404s."""
        entry = self._files.pop(file_id, None)
        if entry is None:
            raise ValueError(f"no file {file_id!r} is known")
        self._paths.pop(entry["path"], None)

    def refuse_drafts(self, code: int = 400,
                      description: str = "Bad Request: method not found") -> None:
        """Answer every sendMessageDraft with this error, like a Bot API server without drafts."""
        self._draft_refusal = ApiError(code, description)

    # ----- inspecting what the bot did -----

    def sent_to(self, chat_id: int) -> list[dict]:
        """Accepted sendMessage calls for one chat, in order."""
        return [m for m in self.sent if m["chat_id"] == chat_id]

    def message(self, chat_id: int, message_id: int) -> dict | None:
        """Current state of a message (after edits), or None if unknown or deleted."""
        return self._messages.get((chat_id, message_id))

    async def wait_for_sent(self, chat_id: int, count: int, timeout: float = 10.0) -> list[dict]:
        """Wait until at least count messages were accepted for chat_id; return them."""
        return await self._wait_for_count(lambda: self.sent_to(chat_id), count, timeout,
                                          f"messages to chat {chat_id}")

    def voices_to(self, chat_id: int) -> list[dict]:
        """Accepted sendVoice calls for one chat, in order."""
        return [v for v in self.voices if v["chat_id"] == chat_id]

    async def wait_for_voice(self, chat_id: int, count: int = 1, timeout: float = 10.0) -> list[dict]:
        """Wait until at least count voice notes were accepted for chat_id; return them."""
        return await self._wait_for_count(lambda: self.voices_to(chat_id), count, timeout,
                                          f"voice notes to chat {chat_id}")

    def drafts_to(self, chat_id: int) -> list[dict]:
        """Accepted sendMessageDraft calls for one chat, in order."""
        return [d for d in self.drafts if d["chat_id"] == chat_id]

    async def wait_for_draft(self, chat_id: int, count: int = 1,
                             timeout: float = 10.0) -> list[dict]:
        """Wait until at least count drafts were accepted for chat_id; return them."""
        return await self._wait_for_count(lambda: self.drafts_to(chat_id), count, timeout,
                                          f"drafts to chat {chat_id}")

    async def _wait_for_count(self, listed: Callable[[], list[dict]], count: int, timeout: float,
                              what: str) -> list[dict]:
        """Wait until listed() holds at least count entries; fail naming what arrived."""
        def check() -> list[dict] | None:
            found = listed()
            return found if len(found) >= count else None
        timeout = scaled(timeout)
        found = await self._wait_until(check, timeout)
        if found is None:
            texts = [entry["visible_text"] for entry in listed()]
            raise AssertionError(f"expected {count} {what} within {timeout:g}s, "
                                 f"got {texts}; calls so far: {self._call_summary()}")
        return found

    async def wait_for_call(self, method: str, count: int = 1, timeout: float = 10.0) -> list[dict]:
        """Wait until method was called at least count times (failed calls too); return params."""
        def check() -> list[dict] | None:
            found = [p for m, p in self.calls if m.lower() == method.lower()]
            return found if len(found) >= count else None
        timeout = scaled(timeout)
        found = await self._wait_until(check, timeout)
        if found is None:
            raise AssertionError(f"expected {count} {method} calls within {timeout:g}s; "
                                 f"calls so far: {self._call_summary()}")
        return found

    def _call_summary(self) -> str:
        """Calls per method, e.g. 'getMe x1, getUpdates x12, sendMessage x2'."""
        return ", ".join(f"{m} x{n}" for m, n in Counter(m for m, _ in self.calls).items())

    # ----- fault injection -----

    def fail_next(self, method: str, error_code: int, description: str, *,
                  retry_after: int | None = None, times: int = 1) -> None:
        """Answer the next `times` calls of method with this error (before any validation).

        method "download" fails the next file downloads (GET /file/bot<token>/<path>) instead.
        """
        parameters = {"retry_after": retry_after} if retry_after is not None else None
        queue = self._failures.setdefault(method.lower(), deque())
        queue.extend(ApiError(error_code, description, parameters) for _ in range(times))

    def block(self, user_id: int) -> None:
        """The user blocks the bot: every method aimed at their private chat gets 403 until they write again."""
        self.blocked.add(user_id)

    def delay(self, method: str, seconds: float) -> None:
        """Hold every call of `method` this long before handling it (0 ends it); a caller gone meanwhile loses it."""
        self._delays[method.lower()] = seconds

    def go_down(self, until: float = float("inf"), clock: Callable[[], float] = time.monotonic, *,
                polling: bool = False) -> None:
        """An outage: every method but getUpdates gets 502 and nginx's HTML page until clock() reaches `until`
        (or come_back()). Updates still arrive, as in the outage this double was made for, unless `polling`:
        then getUpdates fails too."""
        self._down = (until, clock)
        self._polling_down = polling

    def come_back(self) -> None:
        """The outage ends."""
        self._down = None

    def is_down(self) -> bool:
        """True while the outage lasts."""
        return self._down is not None and self._down[1]() < self._down[0]

    # ----- HTTP plumbing -----

    def _notify(self) -> None:
        self._activity.set()
        self._activity = asyncio.Event()

    async def _wait_until(self, check: Callable[[], Any], timeout: float) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (result := check()) is None:
            remaining = deadline - loop.time()
            if remaining <= 0 or self._closing:
                return None
            await self._wait_activity(remaining)
        return result

    async def _wait_activity(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self._activity.wait(), timeout)
        except TimeoutError:
            pass

    async def _handle(self, request: web.Request) -> web.Response:
        path = request.path
        if path.startswith("/file/bot"):
            return self._download(path[len("/file/bot"):])
        token, _, method = path[len("/bot"):].partition("/")
        if not path.startswith("/bot") or not method or "/" in method:
            return self._error(ApiError(404, "Not Found"))
        try:
            params = await self._read_params(request)
        except ValueError:
            return self._error(ApiError(400, "Bad Request: can't parse request parameters"))
        name, handler = self._methods.get(method.lower(), (method, None))
        self.calls.append((name, params))
        self.call_times.append(time.monotonic())
        self._notify()
        if (name != "getUpdates" or self._polling_down) and self.is_down():
            self.refused += 1
            return web.Response(status=502, text=BAD_GATEWAY_PAGE, content_type="text/html")
        try:
            if token != self.token:
                raise ApiError(401, "Unauthorized")
            if handler is None:
                raise ApiError(404, "Not Found")
            failures = self._failures.get(name.lower())
            if failures:
                raise failures.popleft()
            if self._delays.get(name.lower()):
                await asyncio.sleep(self._delays[name.lower()])
            result = handler(params)
            if asyncio.iscoroutine(result):
                result = await result
        except ApiError as error:
            return self._error(error)
        except (ValueError, TypeError) as error:
            return self._error(ApiError(400, f"Bad Request: invalid parameter value ({error})"))
        finally:
            self._notify()
        return web.json_response({"ok": True, "result": result})

    def _download(self, rest: str) -> web.Response:
        """A file's bytes, as Telegram's file server serves /file/bot<token>/<file_path>."""
        token, _, file_path = rest.partition("/")
        try:
            if token != self.token:
                raise ApiError(401, "Unauthorized")
            failures = self._failures.get("download")
            if failures:
                raise failures.popleft()
            file_id = self._paths.get(file_path)
            if file_id is None:
                raise ApiError(404, "Not Found")
        except ApiError as error:
            return self._error(error)
        self.downloads.append(file_path)
        self._notify()
        return web.Response(body=self._files[file_id]["content"],
                            content_type="application/octet-stream")

    @staticmethod
    def _error(error: ApiError) -> web.Response:
        body: dict[str, Any] = {"ok": False, "error_code": error.code,
                                "description": error.description}
        if error.parameters:
            body["parameters"] = error.parameters
        return web.json_response(body, status=error.code)

    @staticmethod
    async def _read_params(request: web.Request) -> dict:
        params = {key: _decode(key, value) for key, value in request.query.items()}
        if request.method != "POST" or not request.can_read_body:
            return params
        if request.content_type == "application/json":
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("JSON body must be an object")
            params.update(body)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            for key, value in (await request.post()).items():
                if isinstance(value, web.FileField):
                    params[key] = {"filename": value.filename, "content": value.file.read(),
                                   "mime_type": value.content_type}
                    value.file.close()
                else:
                    params[key] = _decode(key, value)
        return params

    # ----- helpers for building objects -----

    def _remember_user(self, user_id: int, first_name: str, username: str | None,
                       language_code: str) -> dict:
        user = {"id": user_id, "is_bot": False, "first_name": first_name,
                "language_code": language_code}
        if username:
            user["username"] = username
        self._users[user_id] = user
        return user

    def _remember_chat(self, user: dict, chat_id: int, chat_type: str) -> dict:
        if chat_type == "private":
            if chat_id != user["id"]:
                raise ValueError("a private chat's id must equal the user's id")
            chat = {"id": chat_id, "type": "private", "first_name": user["first_name"]}
            if "username" in user:
                chat["username"] = user["username"]
        elif chat_type in ("group", "supergroup"):
            if chat_id >= 0:
                raise ValueError("group chat ids must be negative")
            chat = {"id": chat_id, "type": chat_type, "title": f"Test {chat_type} {-chat_id}"}
        else:
            raise ValueError(f"unsupported chat_type {chat_type!r}")
        self._chats[chat_id] = chat
        return chat

    def _next_message_id(self, chat_id: int) -> int:
        self._last_message_id[chat_id] = self._last_message_id.get(chat_id, 0) + 1
        return self._last_message_id[chat_id]

    def _fill_media(self, key: str, value: Any, contents: list | None = None) -> Any:
        """Media with file ids filled in and registered for getFile (bytes where given).

        A content sets file_size to its length unless the item has one (a fake huge file_size
        makes getFile answer "file is too big"). Items registered without content are known
        to getFile, which answers them "invalid file_id" (after the size check): the double
        has no bytes to serve.
        """
        if key != "photo" and key not in MEDIA_DEFAULTS:
            return value
        sizes = value if key == "photo" else [value]
        if key == "photo" and not sizes:
            sizes = [{"width": 90, "height": 60}, {"width": 800, "height": 533}]
        filled = []
        for size, content in zip(sizes, contents or [None] * len(sizes), strict=True):
            self._file_counter += 1
            item = dict(MEDIA_DEFAULTS.get(key, {"width": 800, "height": 533}), **(size or {}))
            item.setdefault("file_id", f"{key.upper()}-FILE-{self._file_counter}")
            item.setdefault("file_unique_id", f"U{key[:3]}{self._file_counter}")
            if content is not None:
                item.setdefault("file_size", len(content))
            self._register_file(key, item, content)
            filled.append(item)
        return filled if key == "photo" else filled[0]

    def _register_file(self, kind: str, item: dict, content: bytes | None) -> None:
        """Make item's file_id known to getFile; bytes already registered are kept."""
        entry = {"kind": kind, "item": dict(item), "content": content, "path": None}
        if content is not None or item["file_id"] not in self._files:
            self._files[item["file_id"]] = entry

    def _set_text_entities(self, message: dict, entities: list | None) -> None:
        text = message["text"]
        found = list(entities or [])
        if entities is None:
            found = [{"type": "mention", "offset": utf16_len(text[:m.start()]),
                      "length": utf16_len(m.group())} for m in MENTION_RE.finditer(text)]
        if text.startswith("/") and not any(e["type"] == "bot_command" for e in found):
            found.insert(0, {"type": "bot_command", "offset": 0,
                             "length": utf16_len(text.split(maxsplit=1)[0])})
        message.pop("entities", None)
        if found:
            message["entities"] = found


class TaggedReplies(TelegramDouble):
    """The Bot API double for benchmarks: notes when each reply tagged "(u<user> m<number>)" arrives, wakes
    whoever waits for it, and sets `all_in` once `expected` replies are in."""

    TAG = re.compile(r"\(u(\d+) m(\d+)\)")

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[tuple[int, int, float]] = []  # (user, message number, perf_counter)
        self.untagged = 0
        self.waiters: dict[tuple[int, int], asyncio.Future] = {}
        self.all_in = asyncio.Event()
        self.expected = 0

    def _send_message(self, p: dict) -> dict:
        message = super()._send_message(p)
        found = self.TAG.search(message.get("text", ""))
        if found is None:
            self.untagged += 1
            return message
        key = (int(found.group(1)), int(found.group(2)))
        self.arrived.append((*key, time.perf_counter()))
        waiter = self.waiters.pop(key, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        if self.expected and len(self.arrived) >= self.expected:
            self.all_in.set()
        return message
