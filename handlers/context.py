"""What every handler can reach: the services built at start-up, typed."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from telegram.ext import CallbackContext, ExtBot

from clock import utc_now
from config import Config
from llm.client import ChatModel
from llm.servers import ModelServer
from memory.extract.keeper import MemoryKeeper
from memory.store.memory_store import Store
from memory.store.meter import UsageMeter
from metrics import Metrics
from prompts.character_card import Personas
from services.companion import Companion
from services.forgetting import Forgetter
from services.importer import Importer
from services.memory_page import MemoryPage
from services.memory_quality import MemoryQuality
from services.outreach import Outreach
from services.reminders import Reminders
from services.speech import SpokenReplies
from services.voice import Listener
from services.why import Why
from transport.inbox import Inbox
from transport.streaming import Drafts
from transport.transport_store import TransportStore
from transport.web import WebServer


@dataclass(frozen=True, kw_only=True)
class Services:
    """The application's dependencies: each built once, before the Application, with all it needs (bot.py's
    build_application); closed in post_shutdown."""

    config: Config
    clock: Callable[[], datetime] = utc_now  # the one clock every service is given; tests give a fake one
    store: Store  # what is remembered; closing it closes the database the next two share
    transport: TransportStore  # the inbox's rows, the shared send budget, the user and poller locks
    meter: UsageMeter  # the usage ledger: every charge is recorded through it
    metrics: Metrics  # what /metrics serves (metrics.py): records nothing with METRICS=off
    inbox: Inbox
    model: ChatModel
    personas: Personas  # the owner's default character and those /persona offers
    companion: Companion
    keeper: MemoryKeeper
    forgetter: Forgetter  # every way to forget, its Undo and its purge
    listener: Listener | None  # None: TRANSCRIPTION_MODEL is empty, voice is off
    spoken: SpokenReplies | None  # None: TTS_MODEL is empty, replies are text only
    drafts: Drafts
    outreach: Outreach  # writes first: follow-ups, birthdays, check-ins
    reminders: Reminders  # the reminders users ask for: set within the turn, delivered on time
    memory_page: MemoryPage  # the memory page's reads and changes
    why: Why  # what each reply's prompt held of memory, and ✗ on a memory of it
    importer: Importer  # a user's own /export sent back to the bot
    quality: MemoryQuality  # memory's own figures, for /stats
    web: WebServer  # listens on PORT in webhook mode, with WEBAPP_URL or METRICS_TOKEN in polling mode too, and on
    # METRICS_PORT
    servers: tuple[ModelServer, ...]  # the chat's model server first, then upkeep's and embeddings' own
    stop_requested: asyncio.Event = field(default_factory=asyncio.Event)  # set by SIGTERM / SIGINT


Context = CallbackContext[ExtBot[None], dict, dict, Services]
