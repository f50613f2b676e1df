"""Every sentence the bot says on its own (not the model's), in English and Russian."""

from __future__ import annotations

RUSSIAN_LANGUAGES = frozenset({"ru", "uk", "be"})

TEXTS: dict[str, dict[str, str]] = {
    "start": {
        "en": "Hi{name}! I'm your companion: tell me about your day, or anything at all.\n"
        "I remember what you tell me about yourself between our chats. "
        "See what I know with /profile, erase it with /forget, stop me learning with /memory off.",
        "ru": "Привет{name}! Я твой собеседник: расскажи, как прошёл день, или о чём угодно.\n"
        "Я запоминаю то, что ты рассказываешь о себе. "
        "Посмотреть, что я знаю: /profile, стереть: /forget, не запоминать: /memory off.",
    },
    "help": {
        "en": "Just write to me as you would to a friend.\n"
        "/profile – what I remember about you\n"
        "/forget – erase what I remember (/forget dog – only what matches)\n"
        "/memory – turn memory off or on\n"
        "/export – everything I keep about you, as a file\n"
        "/timezone – your time zone (/timezone Europe/Moscow or your city)\n"
        "/checkins – may I write first (off or on)\n"
        "/voice – replies spoken aloud (off, on, or when you speak)\n"
        "/persona – who I am with you (a choice of characters, when offered)\n"
        "/reminders – your reminders (ask: \"remind me tomorrow at 9 to…\")\n"
        "/usage – what you used today\n"
        "/why – what my last reply had in mind (or send it in reply to one of mine)\n"
        "/help – this message",
        "ru": "Просто пиши мне, как другу.\n"
        "/profile – что я о тебе помню\n"
        "/forget – стереть то, что я помню (/forget собака – только похожее)\n"
        "/memory – выключить или включить память\n"
        "/export – всё, что я о тебе храню, файлом\n"
        "/timezone – твой часовой пояс (/timezone Europe/Moscow или твой город)\n"
        "/checkins – можно ли мне писать первым (off или on)\n"
        "/voice – ответы голосом (off, on или когда ты говоришь)\n"
        "/persona – кто я для тебя (выбор характера, если он есть)\n"
        "/reminders – твои напоминания (попроси: «напомни завтра в 9 …»)\n"
        "/usage – сколько ты потратил(а) сегодня\n"
        "/why – что было у меня в памяти для последнего ответа (или ответь так на любой мой)\n"
        "/help – эта подсказка",
    },
    "why_title": {"en": "What I had in mind for “{reply}”:", "ru": "Что было у меня в памяти для «{reply}»:"},
    "why_nothing": {"en": "Nothing about you: that reply used no memories.",
                    "ru": "Ничего о тебе: в этом ответе я не опирался на память."},
    "why_wishes": {"en": "How you want me to talk:", "ru": "Как ты просил(а) с тобой говорить:"},
    "why_facts": {"en": "Always in mind:", "ru": "Всегда в памяти:"},
    "why_recalled": {"en": "Recalled for that message:", "ru": "Вспомнил к тому сообщению:"},
    "why_topics": {"en": "Our earlier conversations:", "ru": "Наши прошлые разговоры:"},
    "why_reminders": {"en": "Your reminders:", "ru": "Твои напоминания:"},
    "why_gone": {"en": "(no longer remembered here)", "ru": "(здесь этого уже нет в памяти)"},
    "why_hint": {"en": "Tap ✗ on anything that's wrong, and I'll stop using it (Undo works for 15 minutes).",
                 "ru": "Нажми ✗ на том, что неверно, и я перестану на это опираться (отменить можно 15 минут)."},
    "why_not_reply": {"en": "Send /why in reply to one of my messages, or on its own for my last reply.",
                      "ru": "Отправь /why ответом на моё сообщение или просто так — для моего последнего ответа."},
    "why_unknown": {"en": "I no longer know what that reply had in mind: it is older than our recent conversation.",
                    "ru": "Я уже не знаю, на что опирался тот ответ: он старше нашего недавнего разговора."},
    "why_marked_short": {"en": "Marked wrong", "ru": "Отмечено как неверное"},
    "why_marked": {"en": "Marked wrong, I won't use it again: {value}",
                   "ru": "Отметил как неверное и больше не буду на это опираться: {value}"},
    "why_marked_topic": {"en": "a line about an earlier conversation", "ru": "строчка о прошлом разговоре"},
    "why_restored": {"en": "Put back: I remember it again.", "ru": "Вернул: снова помню."},
    "model_down": {
        "en": "Sorry, I can't think straight right now. Press Try again in a minute, or just write again.",
        "ru": "Прости, у меня сейчас не получается ответить. Нажми «Ещё раз» через минуту или просто напиши снова.",
    },
    "try_again": {"en": "Try again", "ru": "Ещё раз"},
    "reminder_cancel": {"en": "Cancel", "ru": "Отменить"},
    "reminder_change": {"en": "Change time", "ru": "Другое время"},
    "reminder_cancelled": {"en": "Cancelled: {task}", "ru": "Отменил: {task}"},
    "reminder_which": {"en": "Which reminder should I cancel?", "ru": "Какое напоминание отменить?"},
    "reminder_unclear": {
        "en": "⏰ I didn't get when to remind you. Say it with a time, e.g. \"remind me tomorrow at 9 to call mom\".",
        "ru": "⏰ Не понял, когда напомнить. Скажи со временем, например: «напомни завтра в 9 позвонить маме».",
    },
    "reminder_when": {
        "en": "when should I remind you? Pick a time or say it in your own words.",
        "ru": "когда напомнить? Выбери время или скажи своими словами.",
    },
    "reminder_too_many": {
        "en": "⏰ You have 50 reminders already, the most I keep. Cancel one in /reminders first.",
        "ru": "⏰ У тебя уже 50 напоминаний — больше я не держу. Сначала отмени какое-нибудь в /reminders.",
    },
    "reminder_too_often": {
        "en": "⏰ I can repeat a reminder at most once an hour.",
        "ru": "⏰ Повторять напоминание я могу не чаще раза в час.",
    },
    "reminder_no_match": {
        "en": "⏰ I have no such reminder for you. See them all in /reminders.",
        "ru": "⏰ Такого напоминания у меня нет. Все напоминания: /reminders.",
    },
    "reminder_no_last": {
        "en": "⏰ You have no reminder to move.",
        "ru": "⏰ Переносить нечего: напоминаний нет.",
    },
    "reminder_missed": {
        "en": "⏰ I was offline and missed reminding you: {tasks}. Sorry!",
        "ru": "⏰ Я был недоступен и не напомнил: {tasks}. Прости!",
    },
    "reminders_none": {
        "en": "No reminders. Ask me: \"remind me tomorrow at 9 to call mom\".",
        "ru": "Напоминаний нет. Попроси: «напомни завтра в 9 позвонить маме».",
    },
    "reminders_header": {"en": "Your reminders:", "ru": "Твои напоминания:"},
    "reminder_shift_10": {"en": "+10 min", "ru": "+10 мин"},
    "reminder_shift_60": {"en": "+1 hour", "ru": "+1 час"},
    "reminder_shift_1440": {"en": "+1 day", "ru": "+1 день"},
    "reminder_done": {"en": "Done ✓", "ru": "Сделано ✓"},
    "reminder_snooze_10": {"en": "In 10 minutes", "ru": "Через 10 минут"},
    "reminder_snooze_60": {"en": "In an hour", "ru": "Через час"},
    "error": {
        "en": "Sorry, something went wrong on my side. Please try again.",
        "ru": "Прости, у меня что-то сломалось. Попробуй ещё раз.",
    },
    "not_allowed": {
        "en": "Sorry, this is a private bot and I can't talk with you.",
        "ru": "Извини, это частный бот, и я не могу с тобой общаться.",
    },
    "voice": {
        "en": "I can't listen to voice messages here. Could you type it?",
        "ru": "Здесь я не умею слушать голосовые. Напишешь текстом?",
    },
    "voice_unsupported": {
        "en": "I can't listen to voice messages on this server. Could you type it?",
        "ru": "На этом сервере я не могу слушать голосовые. Напишешь текстом?",
    },
    "voice_too_long": {
        "en": "That voice message is too long for me (over {minutes} min). Could you send a shorter one, or type it?",
        "ru": "Это голосовое для меня слишком длинное (больше {minutes} мин). Запишешь покороче или напишешь?",
    },
    "voice_failed": {
        "en": "I couldn't listen to that voice message just now. Please send it again in a minute.",
        "ru": "Сейчас не получилось послушать голосовое. Отправь его ещё раз через минуту, пожалуйста.",
    },
    "audio_unreadable": {
        "en": "I couldn't play that recording: the file seems empty or damaged. Could you record it again?",
        "ru": "Не получается воспроизвести запись: файл пустой или повреждён. Запишешь ещё раз?",
    },
    "inaudible": {
        "en": "I couldn't make anything out. Could you say it again, or type it?",
        "ru": "Я ничего не смог разобрать. Повторишь или напишешь?",
    },
    "file_too_big": {
        "en": "That file is over 20 MB, too big for me to open.",
        "ru": "Этот файл больше 20 МБ, слишком большой для меня.",
    },
    "image_too_big": {
        "en": "That picture is too big for me (over 10 MB). Could you send it as a photo, or a smaller one?",
        "ru": "Эта картинка для меня слишком большая (больше 10 МБ). Отправишь её как фото или поменьше?",
    },
    "file_gone": {
        "en": "I couldn't get that file from Telegram. Could you send it again?",
        "ru": "Не получилось забрать этот файл у Telegram. Отправишь ещё раз?",
    },
    "photo_unreadable": {
        "en": "I couldn't open that picture. Could you send it again as a photo?",
        "ru": "Не получилось открыть картинку. Отправишь её ещё раз как фото?",
    },
    "photo_unseen": {
        "en": "(I can't see pictures here, so I went by your words.)",
        "ru": "(Картинки я здесь не вижу, поэтому ответил по твоим словам.)",
    },
    "file": {
        "en": "I can't open files like this one. Tell me in words?",
        "ru": "Такие файлы я открывать не умею. Расскажешь словами?",
    },
    "other": {
        "en": "I can't take this kind of message yet: text, voice, photos and stickers I understand. Tell me in words?",
        "ru": "Такие сообщения я пока не понимаю: только текст, голосовые, фото и стикеры. Расскажешь словами?",
    },
    "empty": {"en": "Yes? I'm listening.", "ru": "Да? Я слушаю."},
    "private_only": {
        "en": "What I remember about you stays between us: send me this command in a private chat.",
        "ru": "То, что я о тебе помню, — только между нами: отправь эту команду мне в личном чате.",
    },
    "start_memory": {
        "en": "(I remember what you tell me about yourself between our chats. See what I know with /profile, erase it"
        " with /forget, stop me learning with /memory off.)",
        "ru": "(Я помню то, что ты рассказываешь о себе, между нашими разговорами. Что я знаю — /profile, стереть —"
        " /forget, перестать запоминать — /memory off.)",
    },
    "persona_list": {
        "en": "Who I am with you: {current}. Choose another — your memory stays the same, and each keeps its own"
        " conversation:",
        "ru": "Кто я для тебя сейчас: {current}. Выбери другого — память о тебе останется той же, а разговор у"
        " каждого свой:",
    },
    "persona_only": {"en": "I have one character here: {current}.", "ru": "У меня здесь один характер: {current}."},
    "persona_set": {"en": "Now you talk with {name}.", "ru": "Теперь ты говоришь с: {name}."},
    "profile_persona": {"en": "Talking with: {name} (/persona)", "ru": "Собеседник: {name} (/persona)"},
    "profile_empty": {
        "en": "I don't know anything about you yet. I remember what you tell me about yourself, "
        "and you can erase it any time with /forget.",
        "ru": "Я пока ничего о тебе не знаю. Я запоминаю то, что ты рассказываешь о себе, "
        "а стереть это можно в любой момент командой /forget.",
    },
    "profile": {
        "en": "What I remember about you:\n• name: {name}\n{facts}• we first talked on {since}\n"
        "• our recent conversation: {messages} messages (I keep the last {limit})\n\nErase it all with /forget.",
        "ru": "Что я о тебе помню:\n• имя: {name}\n{facts}• впервые говорили {since}\n"
        "• наш недавний разговор: {messages} сообщ. (храню последние {limit})\n\nСтереть всё: /forget.",
    },
    "no_name": {"en": "you haven't told me", "ru": "ты не говорил(а)"},
    "forget_ask": {
        "en": "Erase everything I remember about you, and our conversation? This cannot be undone.",
        "ru": "Стереть всё, что я о тебе помню, и нашу переписку? Это нельзя отменить.",
    },
    "forget_yes": {"en": "Yes, erase", "ru": "Да, стереть"},
    "forget_no": {"en": "Cancel", "ru": "Отмена"},
    "forget_done": {
        "en": "Done. Erased everything I kept about you (facts: {facts}, messages: {messages}). "
        "We start from a clean slate.",
        "ru": "Готово. Я стёр всё, что о тебе хранил (фактов: {facts}, сообщений: {messages}). "
        "Начинаем с чистого листа.",
    },
    "forget_nothing": {
        "en": "There was nothing to erase: I keep nothing about you.",
        "ru": "Стирать нечего: я ничего о тебе не храню.",
    },
    "forget_cancelled": {"en": "Okay, I keep everything as it was.", "ru": "Хорошо, всё остаётся как было."},
    "button_expired": {"en": "This button has expired.", "ru": "Эта кнопка устарела."},
    "voice_status": {
        "en": "Spoken replies: {choice}.\nI speak only in our private chat, and the text always comes too.",
        "ru": "Ответы голосом: {choice}.\nГолосом я отвечаю только в личном чате, и текст всегда приходит тоже.",
    },
    "profile_voice": {"en": "Spoken replies: {choice} (/voice)", "ru": "Ответы голосом: {choice} (/voice)"},
    "voice_choice_off": {"en": "off, text only", "ru": "выключены, только текст"},
    "voice_choice_on": {"en": "every reply", "ru": "на каждый ответ"},
    "voice_choice_auto": {"en": "when you speak (voice answers voice)", "ru": "когда ты говоришь (голос на голос)"},
    "voice_usage": {
        "en": "/voice on – every reply aloud\n/voice auto – when you send a voice message\n/voice off – text only",
        "ru": "/voice on – каждый ответ голосом\n/voice auto – когда ты присылаешь голосовое\n/voice off – только"
        " текст",
    },
    "voice_not_configured": {
        "en": "Spoken replies are not configured on this bot: its owner has not set a speech model (TTS_MODEL).",
        "ru": "Ответы голосом у этого бота не настроены: владелец не указал модель речи (TTS_MODEL).",
    },
    "voice_unavailable_now": {
        "en": "(The speech server cannot speak right now, so replies come as text until the bot restarts.)",
        "ru": "(Сервер речи сейчас не умеет говорить, поэтому до перезапуска бота ответы приходят текстом.)",
    },
    "voice_private_only": {
        "en": "I speak my replies only in our private chat: send me /voice there.",
        "ru": "Голосом я отвечаю только в личном чате: отправь мне /voice там.",
    },
    "profile_title": {"en": "What I remember about you", "ru": "Что я о тебе помню"},
    "profile_page": {"en": "page {page} of {pages}", "ru": "стр. {page} из {pages}"},
    "profile_name": {"en": "Name: {name}", "ru": "Имя: {name}"},
    "profile_links": {"en": "Connections:", "ru": "Связи:"},
    "profile_past": {"en": "past, since {date}", "ru": "в прошлом, с {date}"},
    "profile_died": {"en": "died {date}", "ru": "не стало {date}"},
    "profile_hint": {
        "en": "Tap ✕ to delete a fact. /forget erases everything.",
        "ru": "Нажми ✕, чтобы удалить факт. /forget стирает всё.",
    },
    "memory_is_off": {
        "en": "Memory is off: I learn nothing new (/memory on to turn it back on).",
        "ru": "Память выключена: я ничего нового не запоминаю (/memory on — включить).",
    },
    "forget_ask_words": {
        "en": "Delete these facts?\n{facts}",
        "ru": "Удалить эти факты?\n{facts}",
    },
    "forget_no_match": {
        "en": "I keep nothing that matches “{words}”. See what I keep with /profile.",
        "ru": "Ничего похожего на «{words}» я не храню. Посмотреть всё: /profile.",
    },
    "forget_words_done": {"en": "Deleted: {count}.", "ru": "Удалено: {count}."},
    "memory_status": {
        "en": "Memory is {state}; “remembered” notes are {notify}.\n"
        "/memory off – stop learning about you (the chat goes on)\n/memory on – learn again\n"
        "/memory notify on|off – tell me each time I remember something",
        "ru": "Память {state}; заметки «запомнил» {notify}.\n"
        "/memory off – перестать запоминать (общение продолжится)\n/memory on – снова запоминать\n"
        "/memory notify on|off – сообщать, когда я что-то запоминаю",
    },
    "on": {"en": "on", "ru": "включена"},
    "off": {"en": "off", "ru": "выключена"},
    "memory_now_off": {
        "en": "Memory is off. I won't learn anything new about you; what I already know stays until you /forget it.",
        "ru": "Память выключена. Я не буду ничего нового запоминать; то, что уже знаю, остаётся, пока ты не сотрёшь "
        "это через /forget.",
    },
    "memory_now_on": {"en": "Memory is on again.", "ru": "Память снова включена."},
    "notify_now": {"en": "“Remembered” notes: {state}.", "ru": "Заметки «запомнил»: {state}."},
    "remembered": {"en": "✎ remembered: {facts}", "ru": "✎ запомнил: {facts}"},
    "wish_set": {"en": "✎ From now on: {wish}", "ru": "✎ Теперь так: {wish}"},
    "wish_address": {"en": "✎ From now on, in Russian: «{wish}»", "ru": "✎ Теперь на «{wish}»"},
    "wish_avoid_words": {"en": "✎ From now on I won't say: {wish}", "ru": "✎ Больше не говорю: {wish}"},
    "wish_avoid_topics": {"en": "✎ From now on I won't bring up: {wish}", "ru": "✎ Больше не завожу речь о: {wish}"},
    "undo": {"en": "↩ Undo", "ru": "↩ Отменить"},
    "profile_topics": {"en": "What we talked about lately:", "ru": "О чём мы говорили недавно:"},
    "undo_one": {"en": "↩ Undo: {fact}", "ru": "↩ Отменить: {fact}"},
    "undone": {"en": "↩ Undone: {fact}", "ru": "↩ Отменено: {fact}"},
    "forgotten": {"en": "🗑 Forgotten: {facts}", "ru": "🗑 Забыл: {facts}"},
    "forgotten_this": {"en": "🗑 I won't remember that.", "ru": "🗑 Не запомню это."},
    "forgotten_count": {"en": "🗑 Forgotten ({count}).", "ru": "🗑 Забыл ({count})."},
    "forget_unmatched": {
        "en": "I don't remember anything about “{words}”. See what I keep with /profile.",
        "ru": "Про «{words}» я ничего не помню. Посмотреть, что я храню: /profile.",
    },
    "forget_which": {"en": "Which one should I forget?", "ru": "Что именно забыть?"},
    "forget_which_private": {
        "en": "That could be more than one thing: tell me which in our private chat.",
        "ru": "Это может быть не одно, а несколько: скажи, что именно, в нашем личном чате.",
    },
    "forget_keep": {"en": "Keep all", "ru": "Ничего не забывать"},
    "forget_kept": {"en": "Okay, I forget nothing.", "ru": "Хорошо, ничего не забываю."},
    "forget_everything_private": {
        "en": "To erase everything, send /forget in our private chat.",
        "ru": "Чтобы стереть всё, отправь /forget в нашем личном чате.",
    },
    "restored": {"en": "↩ Brought back: {facts}", "ru": "↩ Вернул: {facts}"},
    "restored_this": {"en": "↩ Brought back.", "ru": "↩ Вернул."},
    "zone_is": {
        "en": "Your time zone: {zone} ({origin}); it's {time} there now.",
        "ru": "Твой часовой пояс: {zone} ({origin}); сейчас там {time}.",
    },
    "zone_from_command": {"en": "you chose it", "ru": "ты выбрал(а) его сам(а)"},
    "zone_from_city": {"en": "from your city, {city}", "ru": "по твоему городу: {city}"},
    "zone_from_default": {
        "en": "the bot's default: I don't know where you are",
        "ru": "по умолчанию: я не знаю, где ты",
    },
    "zone_help": {
        "en": "Change it: /timezone Europe/Moscow, /timezone <your city> or /timezone UTC+3; "
        "/timezone auto goes back to your city.",
        "ru": "Поменять: /timezone Europe/Moscow, /timezone <твой город> или /timezone UTC+3; "
        "/timezone auto — снова по городу.",
    },
    "zone_unknown": {
        "en": "I don't know “{place}”. Try a zone such as Europe/Moscow, a big city near you, or an offset "
        "such as UTC+3.",
        "ru": "Я не знаю «{place}». Попробуй пояс вроде Europe/Moscow, большой город рядом с тобой или сдвиг "
        "вроде UTC+3.",
    },
    "zone_set": {"en": "Done.", "ru": "Готово."},
    "profile_zone": {"en": "Time zone: {zone} ({origin})", "ru": "Часовой пояс: {zone} ({origin})"},
    "checkins_hint": {
        "en": "(I sometimes write first. Don't want that? /checkins off)",
        "ru": "(Иногда я пишу первым. Не хочешь? /checkins off)",
    },
    "checkins_now_off": {
        "en": "Okay, I won't write first: no check-ins and no follow-ups. /checkins on brings them back.",
        "ru": "Хорошо, я не буду писать первым: ни «как дела», ни вопросов о твоих планах. /checkins on — вернуть.",
    },
    "checkins_now_on": {
        "en": "Okay: now and then I'll write first, never in your night hours and at most once a day.",
        "ru": "Хорошо: иногда я буду писать первым, но не ночью и не чаще раза в день.",
    },
    "checkins_status": {
        "en": "Writing first: {state}.\n/checkins off – never write first\n/checkins on – allow it again",
        "ru": "Писать первым: {state}.\n/checkins off – никогда не писать первым\n/checkins on – снова можно",
    },
    "checkins_on": {"en": "on (follow-ups on your plans, check-ins after a long silence)",
                    "ru": "включено (спрошу, как прошли твои планы, напишу после долгого молчания)"},
    "checkins_off": {"en": "off", "ru": "выключено"},
    "checkins_disabled": {
        "en": "The owner of this bot has turned off messages written first.",
        "ru": "Владелец этого бота выключил сообщения, которые я пишу первым.",
    },
    "limit_messages": {
        "en": "That's all the messages I can answer today. I'll answer again at midnight your time, in {left}. "
        "Whatever you write meanwhile is kept and remembered.",
        "ru": "На сегодня я ответил на все сообщения, какие могу. Снова отвечу в полночь по твоему времени, "
        "через {left}. Всё, что напишешь до тех пор, я сохраню и запомню.",
    },
    "limit_tokens": {
        "en": "I've used up today's allowance for our conversation. "
        "I'll answer again at midnight your time, in {left}. Whatever you write meanwhile is kept and remembered.",
        "ru": "На сегодня лимит на наши разговоры исчерпан. "
        "Снова отвечу в полночь по твоему времени, через {left}. Всё, что напишешь до тех пор, я сохраню и запомню.",
    },
    "limit_voice_seconds": {
        "en": "I can't listen to more voice messages today; they're back at midnight your time, in {left}. "
        "You can type to me meanwhile.",
        "ru": "Голосовые на сегодня закончились: снова смогу слушать в полночь по твоему времени, через {left}. "
        "А пока можно писать текстом.",
    },
    "usage": {
        "en": "Today, until midnight your time (in {left}):\nmessages: {messages}\ntokens: {tokens}\n"
        "voice: {voice} s",
        "ru": "Сегодня, до полуночи по твоему времени (через {left}):\nсообщений: {messages}\nтокенов: {tokens}\n"
        "голосовых: {voice} с",
    },
    "usage_of": {"en": "{spent} of {limit}", "ru": "{spent} из {limit}"},
    "usage_admin": {
        "en": "You're an admin: no limits apply to you.", "ru": "Ты администратор: лимиты на тебя не действуют.",
    },
    "hours_minutes": {"en": "{hours} h {minutes} min", "ru": "{hours} ч {minutes} мин"},
    "minutes": {"en": "{minutes} min", "ru": "{minutes} мин"},
    "stats": {
        "en": "Users: {users} (active today {active_today}, in 7 days {active_week})\n"
        "Today ({zone}): {messages} messages, {tokens} tokens, {voice} s of voice\n"
        "Heaviest today (by tokens):\n{heaviest}\n"
        "Facts stored: {facts}\nDatabase: {size}\nModel errors in 24 h: {errors}",
        "ru": "Пользователей: {users} (сегодня {active_today}, за 7 дней {active_week})\n"
        "Сегодня ({zone}): сообщений {messages}, токенов {tokens}, голосовых {voice} с\n"
        "Больше всех сегодня (по токенам):\n{heaviest}\n"
        "Фактов: {facts}\nБаза данных: {size}\nОшибок модели за 24 ч: {errors}",
    },
    "stats_memory": {
        "en": "Memory in 24 h: learned {learned} facts ({sources}), marked wrong ✗ {wrong}\n"
        "Undone by their user within 7 days: {undone} of the {settled} facts learned 7–37 days ago\n"
        "Near-duplicates: {pairs} pairs in {memories} memories active in 7 days ({share} of their facts)\n"
        "Memories per reply: {per_reply} (over {replies} replies of 24 h)",
        "ru": "Память за 24 ч: запомнено фактов {learned} ({sources}), отмечено неверным ✗ {wrong}\n"
        "Исправлено или удалено пользователем за 7 дней: {undone} из {settled} фактов, запомненных 7–37 дней назад\n"
        "Почти дубликатов: {pairs} пар в {memories} памятях, активных за 7 дней ({share} их фактов)\n"
        "Воспоминаний на ответ: {per_reply} (по {replies} ответам за 24 ч)",
    },
    "stats_sources": {"en": "rules {rule}, extractor {llm}, page {page}",
                      "ru": "правила {rule}, извлечение {llm}, страница {page}"},
    "stats_line": {
        "en": "{user}: {tokens} tokens, {messages} messages", "ru": "{user}: токенов {tokens}, сообщений {messages}",
    },
    "stats_nobody": {"en": "nobody yet", "ru": "пока никого"},
    "open_memory_page": {"en": "Open memory page", "ru": "Открыть страницу памяти"},
    "export_sent": {"en": "Sent to your chat with the bot.", "ru": "Отправил файлом в чат с ботом."},
    "import_ask": {
        "en": "This is your memory file. Importing it brings back: {summary}.{refused}\nImport it?",
        "ru": "Это файл твоей памяти. Импорт вернёт: {summary}.{refused}\nИмпортировать?",
    },
    "import_summary": {
        "en": "{messages} messages, {facts} facts",
        "ru": "сообщений: {messages}, фактов: {facts}",
    },
    "import_refused_part": {
        "en": "\nLeft out: {reasons}.",
        "ru": "\nНе войдёт: {reasons}.",
    },
    "import_yes": {"en": "Import", "ru": "Импортировать"},
    "import_no": {"en": "Cancel", "ru": "Отмена"},
    "import_done": {
        "en": "Imported: {messages} new messages, {facts} new or changed facts. I'll remember them from your next"
              " message.",
        "ru": "Готово: новых сообщений {messages}, новых или изменённых фактов {facts}. Учту их со следующего"
              " сообщения.",
    },
    "import_cancelled": {"en": "Nothing was imported.", "ru": "Ничего не импортировано."},
    "import_foreign": {
        "en": "This file is someone else's memory, not yours: I only import your own export.",
        "ru": "Это память другого человека, а не твоя: я импортирую только твой собственный экспорт.",
    },
    "import_unreadable": {
        "en": "I can't read this as a memory export from me ({reason}).",
        "ru": "Не получается прочитать это как мой экспорт памяти ({reason}).",
    },
    "export_caption": {
        "en": "Everything I keep about you, as JSON.",
        "ru": "Всё, что я о тебе храню, в формате JSON.",
    },
}

