"""/timezone and /checkins: the user's own clock, and whether the companion may write first."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from telegram import Update

from handlers.context import Context
from handlers.texts import text
from memory.facts import Fact
from memory.time.schedule import city_of, user_zone
from memory.time.zones import parse_zone

AUTOMATIC = ("auto", "reset", "авто")


def zone_and_origin(settings: dict, facts: list[Fact], default: str, language: str | None) -> tuple[str, str]:
    """Return the user's zone and, in their language, where it came from ("from your city, Kazan")."""
    city = city_of(facts)
    zone, source = user_zone(settings, city, default)
    return zone, text(f"zone_from_{source}", language, city=city or "")


async def describe_zone(context: Context, user_id: int, language: str | None) -> str:
    """Return the line that names the user's zone, where it came from and their time now."""
    store, config = context.bot_data.store, context.bot_data.config
    zone, origin = zone_and_origin(
        await store.users.settings(user_id), await store.facts.facts(user_id), config.timezone, language
    )
    local = context.bot_data.clock().astimezone(ZoneInfo(zone))
    return text("zone_is", language, zone=zone, origin=origin, time=f"{local:%H:%M}")


async def timezone_command(update: Update, context: Context) -> None:
    """/timezone <IANA zone or city> sets the user's zone, /timezone auto clears it; alone, it says the zone."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language, store = user.language_code, context.bot_data.store
    argument = " ".join(context.args or []).strip()[:100]
    now = context.bot_data.clock()
    if not argument:
        await message.reply_text(await describe_zone(context, user.id, language) + "\n" + text("zone_help", language))
        return
    if argument.lower() in AUTOMATIC:
        await store.users.set_setting(user.id, "timezone", None, now)
    else:
        zone = parse_zone(argument)
        if zone is None:
            await message.reply_text(text("zone_unknown", language, place=argument))
            return
        await store.users.set_setting(user.id, "timezone", zone, now)
    await message.reply_text(text("zone_set", language) + " " + await describe_zone(context, user.id, language))


async def checkins_command(update: Update, context: Context) -> None:
    """/checkins on|off: may the companion write first (follow-ups and check-ins); alone, how it stands."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None:
        return
    language, store = user.language_code, context.bot_data.store
    if not context.bot_data.config.proactive:
        await message.reply_text(text("checkins_disabled", language))
        return
    args = [arg.lower() for arg in context.args or []]
    if args in (["on"], ["off"]):
        await store.users.set_setting(user.id, "checkins", args[0], context.bot_data.clock())
        await message.reply_text(text(f"checkins_now_{args[0]}", language))
        return
    settings = await store.users.settings(user.id)
    state = "off" if settings.get("checkins") == "off" else "on"
    await message.reply_text(text("checkins_status", language, state=text(f"checkins_{state}", language)))
