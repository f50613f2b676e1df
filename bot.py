"""Entry point: load .env, read the configuration, build the Application and run it."""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import functools
import gc
import importlib
import logging
import os
import pkgutil
import re

# Opt in to python-telegram-bot's coming default (durations as timedelta), silencing its deprecation warning.
os.environ.setdefault("PTB_TIMEDELTA", "true")
import signal
import sqlite3
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterable

from dotenv import load_dotenv
from telegram import Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import Application, ApplicationBuilder
from telegram.request import BaseRequest

import handlers
import json_bytes
from clock import utc_now
from config import Config, ConfigError, hide_password, load_config
from handlers.application import CompanionApp
from handlers.context import Services
from handlers.jobs import (
    forgotten_notifier,
    outreach_sender,
    remembered_notifier,
    start_inbox_upkeep,
    start_memory_upkeep,
    start_outreach,
)
from handlers.menus import register_commands, register_menu_button
from handlers.reminder_commands import reminder_sender, start_reminders
from handlers.webapp.api import page_routes
from llm.client import ChatModel
from llm.discovery import Resolver, decide_concurrency, describe_server, resolve_host
from llm.gate import Gate
from llm.server import ServerFeatures
from llm.servers import ModelServer
from memory.extract.extractor import LLMExtractor, build_extraction_messages
from memory.extract.keeper import KeeperSettings, MemoryKeeper
from memory.importing.chatgpt import UserConversations, conversations
from memory.importing.export_file import ExportedUser, parse_export
from memory.importing.formats import FORMATS, file_format
from memory.importing.reference import ReferenceUser, Skipped, reference_users
from memory.importing.unpickler import UnsafeFile, check_size, read_pickle
from memory.recall.embeddings import EmbedderUnavailable, make_embedder
from memory.recall.recaller import FactRecaller, RecallSettings
from memory.secrets import seeds
from memory.store.backends import database_errors
from memory.store.database import open_database
from memory.store.memory_store import Store
from memory.store.meter import UsageMeter
from memory.style import candidates as style_candidates
from memory.text.prefilter import expect_learning, learn_patterns
from memory.time import zones
from metrics import Metrics, PrometheusMetrics
from prompts import load_prompt
from prompts.character_card import PersonaError, Personas, describe
from prompts.outreach_prompt import write_first_tasks
from services.companion import Companion, CompanionSettings
from services.forgetting import Forgetter
from services.importer import Importer, ImportSettings, PlannedExport, PlannedUser, Summary
from services.limits import LimitSettings
from services.memory_page import MemoryPage, PageSettings
from services.memory_quality import MemoryQuality
from services.outreach import Outreach, OutreachSettings
from services.reminders import Reminders, ReminderSettings
from services.speech import SpeechSettings, SpokenReplies, Synthesizer
from services.transcriber import Transcriber
from services.voice import Listener
from services.why import Why
from transport.http import BotApiRequest
from transport.inbox import Inbox, InboxBot, PollRequest
from transport.logs import setup_logging
from transport.ordering import PerUserUpdateProcessor
from transport.send_budget import Budget
from transport.sending import Outage, SendGate
from transport.streaming import Drafts
from transport.transport_migrations import migrate_transport
from transport.transport_store import TransportStore
from transport.web import PortTaken, WebServer

log = logging.getLogger("bot")
# The rooms whose patterns go through the prefilter (memory/text/prefilter.py); warm_up reads them all at start.
PATTERN_ROOMS = ("memory", "services", "handlers", "transport", "prompts", "llm")


# What an import's file holds (read_import): the reference bot's users, one user's /export, or ChatGPT's conversations.
ImportSource = Iterable[ReferenceUser | Skipped] | ExportedUser | UserConversations


class AnotherPoller(Exception):
    """Polling mode found another process polling with the same PostgreSQL database."""


class CannotListen(Exception):
    """The web server (webhook, memory page, metrics) could not take PORT or METRICS_PORT: another program holds it."""