CATEGORY_NAMES: dict[str, dict[str, str]] = {
    "en": {"style": "How you want me to talk", "personal": "About you", "career": "Work and study",
           "interests": "Interests", "pets": "Pets",
           "family": "Family", "preferences": "Likes and dislikes", "location": "Places",
           "plans": "Plans and dates", "state": "Lately", "other": "Other"},
    "ru": {"style": "Как с тобой говорить", "personal": "О тебе", "career": "Работа и учёба",
           "interests": "Интересы", "pets": "Питомцы",
           "family": "Семья", "preferences": "Любишь и не любишь", "location": "Места",
           "plans": "Планы и даты", "state": "Недавно", "other": "Другое"},
}

# The memory page's refusals (services/page_input.Refused codes), one line each, shown next to what was refused.
PAGE_ERRORS: dict[str, dict[str, str]] = {
    "en": {"bad_json": "That request was not JSON.", "too_big": "That request is too large.",
           "bad_type": "That field has the wrong type.",
           "unknown_field": "That field cannot be changed here.", "no_change": "Nothing to change.",
           "empty": "The value is empty.", "too_long": "At most 200 characters, please.",
           "instruction": "That reads like an instruction to the bot, not something about you.",
           "bad_when": "A date looks like 2026-12-31 or 2026-12-31T18:30.",
           "bad_category": "Pick one of the categories.", "bad_zone": "I do not know that time zone or city.",
           "not_editable": "Wishes about how I talk are changed by telling me.",
           "not_found": "Not found: it may have been deleted already.",
           "confirm": "Erasing everything needs the confirmation.", "signed": "This page has expired: close it"
           " and open it again from the bot.", "too_many": "Too many changes at once; try again in a minute.",
           "not_allowed": "This bot is private.", "send_failed": "Telegram did not take the file; try /export."},
    "ru": {"bad_json": "Запрос не в формате JSON.", "too_big": "Запрос слишком большой.",
           "bad_type": "У поля неверный тип.",
           "unknown_field": "Это поле здесь не меняется.", "no_change": "Менять нечего.",
           "empty": "Пустое значение.", "too_long": "Не больше 200 символов.",
           "instruction": "Это похоже на указание боту, а не на факт о тебе.",
           "bad_when": "Дата выглядит так: 2026-12-31 или 2026-12-31T18:30.",
           "bad_category": "Выбери одну из категорий.", "bad_zone": "Не знаю такого часового пояса или города.",
           "not_editable": "Пожелания о том, как мне говорить, меняются словами в чате.",
           "not_found": "Не найдено: возможно, уже удалено.",
           "confirm": "Чтобы стереть всё, нужно подтверждение.", "signed": "Страница устарела: закрой её и"
           " открой снова из бота.", "too_many": "Слишком много изменений сразу; попробуй через минуту.",
           "not_allowed": "Это личный бот.", "send_failed": "Telegram не принял файл; попробуй /export."},
}

