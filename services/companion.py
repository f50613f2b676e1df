"""The turn: store the user's message, rebuild system message zero, complete, store the reply."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Callable
from zoneinfo import ZoneInfo

from llm.client import ChatModel, ModelUnavailable, Tally
from memory.continuity import Topic, conversation_start, recalled_topics
from memory.facts import Extraction, Fact, choose_for_prompt, memory_enabled, style_wishes
from memory.heard import FORWARD, OWN_WORDS, Heard, forwarded_text, split_quote, with_quote
from memory.recall.recaller import FactRecaller
from memory.rules.change_rules import extract_changes
from memory.rules.events import extract_event_facts
from memory.rules.rules import extract_rule_facts
from memory.scopes import FROM_GROUPS, Scope, private_scope, visible_in_group
from memory.store.edit_rows import EditQueries
from memory.store.fact_rows import FactQueries
from memory.store.meter import UsageMeter
from memory.store.outreach_rows import ProactiveQueries
from memory.store.scope_rows import ScopeQueries
from memory.store.turn_rows import Turn, TurnQueries
from memory.store.user_rows import UserRows
from memory.style.wishes import extract_style_facts
from memory.time.schedule import local_zone, plan_followup
from memory.time.time_in_words import zone_hemisphere
from memory.unlearn.plan import Plan, plan_changes
from memory.usage import next_reset
from metrics import Metrics
from prompts.budget import fit_with_carried_lines
from prompts.character_card import Persona, Personas, greeting_of, user_word
from prompts.echo import echo_free_draft, strip_echo, without_speaker_tag
from prompts.system import REMINDER_LINES, beyond_core, build_system_message, said_by
from services.forgetting import Forgetter, Unlearned
from services.limits import LimitSettings, limit_reached
from services.media import session_text, with_image
from services.reminders import NO_REMINDERS, ForTurn
from services.why import Used

log = logging.getLogger(__name__)
EDITABLE_KINDS = ("text", "photo")  # what the user typed (a caption too); never a forward, a transcript or a sticker
# What `Companion.reply` hands its `on_text` as the answer streams: a function that returns what a draft may
# show so far. It is worked out only when called (a draft goes out a few times a reply, a piece arrives a hundred).
DraftReader = Callable[[], str]
ECHO_TRIES = 2  # an answer that only repeated system message zero is asked for once more, then the apology


@dataclass(frozen=True)
class Speaker:
    """The Telegram user behind a message."""

    id: int
    first_name: str | None = None
    language_code: str | None = None


@dataclass(frozen=True)
class Limited:
    """The user reached a daily limit: no model call; `notice` says to tell them (once a day and limit)."""

    kind: str  # "messages", "tokens" or "voice_seconds"
    resets_at: datetime  # the next midnight in their zone
    notice: bool


@dataclass(frozen=True)
class Answer:
    """The model's reply, what the rules learned this turn, and how many messages await the extractor."""

    text: str
    unread: int
    learned: list[Fact] = field(default_factory=list)
    notify: bool = False  # the user asked to be told what is remembered (/memory notify on)
    unseen_photo: bool = False  # a photo was answered from its caption alone: the model did not see it
    limited: Limited | None = None  # set (and `text` empty) when a daily limit kept the model from answering
    unlearned: Unlearned | None = None  # the message asked to forget: the bot's own line says what came of it
    reply_id: int | None = None  # the stored reply's id, by which a "why?" finds what its prompt held (mark_sent)


@dataclass(frozen=True)
class CompanionSettings:
    """The settings a turn uses (named as in Config: see README's configuration table)."""

    history_limit: int
    prompt_max_tokens: int
    reply_max_tokens: int
    memory_max_facts: int
    memory_prompt_facts: int
    conversation_gap_minutes: float
    followup_after_hours: float
    checkin_after_hours: float
    timezone: str
    limits: LimitSettings