async def build_application(
    config: Config, request: BaseRequest | None = None, clock: Callable[[], datetime] = utc_now,
    resolve: Resolver = resolve_host,
) -> Application:
    """Open the database, build each service once with all it needs, then the python-telegram-bot Application
    around them with every handler registered (post_init then starts what runs: replay, jobs, the web server).

    `request` replaces the HTTP transport to the Bot API (the benchmark uses an in-process one); `clock` is
    the one clock every service is given (tests and benchmarks pass a fake one); `resolve` finds where the model
    server's host is, for MODEL_CONCURRENCY's default (tests place a double on the public internet with it).
    """
    # A bad persona file stops start-up before anything is opened.
    personas = Personas.load(config.persona_file, config.personas_dir, config.prompt_max_tokens)
    if config.persona_file or config.personas_dir:
        log.info("persona: %s", describe((personas.default, *personas.offered)))
    # One database, three owners of its tables: what is remembered, the transport's inbox and rate, the ledger.
    database = await open_database(config.database)
    store, meter = Store.over(database), UsageMeter(database)
    try:
        transport = await TransportStore.open(database)  # its own tables, its own migrations
        if not config.webhook_url and not await transport.take_poller_lock():
            raise AnotherPoller(
                f"another process is already polling Telegram with {config.database_name}; to run several"
                " machines, set WEBHOOK_URL (webhook mode)"
            )
        inbox = Inbox(transport, clock)
        outage = Outage(config.send_retry_s)
        shared = transport if transport.on_postgres else None  # every machine of the bot draws on one rate
        budget = Budget(config.telegram_max_rate, shared=shared) if config.telegram_max_rate > 0 else None
        bot = InboxBot(
            inbox,
            PollRequest(),
            token=config.telegram_token,
            base_url=config.telegram_api_base_url,
            base_file_url=config.telegram_file_base_url,
            # python-telegram-bot's own defaults: 256 connections for requests, one for polling.
            request=request or BotApiRequest(connection_pool_size=256),
            rate_limiter=SendGate(budget, outage),
        )
        services = await build_services(config, clock, bot, store, transport, meter, inbox, personas, resolve)
    except BaseException:
        await store.close()
        raise
    app = (
        ApplicationBuilder()
        .application_class(CompanionApp, kwargs={
            "services": services, "max_concurrent_updates": config.max_concurrent_updates, "outage": outage,
        })
        .bot(bot)
        .post_init(post_init)
        .post_shutdown(post_shutdown)
        .build()
    )
    handlers.register(app)
    return app


def build_metrics(config: Config, transport: TransportStore) -> Metrics:
    """Return the metrics every service records into: with METRICS=on in a registry of this bot's own (never
    prometheus_client's global one, which several bots in one process would share), else ones that record nothing."""
    if not config.metrics:
        return Metrics()
    return PrometheusMetrics(inbox_waiting=transport.unhandled_count)