COMMANDS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("start", "Say hello"),
        ("help", "How to talk with me"),
        ("profile", "What I remember about you"),
        ("why", "What my last reply had in mind"),
        ("forget", "Erase what I remember"),
        ("memory", "Turn memory off or on"),
        ("export", "Everything I keep, as a file"),
        ("timezone", "Your time zone"),
        ("checkins", "May I write first"),
        ("voice", "Replies spoken aloud"),
        ("persona", "Who I am with you"),
        ("reminders", "Your reminders"),
        ("usage", "What you used today"),
    ],
    "ru": [
        ("start", "Поздороваться"),
        ("help", "Как со мной общаться"),
        ("profile", "Что я о тебе помню"),
        ("why", "На что опирался мой ответ"),
        ("forget", "Стереть то, что я помню"),
        ("memory", "Выключить или включить память"),
        ("export", "Всё, что я храню, файлом"),
        ("timezone", "Твой часовой пояс"),
        ("checkins", "Можно ли мне писать первым"),
        ("voice", "Ответы голосом"),
        ("persona", "Кто я для тебя"),
        ("reminders", "Твои напоминания"),
        ("usage", "Сколько ты потратил(а) сегодня"),
    ],
}


def language_of(language_code: str | None) -> str:
    """Return 'ru' for Russian, Ukrainian and Belarusian Telegram clients, else 'en'."""
    base = (language_code or "").split("-")[0].lower()
    return "ru" if base in RUSSIAN_LANGUAGES else "en"


def text(key: str, language_code: str | None, **values: str) -> str:
    """Return the sentence `key` in the user's language, filled with `values`."""
    return TEXTS[key][language_of(language_code)].format(**values)