class Companion:
    """Answers a user's message in the context of their session and memory."""

    def __init__(
        self,
        edits: EditQueries, facts: FactQueries, outreach: ProactiveQueries, scopes: ScopeQueries, turns: TurnQueries,
        users: UserRows,
        model: ChatModel,
        config: CompanionSettings,
        personas: Personas,
        recaller: FactRecaller,
        clock: Callable[[], datetime],
        forgetter: Forgetter,
        *,
        meter: UsageMeter,
        metrics: Metrics | None = None,
    ) -> None:
        self.meter = meter  # what the user spent today, against the daily limits
        self.metrics = metrics or Metrics()  # memory written by the rules, and memories each reply's prompt held
        self.recaller = recaller
        self.forgetter = forgetter
        self.edits = edits
        self.facts = facts
        self.outreach = outreach
        self.scopes = scopes
        self.turns = turns
        self.users = users
        self.model = model
        self.config = config
        self.personas = personas  # the character each user talks with, and the bot's rules that go with it
        self.clock = clock

    @property
    def sees_images(self) -> bool:
        """False once photos are known not to reach the model (VISION=off, or the server refuses or drops them)."""
        return self.model.features.images is not False

    async def scope_of(self, speaker: Speaker, chat_id: int, title: str | None, private: bool, *,
                       meet: bool = True) -> Scope | None:
        """Return whose memory the speaker's message in chat `chat_id` speaks to: their private one in their private
        chat; in a group their memory there (given one when `meet`, else None if they have none yet). A chat that
        posts as itself (an anonymous admin) has one memory of its own, which is already that group's alone."""
        if private:
            return private_scope(speaker.id)
        if speaker.id < 0:
            return Scope(speaker.id, speaker.id, chat_id, title)
        key = (await self.scopes.member_key(speaker.id, chat_id, title, self.clock()) if meet
               else await self.scopes.known_member(speaker.id, chat_id))
        return None if key is None else Scope(key, speaker.id, chat_id, title)

    @staticmethod
    def _plan(text: str, local_now: datetime, turn: Turn) -> Plan:
        """Return what the message changes in memory (endings, corrections, forget requests); a bug in a rule
        costs the change, never the reply."""
        try:
            return plan_changes(extract_changes(text, local_now), turn.facts, turn.message_id)
        except Exception:  # noqa: BLE001
            log.exception("a change rule failed on a message; continuing without changes")
            return Plan()

    @staticmethod
    def rule_facts(text: str, local_now: datetime) -> Extraction:
        """Return what the rules find (dated plans against the user's own clock); a bug in a rule costs a fact,
        never the reply."""
        try:
            found = extract_rule_facts(text)
            more = extract_event_facts(text, local_now) + extract_style_facts(text)
            return Extraction(found.facts + more, found.relations)
        except Exception:  # noqa: BLE001
            log.exception("a fact rule failed on a message; continuing without rule facts")
            return Extraction()

    async def reply(
        self,
        speaker: Speaker,
        text: str,
        update_id: int | None = None,
        *,
        kind: str = "text",
        image: str | None = None,
        on_text: Callable[[DraftReader], float | None] | None = None,
        private: bool = True,
        over_limit: str | None = None,
        heard: Heard = OWN_WORDS,
        chat_message_id: int | None = None,
        reminders: ForTurn = NO_REMINDERS,
        scope: Scope | None = None,
    ) -> Answer | None:
        """Return the answer to `text` (the stored one if a crash cut this update's turn short), or None.

        `text` is the user's own words: typed, a voice note's transcript, a photo's caption, a sticker's
        emoji (`kind` says which), with secrets masked where it arrived (the inbox, the transcriber); facts the rules
        find in the words are saved and are already in this turn's system message. `image` (a data URL)
        goes to the model with this turn only and is never stored. As the answer streams, `on_text` gets a
        DraftReader of it.
        `private` says the message came in the user's private chat, where the companion may write first.
        Past a daily limit (or `over_limit`, one the caller found) the message is stored, for the extractor
        too, and the answer is `limited` instead of the model's.
        `heard`: the words were forwarded (someone else's: the model reads them, marked, and nothing is learned,
        ended, corrected, forgotten or wished from them), or come with a quote (context, marked; only the user's
        own words teach). A message kept as kind "forward" (a retry of one) is someone else's too.
        `chat_message_id` is Telegram's id of the message, by which a later edit of it finds it (`edit`).
        `reminders`: the user's reminders the model may see and what the message did to them (services/reminders.py).
        `scope`: whose memory the message speaks to (memory/scopes.py; `scope_of`): the speaker's private one by
        default. In a group the turn holds only that group's memory of them, what they chose to share, and the
        group's own recent conversation; nothing else of their private memory reaches the prompt.
        Raises ModelUnavailable when the model cannot answer; the user's message stays in the session.
        """
        scope = scope or private_scope(speaker.id)
        now = self.clock()
        persona = await self.persona_of(scope)
        forwarded = heard.forwarded_from is not None or kind == FORWARD
        kept = session_text(kind, text)
        if heard.forwarded_from is not None:
            kind, kept = FORWARD, forwarded_text(heard.forwarded_from, kept)
        elif not forwarded:
            kept = with_quote(heard.quote, kept)
        turn = await self.turns.begin_turn(
            user_id=scope.key,
            first_name=speaker.first_name,
            language_code=speaker.language_code,
            text=kept,
            now=now,
            update_id=update_id,
            history_limit=self.config.history_limit,
            kind=kind,
            private=private and scope.private,
            checkin_at=now + timedelta(hours=self.config.checkin_after_hours),
            chat_message_id=chat_message_id,
            payer=scope.owner,
            persona=persona.key,
        )
        if turn is None:
            return None
        if turn.stored_reply is not None:  # a crash came between storing this reply and sending it
            return Answer(turn.stored_reply, turn.unread, [], False)
        if not scope.private:  # the user's own switches (/memory off) hold in groups too; their zone does not show
            turn = replace(turn, settings=await self.users.settings(scope.owner))
        shared = [] if scope.private else await self.scopes.shared_facts(scope.owner)
        zone = self._zone(scope, turn.settings, visible_in_group(turn.facts, shared))
        over_limit = over_limit or await limit_reached(self.meter, self.config.limits, scope.owner, now, zone)
        heeds = kind != "sticker" and not forwarded  # only the user's own words change memory
        plan = self._plan(text, now.astimezone(zone), turn) if heeds else Plan()
        if plan.forgets:  # done at once, past a daily limit or with /memory off too; nothing is learned from it
            return await self._forget(speaker, turn, text, plan, now, zone, on_text if not over_limit else None,
                                      answers=not over_limit, reminders=reminders, scope=scope, shared=shared,
                                      persona=persona)
        if over_limit:
            local_day = now.astimezone(zone).date().isoformat()
            notice = await self.users.claim_limit_notice(scope.owner, local_day, over_limit)
            return Answer("", turn.unread, limited=Limited(over_limit, next_reset(now, zone), notice))
        # With /memory off nothing new is learned; what is already known is still used.
        learns = memory_enabled(turn.settings) and heeds
        found = self.rule_facts(text, now.astimezone(zone)) if learns else Extraction()
        known, name, learned = turn.facts, turn.name, []
        if found.facts or (learns and (plan.endings or plan.corrections)):
            learned = await self._save_found(scope.key, turn.message_id, found, now, zone, plan)
            if learned or plan.endings:
                known = await self.facts.facts(scope.key)
                name = next((fact.value for fact in learned if fact.key == "name"), name)
                zone = self._zone(scope, turn.settings, visible_in_group(known, shared))  # they may have named a city
        turn, known, name = await self._seen_from(scope, turn, known, name, shared)
        answer, seen, reply_id = await self._answer(speaker, turn, text, known, name, now, zone, image, on_text,
                                                    reminders, scope, persona)
        return Answer(answer, turn.unread, learned, bool(turn.settings.get("notify")), kind == "photo" and not seen,
                      reply_id=reply_id)

    async def persona_of(self, scope: Scope) -> Persona:
        """Return the persona the turn speaks as: in a private chat the one the user chose with /persona, in a group
        (and wherever PERSONAS_DIR offers none: no query) the owner's default."""
        if not scope.private or not self.personas.offered:
            return self.personas.default
        return self.personas.chosen(await self.users.settings(scope.owner))

    async def greet(self, speaker: Speaker) -> str | None:
        """Return the greeting of the persona the speaker talks with in private (a card's first message, its
        {{user}} what they are called), or None when it has none. As in SillyTavern, it opens the persona's session:
        it is kept there as the companion's first message, when that session is still empty, so the reply to
        "what brings you here?" has its question."""
        persona = await self.persona_of(private_scope(speaker.id))
        if persona.greeting is None:
            return None
        greeting = greeting_of(persona, user_word(await self.users.user_name(speaker.id), speaker.first_name))
        if greeting is None:
            return None
        if not await self.outreach.timed_history(speaker.id, 1, persona.key):
            now = self.clock()
            await self.users.meet_user(speaker.id, now)
            await self.turns.add_reply(speaker.id, greeting, now, self.config.history_limit, persona=persona.key)
        return greeting

    def _zone(self, scope: Scope, settings: dict, facts: list[Fact]) -> ZoneInfo:
        """Return the zone of the turn: the user's own in private; in a group only what the group may know (a city
        they said there or shared), else BOT_TIMEZONE, since the prompt's clock names it in front of everyone."""
        return local_zone(settings if scope.private else {}, facts, self.config.timezone)

    async def _seen_from(
        self, scope: Scope, turn: Turn, known: list[Fact], name: str | None, shared: list[Fact]
    ) -> tuple[Turn, list[Fact], str | None]:
        """Return the turn, the facts and the name as the prompt sees them: in private their own, and what they let
        follow them from a group; in a group the member's memory there and what they shared (visible_in_group), and
        the group's own recent conversation as the session, each member's words marked with their name, so that the
        reply follows the room."""
        if scope.private or scope.chat_id is None:
            if not turn.settings.get(FROM_GROUPS):  # nothing said in a group follows them here: no query
                return turn, known, name
            return turn, visible_in_group(known, [fact for _, fact in await self.scopes.shared_from_groups(scope.owner)]
                                          ), name
        said = await self.scopes.group_history(scope.chat_id, self.config.history_limit)
        if said:
            turn = replace(turn, history=[
                {"role": message.role, "content": message.content if message.role == "assistant"
                 else said_by(message.speaker, message.content)} for message in said
            ], times=[message.at for message in said], ids=[message.id for message in said])
        name = name or next((fact.value for fact in shared if fact.key == "name"), None)
        return turn, visible_in_group(known, shared), name

    async def _save_found(
        self, user_id: int, message_id: int, found: Extraction, now: datetime, zone: ZoneInfo, plan: Plan | None = None
    ) -> list[Fact]:
        """Save what the rules found in the user's message `message_id` (each fact cites it), with the plan's endings
        and corrections; return the new or changed facts."""
        cited = [replace(fact, source_message_id=message_id) for fact in found.facts]
        plan = plan or Plan()
        saved = await self.facts.save_facts(
            user_id, Extraction(cited, found.relations, endings=plan.endings, corrections=plan.corrections),
            now, self.config.memory_max_facts,
            plan=lambda fact: plan_followup(fact, zone, now, self.config.followup_after_hours),
        )
        self.metrics.memory_written("rule", len(saved))
        return saved

    async def edit(self, speaker: Speaker, chat_message_id: int, text: str, scope: Scope | None = None
                   ) -> list[Fact] | None:
        """Apply the user's edit of their message `chat_message_id` (`text`: its new words) and return the facts it
        taught anew; None when that message is older than the session or was never kept: then nothing changes.

        The session keeps the edited words (the extractor reads them if it has not read the message yet). The rules
        run on the edit as on a new message: what it restates with a new value corrects the old one, and what the
        rules had learned from the original that the edit no longer says goes. Nothing is answered. `scope`: the
        memory the message spoke to (the speaker's private one by default).
        """
        key = (scope or private_scope(speaker.id)).key
        found = await self.edits.session_message(key, chat_message_id, self.config.history_limit)
        if found is None or found[2] not in EDITABLE_KINDS:
            return None
        message_id, content, kind = found
        await self.edits.edit_message(key, message_id, with_quote(split_quote(content)[0], session_text(kind, text)))
        settings = await self.users.settings(await self.scopes.owner_of(key))
        known = await self.facts.facts(key)
        if not memory_enabled(settings):
            return []
        now = self.clock()
        zone = local_zone(settings, known, self.config.timezone)
        rules = self.rule_facts(text, now.astimezone(zone))
        learned = await self._save_found(key, message_id, rules, now, zone)
        stated = {(fact.key, fact.value.casefold()) for fact in rules.facts}
        unsaid = [fact.id for fact in await self.facts.facts(key) if fact.id is not None and fact.source == "rule"
                  and fact.source_message_id == message_id and (fact.key, fact.value.casefold()) not in stated]
        if unsaid:
            await self.forgetter.delete_facts(key, unsaid)
        return learned

    async def _answer(
        self, speaker: Speaker, turn: Turn, text: str, known: list[Fact], name: str | None, now: datetime,
        zone: ZoneInfo, image: str | None, on_text: Callable[[DraftReader], float | None] | None,
        reminders: ForTurn = NO_REMINDERS, scope: Scope | None = None, persona: Persona | None = None,
    ) -> tuple[str, bool, int]:
        """Complete the turn with system message zero rebuilt, store the reply with what the prompt held of memory
        in `persona`'s session (the default's unless given); return it, whether the model saw the image, and the
        reply's id."""
        scope = scope or private_scope(speaker.id)
        persona = persona or self.personas.default
        opening = self.personas.prompt(persona, name, speaker.first_name)
        # The most important facts always, then what recall adds for this message: the prompt's start stays
        # the same from message to message, for servers that reuse a prompt's prefix.
        facts = choose_for_prompt(known, now, self.config.memory_prompt_facts)
        recalled = beyond_core(await self.recaller.choose(scope.key, text, known, now), facts)
        topics_of: dict[int, list[Topic]] = {}  # each system message built, by its id: the topic lines it holds

        def system_with(topics: list[Topic]) -> dict:
            message = build_system_message(
                opening,
                name,
                facts,
                now=now,
                previous=turn.previous_seen,
                timezone=zone,
                hemisphere=zone_hemisphere(zone.key),
                display_name=speaker.first_name,
                wishes=known,
                topics=topics,
                recalled=recalled,
                reminders=reminders.listed,
                reminder_note=reminders.note,
                group=None if scope.private else scope.title or "",
            )
            topics_of[id(message)] = topics
            return message

        messages = fit_with_carried_lines(
            system_with, lambda first: self._earlier(turn, first), turn.history, self.config.prompt_max_tokens
        )
        named = [fact for fact in known if fact.key == "name" and fact.value == name]  # "Their name" is a memory too
        used = Used.of(named + facts, recalled, style_wishes(known), topics_of[id(messages[0])],
                       reminders.listed[:REMINDER_LINES])
        self.metrics.memories_used(used.count)
        tally = Tally()
        answer, seen = await self._complete_unechoed(messages, image, on_text, tally)
        if not scope.private:
            answer = without_speaker_tag(answer)
        reply_id = await self.turns.add_reply(
            scope.key, answer, self.clock(), self.config.history_limit, reply_to=turn.message_id, tokens=tally.tokens,
            used=used.to_json(), payer=scope.owner, persona=persona.key,
        )
        return answer, seen, reply_id

    async def _forget(
        self, speaker: Speaker, turn: Turn, text: str, plan: Plan, now: datetime, zone: ZoneInfo,
        on_text: Callable[[DraftReader], float | None] | None, answers: bool, reminders: ForTurn = NO_REMINDERS,
        scope: Scope | None = None, shared: list[Fact] | None = None, persona: Persona | None = None,
    ) -> Answer:
        """Carry out a forget request (in a group: of what that group's memory holds of them); when `answers`, the
        model answers what else the message says ("…, как дела?"), and only that."""
        scope = scope or private_scope(speaker.id)
        persona = persona or self.personas.default
        unlearned = await self.forgetter.forget_said(turn, text, plan)
        answer, reply_id = "", None
        if unlearned.rest and answers:
            if unlearned.forgotten is not None:  # the session as it is now: scrubbed, the request as its mark
                history = await self.outreach.timed_history(scope.key, self.config.history_limit, persona.key)
                turn = replace(turn, history=[{"role": role, "content": content} for role, content, _ in history],
                               times=[at for _, _, at in history], facts=await self.facts.facts(scope.key))
            seen_turn, known, name = await self._seen_from(scope, turn, turn.facts, turn.name, shared or [])
            answer, _, reply_id = await self._answer(speaker, seen_turn, unlearned.rest, known, name, now, zone, None,
                                                     on_text, reminders, scope, persona)
        return Answer(answer, turn.unread, unlearned=unlearned, reply_id=reply_id)

    def _earlier(self, turn: Turn, first: int = 0) -> list[Topic]:
        """Return the topic lines of earlier conversations for this turn's "Last time you talked" block, when the
        prompt carries the session from its message `first` on."""
        gap = timedelta(minutes=self.config.conversation_gap_minutes)
        said = [at for at, message in zip(turn.times, turn.history, strict=True) if message["role"] == "user"]
        carried = [at for at, message in zip(turn.times[first:], turn.history[first:], strict=True)
                   if message["role"] == "user"]
        return recalled_topics(turn.topics, conversation_start(said, gap), carried[0] if carried else None, gap)

    async def _complete_unechoed(
        self, messages: list[dict], image: str | None, on_text: Callable[[DraftReader], float | None] | None,
        tally: Tally,
    ) -> tuple[str, bool]:
        """Return `_complete`'s answer without the lines that repeat system message zero (prompts/echo.py); an
        answer that was nothing else is asked for again, up to ECHO_TRIES in all, then raises ModelUnavailable."""
        system = messages[0]["content"]
        # Drafts are stripped too, and hold back a line being written while it may yet grow into an echo.
        shown = None if on_text is None else (lambda text: on_text(lambda: echo_free_draft(text, system)))
        answer, seen, removed = "", False, 0
        for _ in range(ECHO_TRIES):
            answer, seen = await self._complete(messages, image, shown, tally)
            answer, echoed = strip_echo(answer, system)
            removed += echoed
            if answer:
                break
        if removed:  # how many, never which: they may hold what the user told
            log.info("removed %d line(s) repeating system message zero from a reply%s", removed,
                     "" if answer else f"; {ECHO_TRIES} answers held nothing else")
        if not answer:
            raise ModelUnavailable("the model only repeated its instructions")
        return answer, seen

    async def _complete(
        self, messages: list[dict], image: str | None, on_text: Callable[[str], float | None] | None, tally: Tally
    ) -> tuple[str, bool]:
        """Return the model's answer and whether it saw the image; a server that refuses images gets none again."""
        cap = self.config.reply_max_tokens
        if image is None or not await self.model.takes_images(image):
            return await self.model.complete(messages, on_text=on_text, tally=tally, max_tokens=cap), False
        try:
            seen = with_image(messages, image)
            return await self.model.complete(seen, on_text=on_text, tally=tally, max_tokens=cap), True
        except ModelUnavailable as error:
            if not error.refused:
                raise
        # Refused with the image: try without it. Only if that works was the image the trouble.
        answer = await self.model.complete(messages, on_text=on_text, tally=tally, max_tokens=cap)
        self.model.features.learn_images(False, "it refused a turn with a photo and answered the same without it")
        return answer, False