async def build_services(config: Config, clock: Callable[[], datetime], bot: InboxBot, store: Store,
                         transport: TransportStore, meter: UsageMeter, inbox: Inbox, personas: Personas,
                         resolve: Resolver = resolve_host) -> Services:
    """Return every service, each built once with the settings, clients and senders it needs; what each model
    server can do, and how many requests the chat's takes at once, is asked (and logged) on the way."""
    metrics = build_metrics(config, transport)
    chat = ModelServer.open(config.openai_base_url, config.openai_api_key, config.model_attempt_timeout_s,
                            Gate(None),
                            ServerFeatures(vision=config.vision, reasoning_tokens=config.reasoning_max_tokens))
    concurrency = await decide_concurrency(chat.client, config.openai_base_url, config.model_concurrency,
                                           chat.features, resolve)
    log.info("%s", concurrency)
    chat = replace(chat, gate=Gate(concurrency.limit))  # the same client; nothing has used its gate yet
    await describe_server(chat.client, config.openai_base_url, config.openai_model, chat.features)
    upkeep = chat.or_another(config.extract_base_url, config.extract_api_key, config.model_attempt_timeout_s)
    if upkeep is not chat:
        await describe_server(upkeep.client, upkeep.base_url, config.extract_model or config.openai_model,
                              upkeep.features)
    embedding = chat.or_another(config.embedding_base_url, config.embedding_api_key, config.model_attempt_timeout_s)
    # Spoken replies (TTS_MODEL): the chat server's client unless TTS_BASE_URL or TTS_API_KEY names another.
    speech = chat
    if config.tts_model:
        speech = chat.or_another(config.tts_base_url, config.tts_api_key, config.tts_timeout_s)
    servers = [chat] + [server for server in (upkeep, embedding, speech) if server is not chat]
    try:
        embedder = make_embedder(config.embeddings, embedding.client, config.embedding_model, embedding.features,
                                 embedding.gate)
    except BaseException:
        for server in servers:
            await server.close()
        raise
    model = chat_model(config, chat, config.openai_model, meter, clock, metrics, upkeep=False)
    listener = None
    if config.transcription_model:
        transcriber = Transcriber(model, config.transcription_model, config.transcription_timeout_s)
        listener = Listener(store.turns, store.users, store.facts, transcriber, config.subset(LimitSettings), clock,
                            meter=meter)
    spoken = None
    if config.tts_model:
        spoken = SpokenReplies(store.users, store.facts,
                               Synthesizer(speech.client, speech.gate, config.subset(SpeechSettings)),
                               config.subset(LimitSettings), clock, meter=meter)
    recaller = FactRecaller(store.facts, embedder, config.subset(RecallSettings))
    forgetter = Forgetter(store.accounts, store.facts, store.forgetting, store.reminders, store.topics, store.users,
                          clock)
    why = Why(store.facts, store.reminders, store.scopes, store.topics, store.turns, forgetter)
    extractor = LLMExtractor(
        chat_model(config, upkeep, config.extract_model or config.openai_model, meter, clock, metrics, upkeep=True),
        load_prompt("extract_facts.md"), config.extraction_prompt_tokens(concurrency.limit), config.extract_timeout_s,
        config.extract_max_tokens, brief=load_prompt("extract_facts_brief.md"),
    )
    return Services(
        config=config, clock=clock, store=store, transport=transport, meter=meter, metrics=metrics, inbox=inbox,
        model=model,
        personas=personas,
        companion=Companion(store.edits, store.facts, store.outreach, store.scopes, store.turns, store.users, model,
                            config.subset(CompanionSettings), personas, recaller, clock, forgetter, meter=meter,
                            metrics=metrics),
        keeper=MemoryKeeper(
            store.claims, store.facts, store.scopes, store.topics, store.users, extractor,
            config.subset(KeeperSettings), clock, recaller, remembered_notifier(bot, store.users), forgetter,
            forgotten_notifier(bot, store.users), meter=meter, metrics=metrics,
        ),
        forgetter=forgetter,
        listener=listener,
        spoken=spoken,
        drafts=Drafts(config.stream_replies, config.stream_interval_s),
        outreach=Outreach(store.claims, store.facts, store.outreach, store.topics, model,
                          config.subset(OutreachSettings), personas, outreach_sender(bot), clock, meter=meter,
                          metrics=metrics),
        reminders=Reminders(store.facts, store.reminders, store.users, model, config.subset(ReminderSettings), clock,
                            load_prompt("reminder.md"), reminder_sender(bot, store.users), metrics=metrics),
        memory_page=MemoryPage(store.accounts, store.facts, store.reminders, store.scopes, store.topics, store.users,
                               config.subset(PageSettings), clock, forgetter, why, metrics),
        why=why,
        importer=Importer(store.imports, config.subset(ImportSettings), clock),
        quality=MemoryQuality(store.events, store.facts, store.turns, embedder.name),
        web=WebServer(config.port, metrics if config.metrics else None, config.metrics_port),
        servers=tuple(servers),
    )


async def post_init(app: Application) -> None:
    """Replay what the inbox holds, register the command menu, start the web server (polling mode with
    WEBAPP_URL or METRICS=on) and the jobs."""
    services: Services = app.bot_data
    config = services.config
    await services.inbox.replay(app)
    # The city → time zone index takes a second to build: off the event loop, before the first city is looked up.
    expect_learning()  # until warm_up has learnt them, the patterns run unfiltered rather than hold the loop
    asyncio.get_running_loop().run_in_executor(None, warm_up)
    await register_commands(app)
    await register_menu_button(app, config.webapp_url)
    if (config.webapp_url or config.metrics) and not config.webhook_url:  # polling serves the page and metrics too
        await listen(app, config)
    start_memory_upkeep(app)
    start_inbox_upkeep(app)
    start_outreach(app)
    await start_reminders(app)
    log.info("bot @%s is up; database %s", app.bot.username, config.database_name)


def chat_model(config: Config, server: ModelServer, model: str, meter: UsageMeter, clock: Callable[[], datetime],
               metrics: Metrics, *, upkeep: bool) -> ChatModel:
    """Return a chat model on `server` with the settings' timeouts; `upkeep`: memory upkeep's, which gives way to a
    conversation on a shared server."""
    return ChatModel(
        server.client,
        model,
        attempt_timeout=config.model_attempt_timeout_s,
        budget=config.model_retry_budget_s,
        backoff=config.model_backoff_s,
        features=server.features,
        on_failure=lambda: meter.record_usage(None, clock(), model_errors=1),
        gate=server.gate,
        upkeep=upkeep,
        metrics=metrics,
        streams=server.streams,  # read paced (llm/servers.py)
    )


def warm_up() -> None:
    """Ready what the first message after a start would otherwise pay for: the city → zone index, the style
    wishes' tables, the seed phrases' word lists and the prefilter words of every pattern (the rules on a first
    message: about 140 ms of CPU cold, 8 warmed); then hand back the memory the index's build used (~50 MiB).
    The Russian word-form analyzer waits for a first Russian name or place (memory/text/word_forms.py: 19 MiB
    that a bot whose users write no Russian never holds, and 0.1 s of CPU on that message)."""
    try:
        zones.warm()
        style_candidates.warm()
        seeds.any_list()
    finally:  # whatever failed before, the patterns are learnt: expect_learning's wait ends
        learn_all_patterns()
    hand_back_memory()


@functools.cache
def hand_back_memory() -> None:
    """Collect what the first warm-up's builds left and hand the freed memory back to the system, once a process:
    a warm-up after that (another bot in the same process, as in the tests) builds nothing, and a full collection
    there costs a fifth of a second. re's cache goes too: learning compiles a copy of every pattern with a
    stand-in once (memory/text/prefilter.py), and re would keep the last 512 of them for good (3.4 MiB)."""
    re.purge()
    gc.collect()
    try:  # glibc keeps freed memory for reuse unless asked; elsewhere this is simply skipped
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def learn_all_patterns() -> int:
    """Put the patterns of every room the prefilter serves into its filters (memory/text/prefilter.py); return how
    many. A text then costs one pass of RE2 for all of them: an import's 10,000 users run a third faster."""
    return learn_patterns(module for name, module in list(sys.modules.items()) if name.split(".")[0] in PATTERN_ROOMS)


async def listen(app: Application, config: Config) -> None:
    """Start the web server on PORT (the webhook, /healthz, the memory page, /metrics behind its token) and on
    METRICS_PORT; a taken port stops start-up."""
    try:
        pages = page_routes(app, config) if config.webapp_url else []
        await app.bot_data.web.start(app, config, pages)
    except PortTaken as error:  # post_shutdown still closes what the build opened
        raise CannotListen(f"cannot listen on {error.setting}={error.port}: {error.strerror}") from None


async def post_shutdown(app: Application) -> None:
    """Stop the web server, close the model client and the database."""
    services: Services = app.bot_data
    await services.web.stop()
    processor = app.update_processor
    if isinstance(processor, PerUserUpdateProcessor) and processor.left:
        log.info("%d update(s) not begun wait in the inbox for the next start", processor.left)
    for server in services.servers:
        await server.close()
    await services.store.close()
    log.info("bot stopped cleanly")


def stop_upkeep(services: Services) -> None:
    """Give up memory upkeep: no pass begins, and what is in flight is cancelled, so the servers stop on it too."""
    services.keeper.stopping.set()
    for server in services.servers:
        server.gate.cancel_upkeep()


def begin_shutdown(app: Application) -> None:
    """Stop fetching updates; turns in flight finish (the model gets no further retries)."""
    log.info("stop signal received; finishing turns in flight")
    services: Services = app.bot_data
    services.model.stopping.set()
    stop_upkeep(services)
    services.stop_requested.set()
    if isinstance(app.update_processor, PerUserUpdateProcessor):
        app.update_processor.stop()  # updates not begun wait in the inbox for the next start
    app.bot.rate_limiter.outage.stop()  # a reply waiting out a Telegram outage is sent after the restart
    if not services.config.webhook_url:
        app.stop_running()


async def serve_webhook(app: Application, config: Config) -> None:
    """Run in webhook mode until a stop signal: register WEBHOOK_URL with its secret, serve it on PORT."""
    await app.initialize()
    try:
        await post_init(app)
        await app.bot.set_webhook(
            config.webhook_url, secret_token=config.webhook_secret, allowed_updates=Update.ALL_TYPES
        )
        await listen(app, config)
        await app.start()
        log.info("webhook mode: listening on port %d", config.port)
        await app.bot_data.stop_requested.wait()
        await app.bot_data.web.stop()  # no new updates while the ones in flight finish
        await app.stop()
    finally:
        await app.shutdown()
        await post_shutdown(app)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """Return uvloop's event loop where it installs (Linux, macOS), else asyncio's: each wake-up of the loop (a
    streamed token, a request's answer) costs less CPU on it (bench/README.md, "CPU per real message")."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def run(config: Config) -> int:
    """Run the bot until SIGTERM or SIGINT; return the process exit code (a failure to start is one line)."""
    loop = new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return serve(loop, config)
    except database_errors() as error:
        print(f"error: cannot open {config.database_name}: {error}", file=sys.stderr)
        return 2
    except (EmbedderUnavailable, AnotherPoller, CannotListen, PersonaError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def serve(loop: asyncio.AbstractEventLoop, config: Config) -> int:
    """Build the bot, check its token, then poll or serve the webhook until a stop signal; return the exit code."""
    signals: list[int] = []  # a stop signal during the build is acted on once the application exists
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, signals.append, sig)
    app = loop.run_until_complete(build_application(config))
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, begin_shutdown, app)
    if signals:
        begin_shutdown(app)
    try:
        # Checked before polling starts: python-telegram-bot's own start-up retry loop would log a traceback.
        loop.run_until_complete(app.bot.initialize())
    except (InvalidToken, NetworkError) as error:
        loop.run_until_complete(app.bot.shutdown())
        loop.run_until_complete(post_shutdown(app))
        if isinstance(error, InvalidToken):
            print("error: Telegram rejected TELEGRAM_BOT_TOKEN (401 Unauthorized)", file=sys.stderr)
            return 2
        print(f"error: cannot reach the Telegram Bot API: {error}", file=sys.stderr)
        return 1
    if config.webhook_url:
        loop.run_until_complete(serve_webhook(app, config))
    else:
        app.run_polling(allowed_updates=Update.ALL_TYPES, stop_signals=None)
    return 0


def backup(config: Config, target: str) -> int:
    """Write a consistent copy of the database to `target` (the bot may keep running); return the exit code."""
    if config.database_url:
        print("error: backup copies a SQLite file; for PostgreSQL use pg_dump or your provider's snapshots",
              file=sys.stderr)
        return 2
    if not config.database_path.exists():
        print(f"error: no database at DATABASE_PATH={config.database_path}", file=sys.stderr)
        return 2
    try:
        result = asyncio.run(Store.backup(config.database_path, target))
    except (sqlite3.Error, OSError) as error:
        print(f"error: backup failed: {error}", file=sys.stderr)
        return 1
    print(f"backup of {config.database_path} written to {target} (integrity check: {result})")
    return 0 if result == "ok" else 1


def copy_db_command(config: Config, target: str) -> int:
    """`copy-db --to postgresql://…`: copy the SQLite database at DATABASE_PATH into PostgreSQL, then compare the
    row counts of every table; return 0 when they match, 1 when they do not, 2 when the copy cannot be made."""
    from memory.store import copying as copying

    try:
        counts = asyncio.run(
            copying.copy_sqlite_to_postgres(config.database_path, target, also_migrate=migrate_transport))
    except copying.CopyError as error:
        print(f"error: {hide_password(str(error), target)}", file=sys.stderr)
        return 2
    except database_errors() + (TimeoutError,) as error:
        reason = hide_password(str(error) or type(error).__name__, target).replace("\n", " ")
        print(f"error: cannot copy into {hide_password(target, target)}: {reason}", file=sys.stderr)
        return 2
    for table, (source, copied) in counts.items():
        print(f"{table}: {source} → {copied}")
    wrong = [table for table, (source, copied) in counts.items() if source != copied]
    if wrong:
        print(f"error: row counts differ in {', '.join(wrong)} (did the target already hold other rows?)",
              file=sys.stderr)
        return 1
    print(f"ok: {sum(source for source, _ in counts.values())} rows copied, counts match")
    return 0


def import_command(config: Config, path: str, *, fmt: str | None, dry_run: bool, user: int | None) -> int:
    """`import PATH`: bring users' memories in from another bot's file (docs/importing.md), through the gates a
    live message goes through; return 0 when done, 2 when the file is refused (one `error:` line, nothing written),
    1 when the database fails part-way and 130 when interrupted (the users imported stay; run it again to go on)."""
    try:
        users = read_import(Path(path), fmt, user)
    except OSError as error:
        print(f"error: cannot read {path}: {error.strerror or error}", file=sys.stderr)
        return 2
    except UnsafeFile as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        summary = asyncio.run(run_import(config, users, dry_run))
    except KeyboardInterrupt:  # each user is one transaction: those done stay, the one in flight was rolled back
        print("error: interrupted; the users imported so far stay, and running it again goes on", file=sys.stderr)
        return 130
    except UnsafeFile as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except database_errors() as error:
        print(f"error: the import stopped: {error} (users imported so far stay; run it again to go on)",
              file=sys.stderr)
        return 1
    for line in summary.lines(dry_run):
        print(line)
    return 0


def read_import(source: Path, fmt: str | None, user: int | None) -> ImportSource:
    """Return what the file at `source` holds: the reference bot's users (only `user` when given), one user's
    /export, or ChatGPT's conversations for `user`; its format told from its first bytes unless `fmt` names it.
    Raise UnsafeFile for a file that cannot be imported, before anything is written."""
    check_size(source)
    fmt = fmt or file_format(source)
    if fmt is None:
        raise UnsafeFile(f"cannot tell what {source.name} is: name it with --format pickle|export|chatgpt")
    if fmt == "export":
        exported = parse_export(source.read_bytes())
        if user is not None and exported.user["id"] != user:
            raise UnsafeFile(f"the export is user {exported.user['id']}'s, not {user}'s")
        return exported
    if fmt == "chatgpt":
        if user is None:
            raise UnsafeFile("ChatGPT's conversations.json does not say whose it is: name the user with --user ID")
        try:
            whole = json_bytes.loads(source.read_bytes())
        except (ValueError, RecursionError) as error:
            raise UnsafeFile(f"not a JSON file ({error})") from None
        return UserConversations(user, conversations(whole))
    return reference_users(read_pickle(source), only=user)


async def run_import(config: Config, users: ImportSource, dry_run: bool) -> Summary:
    """Import `users` into the configured database (opened and migrated; nothing opened for a dry run), showing a
    progress bar of users and messages on a terminal."""
    from tqdm import tqdm

    learn_all_patterns()  # what warm_up does for the running bot: the rules read every fact line
    store = None if dry_run else await Store.open(config.database)
    bar = tqdm(unit=" users", disable=None, file=sys.stderr, desc="dry run" if dry_run else "importing")
    messages = 0

    def advance(planned: PlannedUser | PlannedExport) -> None:
        nonlocal messages
        messages += len(planned.messages)
        bar.set_postfix(messages=messages, refresh=False)
        bar.update()

    try:
        importer = Importer(store.imports if store else None, config.subset(ImportSettings), utc_now)
        if isinstance(users, ExportedUser):
            return await importer.import_export(users, dry_run=dry_run, on_user=advance)
        if isinstance(users, UserConversations):
            return await importer.import_conversations(users.user_id, users.conversations, dry_run=dry_run)
        return await importer.import_reference(users, dry_run=dry_run, on_user=advance)
    finally:
        bar.close()
        if store is not None:
            await store.close()


def check(config: Config) -> int:
    """Import every module of the bot's packages and render its prompts, then say so: `python bot.py --check`
    proves, without a network or a database, that a copy of the code (the Docker image's) is complete."""
    root = Path(__file__).resolve().parent
    modules = []
    for package in sorted(path.parent.name for path in root.glob("*/__init__.py")):
        for info in pkgutil.walk_packages([str(root / package)], prefix=f"{package}."):
            try:
                importlib.import_module(info.name)
            except ImportError as error:
                print(f"error: {info.name} cannot be imported: {error}", file=sys.stderr)
                return 2
            modules.append(info.name)
    try:
        personas = Personas.load(config.persona_file, config.personas_dir, config.prompt_max_tokens)
    except PersonaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for instructions in ("extract_facts.md", "extract_facts_brief.md"):
        build_extraction_messages(load_prompt(instructions), [], [])
    write_first_tasks()
    print(f"ok: settings valid, {len(modules)} modules imported, prompts rendered (model {config.openai_model})")
    print(f"persona: {describe((personas.default,))}")
    if personas.offered:
        print(f"personas offered with /persona: {describe(personas.offered)}")
    return 0


def argument_parser() -> argparse.ArgumentParser:
    """Return the command line's parser: no command runs the bot; `backup PATH`, `copy-db --to URL`, `import PATH`
    and `--check` do one job and exit."""
    parser = argparse.ArgumentParser(
        prog="python bot.py",
        usage="%(prog)s [-h] [--check | backup PATH | copy-db --to URL | import PATH [--dry-run]]",
        description="A Telegram companion with long-term memory. With no command it runs the bot (long polling, or"
                    " the webhook with WEBHOOK_URL) until SIGTERM or SIGINT. Settings come from the environment and"
                    " .env (README.md, Configuration).",
    )
    parser.add_argument("--check", action="store_true",
                        help="validate the settings, import every module and render the prompts, then exit; needs no"
                             " network or database (proves a copy of the code, such as the Docker image, complete)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    backup_parser = commands.add_parser(
        "backup", help="write a consistent copy of the SQLite database (the bot may keep running)",
        description="Write a consistent copy of the SQLite database at DATABASE_PATH to PATH, then check it.")
    backup_parser.add_argument("path", metavar="PATH", help="where the copy goes")
    copy_parser = commands.add_parser(
        "copy-db", help="copy the SQLite database into PostgreSQL and compare every table's rows",
        description="Copy the SQLite database at DATABASE_PATH into PostgreSQL, then compare the row counts of every"
                    " table (docs/scaling.md).")
    copy_parser.add_argument("--to", required=True, metavar="URL",
                             help="postgresql://USER:PASSWORD@HOST/DATABASE")
    import_parser = commands.add_parser(
        "import", help="bring memories in from the reference bot's pickle, this bot's /export or ChatGPT's"
                       " conversations.json (docs/importing.md)",
        description="Import users' names, facts and recent messages from another bot's file into the database at"
                    " DATABASE_PATH or DATABASE_URL, through the same gates as a live message; safe to interrupt and"
                    " run again, and while the bot runs (docs/importing.md).")
    import_parser.add_argument("path", metavar="PATH",
                               help="the file: the reference bot's user_sessions.pkl, a user's /export"
                                    " (memory-ID.json) or ChatGPT's conversations.json (with --user)")
    import_parser.add_argument("--format", choices=FORMATS, dest="fmt",
                               help="what the file is (told from its first bytes unless named)")
    import_parser.add_argument("--dry-run", action="store_true",
                               help="print what would be imported and what is refused, and write nothing")
    import_parser.add_argument("--user", type=int, metavar="ID",
                               help="import only this Telegram user id; for conversations.json, whose it is")
    return parser


def main(argv: list[str]) -> int:
    """Read the command line, load .env and the configuration, then run (or `backup PATH`, `copy-db --to URL`, or
    `--check`); a bad setting is one line and exit code 2, as is a bad command line (with its usage)."""
    parser = argument_parser()
    arguments = parser.parse_args(argv)
    if arguments.check and arguments.command:
        parser.error("--check takes no command")
    load_dotenv()
    try:
        config = load_config(os.environ)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if arguments.command == "backup":
        return backup(config, arguments.path)
    if arguments.command == "copy-db":
        return copy_db_command(config, arguments.to)
    if arguments.command == "import":
        return import_command(config, arguments.path, fmt=arguments.fmt, dry_run=arguments.dry_run,
                              user=arguments.user)
    if arguments.check:
        return check(config)
    setup_logging(config)
    return run(config)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
