"""Unlearning as pure rules: what a message says ENDED, was CORRECTED or is to be FORGOTTEN, matched to a
small fixed profile (memory/rules/change_rules.py -> memory/unlearn/plan.py), and the helpers around it: which facts
some words mean, scrubbing forgotten facts out of texts, the past day words name, and the fact model's rules for
an ended fact."""

import re
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

import pytest

from memory.changes import FORGET, FORGET_ALL, FORGET_THIS
from memory.facts import Ending, Fact, is_current, is_loss, merge_action, prompt_candidates, still_matters
from memory.rules.change_rules import extract_changes
from memory.time.past import past_day
from memory.unlearn.plan import Plan, corrected_value, plan_changes
from memory.unlearn.scrub import scrubber
from memory.unlearn.targets import concepts_of, facts_meant, stem, words_of

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)  # a Tuesday
MESSAGE_ID = 1


def profile(*rows: tuple) -> list[Fact]:
    """Facts with ids from (category, key, value[, when]) rows."""
    return [Fact(row[0], row[1], row[2], when=row[3] if len(row) > 3 else None, id=index + 1)
            for index, row in enumerate(rows)]


ALYONA = profile(
    ("personal", "name", "Алёна"),
    ("personal", "age", "29"),
    ("location", "city", "Москва"),
    ("career", "employer", "Яндекс"),
    ("career", "job_title", "дизайнер"),
    ("pets", "pet:barsik", "кот Барсик"),
    ("pets", "pet:laika", "собака Лайка"),
    ("family", "family:sister_katya", "сестра Катя"),
    ("family", "family:boyfriend_dima", "парень Дима"),
    ("family", "family:ex_oleg", "бывший муж Олег"),
    ("family", "family:grandmother", "бабушка"),
    ("other", "habit:smoking", "курит"),
    ("other", "car:toyota", "машина Тойота"),
    ("preferences", "diet", "вегетарианка"),
    ("preferences", "likes:coffee", "кофе"),
    ("plans", "plan:exam", "экзамен по химии", "2026-12-04T10:00"),
)
SAM = profile(
    ("personal", "name", "Sam"),
    ("personal", "age", "34"),
    ("location", "city", "London"),
    ("career", "employer", "Google"),
    ("career", "job_title", "software engineer"),
    ("pets", "pet:rex", "dog Rex"),
    ("pets", "pet:bubbles", "goldfish Bubbles"),
    ("family", "family:sister_lily", "sister Lily"),
    ("family", "family:girlfriend_emma", "girlfriend Emma"),
    ("family", "family:ex_mark", "ex-husband Mark"),
    ("family", "family:grandfather", "grandpa"),
    ("other", "habit:smoking", "smokes"),
    ("other", "car:honda", "Honda Civic"),
    ("preferences", "diet", "vegan"),
    ("preferences", "likes:coffee", "coffee"),
    ("plans", "plan:interview", "job interview", "2026-12-03T10:00"),
)
CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def known(text: str) -> list[Fact]:
    """Алёна's profile for a Russian message, Sam's for an English one."""
    return ALYONA if CYRILLIC.search(text) else SAM


def fact(facts: list[Fact], key: str) -> Fact:
    return next(item for item in facts if item.key == key)


def plan_for(text: str, facts: list[Fact] | None = None) -> Plan:
    """What the turn plans for `text`, said to the user whose facts these are."""
    return plan_changes(extract_changes(text, NOW), known(text) if facts is None else facts, MESSAGE_ID)


def keys(facts: list[Fact]) -> set[str]:
    return {item.key for item in facts}


def changes_nothing(plan: Plan) -> bool:
    """True when the plan ends, corrects, forgets and asks nothing."""
    return not (plan.endings or plan.corrections or plan.forgets or plan.requests)


# ---- endings --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "how", "on"),
    [
        pytest.param("Я уволилась из Яндекса. Всё, свобода!", "employer", "ended", None, id="ru-job"),
        pytest.param("Меня уволили вчера", "employer", "ended", "2026-11-30", id="ru-job-fired"),
        pytest.param("I quit my job at Google", "employer", "ended", None, id="en-job"),
        pytest.param("I got laid off yesterday", "employer", "ended", "2026-11-30", id="en-job-laid-off"),
        pytest.param("Я больше не живу в Москве", "city", "ended", None, id="ru-place"),
        pytest.param("я переехала из Москвы", "city", "ended", None, id="ru-place-moved"),
        pytest.param("I moved out of London", "city", "ended", None, id="en-place"),
        pytest.param("Мы с Димой расстались", "family:boyfriend_dima", "ended", None, id="ru-breakup"),
        pytest.param("мы с Димой расстались в субботу", "family:boyfriend_dima", "ended", "2026-11-28",
                     id="ru-breakup-saturday"),
        pytest.param("Emma and I broke up", "family:girlfriend_emma", "ended", None, id="en-breakup"),
        pytest.param("I broke up with my girlfriend", "family:girlfriend_emma", "ended", None, id="en-breakup-word"),
        pytest.param("Я бросила курить", "habit:smoking", "ended", None, id="ru-habit"),
        pytest.param("I don't smoke anymore", "habit:smoking", "ended", None, id="en-habit"),
        pytest.param("I quit smoking", "habit:smoking", "ended", None, id="en-habit-quit"),
        pytest.param("я больше не вегетарианка", "diet", "ended", None, id="ru-diet"),
        pytest.param("I'm no longer vegan", "diet", "ended", None, id="en-diet"),
        pytest.param("Я продала свою Тойоту", "car:toyota", "ended", None, id="ru-sold"),
        pytest.param("у меня больше нет машины", "car:toyota", "ended", None, id="ru-no-more-car"),
        pytest.param("I sold my Honda", "car:honda", "ended", None, id="en-sold"),
        pytest.param("Барсик умер вчера", "pet:barsik", "died", "2026-11-30", id="ru-pet-died-yesterday"),
        pytest.param("Rex died yesterday", "pet:rex", "died", "2026-11-30", id="en-pet-died-yesterday"),
        pytest.param("Rex was put down on Saturday", "pet:rex", "died", "2026-11-28", id="en-pet-put-down"),
        pytest.param("Бабушка умерла в субботу", "family:grandmother", "died", "2026-11-28", id="ru-relative-saturday"),
        pytest.param("Вчера не стало бабушки", "family:grandmother", "died", "2026-11-30", id="ru-relative-after-verb"),
        pytest.param("Бабушка умерла три дня назад", "family:grandmother", "died", "2026-11-28",
                     id="ru-relative-days-ago"),
        pytest.param("My grandpa passed away on Saturday", "family:grandfather", "died", "2026-11-28",
                     id="en-relative-saturday"),
        pytest.param("My grandpa passed away yesterday", "family:grandfather", "died", "2026-11-30",
                     id="en-relative-yesterday"),
        pytest.param("Лайка убежала", "pet:laika", "ended", None, id="ru-pet-ran-away"),
        pytest.param("Rex ran away", "pet:rex", "ended", None, id="en-pet-ran-away"),
        pytest.param("Экзамен по химии отменили", "plan:exam", "ended", None, id="ru-plan-cancelled"),
        pytest.param("The interview was cancelled", "plan:interview", "ended", None, id="en-plan-cancelled"),
        pytest.param("they cancelled my interview", "plan:interview", "ended", None, id="en-plan-they-cancelled"),
    ],
)
def test_an_ending_ends_the_one_fact_it_names(text, key, how, on):
    plan = plan_for(text)
    assert plan.endings == [Ending(key, how, on, MESSAGE_ID)]
    assert not (plan.corrections or plan.forgets or plan.requests)


def test_one_message_may_end_two_facts():
    plan = plan_for("Я уволилась из Яндекса и переехала из Москвы")
    assert {ending.key for ending in plan.endings} == {"employer", "city"}


def test_a_fact_that_already_ended_is_not_ended_again():
    facts = [replace(item, ended="died", ended_on="2026-11-20") if item.key == "pet:barsik" else item
             for item in ALYONA]
    assert plan_for("Барсик умер вчера", facts).endings == []


def test_nothing_ends_when_the_words_mean_no_known_fact():
    assert plan_for("Я уволилась из Сбера").endings == []  # Алёна works at Яндекс
    assert plan_for("I moved out of Paris").endings == []  # Sam lives in London


@pytest.mark.parametrize(
    "text",
    [
        # someone else's ending
        pytest.param("мой брат уволился", id="other-brother-quit"),
        pytest.param("мой брат уволился из Яндекса", id="other-brother-quit-same-employer"),
        pytest.param("Дима уволился из Яндекса", id="other-named-quit"),
        pytest.param("my sister quit Google", id="other-sister-quit"),
        pytest.param("у подруги умерла кошка", id="other-friends-cat"),
        pytest.param("У Кати вчера кот умер", id="other-katyas-cat"),
        pytest.param("у Димы умерла бабушка", id="other-dimas-grandmother"),
        pytest.param("Emma's grandpa passed away", id="other-emmas-grandpa"),
        pytest.param("My brother's dog died", id="other-brothers-dog"),
        # hypotheticals
        pytest.param("если я уйду из Яндекса", id="hypothetical-ru"),
        pytest.param("if I ever quit Google", id="hypothetical-en"),
        pytest.param("если Барсик умрёт, я не переживу", id="hypothetical-ru-death"),
        pytest.param("What if Rex dies?", id="hypothetical-en-death"),
        pytest.param(
            "Барсик умер бы без меня", id="hypothetical-ru-counterfactual"),
        pytest.param(
            "Rex would have died without the vet", id="hypothetical-en-counterfactual"),
        # fears
        pytest.param("боюсь, что Лайка умрёт", id="fear-ru"),
        pytest.param("I'm scared I'll lose my job", id="fear-en"),
        pytest.param("я боюсь, что меня уволят", id="fear-ru-job"),
        # an ill pet
        pytest.param("Барсик заболел", id="ill-ru"),
        pytest.param("Rex is sick", id="ill-en"),
        pytest.param("Барсик заболел и чуть не умер", id="ill-ru-nearly-died"),
        # quotes
        pytest.param("«Я увольняюсь», — сказал коллега", id="quote-ru-colleague"),
        pytest.param("«Я уволилась из Яндекса», — сказала коллега", id="quote-ru-same-employer"),
        pytest.param('"I quit Google," my colleague said', id="quote-en"),
        pytest.param("«Бабушка умерла», — сказала соседка", id="quote-ru-death"),
        pytest.param(
            "«Барсик умер», — пошутила сестра", id="quote-ru-death-joked"),
        # jokes and figures of speech
        pytest.param("я умираю от смеха", id="joke-ru-laughing"),
        pytest.param("my phone died", id="joke-en-phone"),
        pytest.param("моя машина сдохла", id="joke-ru-car"),
        pytest.param("Олег для меня умер", id="joke-ru-dead-to-me"),
        pytest.param("My laptop died", id="joke-en-laptop"),
        # negated questions
        pytest.param("разве я говорила, что уволилась?", id="question-ru"),
        pytest.param("Did I say I quit Google?", id="question-en"),
        pytest.param("Разве я сказала, что мы с Димой расстались?", id="question-ru-breakup"),
        # past events that end nothing now
        pytest.param("в детстве у меня умерла собака", id="past-ru-childhood"),
        pytest.param("I quit smoking once for a month back in 2015", id="past-en-2015"),
        pytest.param("Years ago I quit Google", id="past-en-years-ago"),
        # near misses
        pytest.param("Барсик чуть не потерялся", id="near-ru-lost"),
        pytest.param("I almost quit today", id="near-en-quit"),
        pytest.param("мы поругались с Димой, но не расстались", id="near-ru-breakup"),
        pytest.param("мы чуть не расстались", id="near-ru-breakup-nearly"),
        # a lost pet found again
        pytest.param("Лайка убежала, но через полчаса нашлась", id="found-ru"),
        pytest.param("Rex ran away but came back an hour later", id="found-en"),
        # denied or still to come
        pytest.param("Я не уволилась из Яндекса", id="denied-ru"),
        pytest.param("I didn't quit Google", id="denied-en"),
        pytest.param("я хочу бросить курить", id="wish-ru-habit"),
        pytest.param("I'm going to quit Google", id="future-en"),
    ],
)
def test_a_trap_ends_nothing(text):
    plan = plan_for(text)
    assert plan.endings == []
    assert changes_nothing(plan)


# ---- corrections ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value", "when"),
    [
        pytest.param("Вообще-то я Алина, а не Алёна", "name", "Алина", None, id="ru-name"),
        pytest.param("меня зовут не Алёна, а Алина", "name", "Алина", None, id="ru-name-wrong-first"),
        pytest.param("Actually I'm Samuel, not Sam", "name", "Samuel", None, id="en-name"),
        pytest.param("сестру зовут Оля, а не Катя", "family:sister_katya", "сестра Оля", None, id="ru-sister"),
        pytest.param("my sister is Anna, not Lily", "family:sister_lily", "sister Anna", None, id="en-sister"),
        pytest.param("я живу не в Москве, а в Питере", "city", "Санкт-Петербург", None, id="ru-city-nominative"),
        pytest.param("I live in Paris, not London", "city", "Paris", None, id="en-city"),
        pytest.param("я работаю в Озоне, а не в Яндексе", "employer", "Озон", None, id="ru-employer-nominative"),
        pytest.param("Мне 31, а не 29", "age", "31", None, id="ru-age"),
        pytest.param("мне не 29, а 31", "age", "31", None, id="ru-age-wrong-first"),
        pytest.param("I'm 35 actually, not 34", "age", "35", None, id="en-age"),
        pytest.param("I switched from vegan to pescatarian", "diet", "pescatarian", None, id="en-diet-switched"),
        pytest.param("экзамен перенесли на понедельник", "plan:exam", "экзамен по химии", "2026-12-07",
                     id="ru-plan-moved-weekday"),
        pytest.param("перенесли экзамен на понедельник", "plan:exam", "экзамен по химии", "2026-12-07",
                     id="ru-plan-moved-verb-first"),
        pytest.param("Экзамен по химии перенесли на 14 декабря", "plan:exam", "экзамен по химии", "2026-12-14",
                     id="ru-plan-moved-date"),
        pytest.param("экзамен не в пятницу, а в понедельник", "plan:exam", "экзамен по химии", "2026-12-07",
                     id="ru-plan-put-right"),
        pytest.param("the interview moved to Friday", "plan:interview", "job interview", "2026-12-04",
                     id="en-plan-moved"),
        pytest.param("they moved my interview to Friday", "plan:interview", "job interview", "2026-12-04",
                     id="en-plan-they-moved"),
    ],
)
def test_a_correction_puts_the_one_fact_it_names_right(text, key, value, when):
    facts = known(text)
    plan = plan_for(text)
    assert [correction.key for correction in plan.corrections] == [key]
    corrected = plan.corrections[0].fact
    assert corrected.value == value
    assert corrected.when == (when or fact(facts, key).when)
    assert corrected.source_message_id == MESSAGE_ID
    assert corrected.category == fact(facts, key).category
    assert not (plan.endings or plan.forgets)


def test_a_corrected_name_gives_the_key_its_new_discriminator():
    facts = profile(("family", "family:sister_катя", "сестра Катя"))  # the key the fact rules write
    plan = plan_for("сестру зовут Оля, а не Катя", facts)
    assert [correction.key for correction in plan.corrections] == ["family:sister_катя"]
    assert plan.corrections[0].fact.key == "family:sister_оля"
    assert plan.corrections[0].fact.value == "сестра Оля"


def test_an_english_name_correction_renames_the_key():
    plan = plan_for("my sister is Anna, not Lily")
    assert plan.corrections[0].fact.key == "family:sister_anna"


def test_a_corrected_name_renames_a_transliterated_key():
    plan = plan_for("сестру зовут Оля, а не Катя")
    new_key = plan.corrections[0].fact.key
    assert new_key.startswith("family:sister_") and "katya" not in new_key


def test_corrected_value_replaces_only_the_named_words():
    sister = Fact("family", "family:sister_катя", "сестра Катя")
    assert corrected_value(sister, "Катю", "Оля") == ("сестра Оля", "family:sister_оля")
    grandmother = Fact("family", "family:grandmother_катя", "бабушка Катя")
    assert corrected_value(grandmother, "Кате", "Нина") == ("бабушка Нина", "family:grandmother_нина")
    city = fact(ALYONA, "city")
    assert corrected_value(city, "Москве", "Санкт-Петербург") == ("Санкт-Петербург", "city")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("я хочу чай, а не кофе", id="wish-ru"),
        pytest.param("I want tea, not coffee", id="wish-en"),
        pytest.param("я живу в Москве, а не в Питере?", id="question-ru"),
        pytest.param("разве я живу не в Москве, а в Питере?", id="question-ru-negated"),
        pytest.param("экзамен перенесли на понедельник?", id="question-ru-plan"),
        pytest.param("если бы меня звали Алина, а не Алёна", id="condition-ru"),
        pytest.param("я живу в Москве, а не в Питере", id="confirms-known-value"),
    ],
)
def test_a_non_correction_changes_nothing(text):
    plan = plan_for(text)
    assert plan.corrections == []
    assert changes_nothing(plan)


def test_a_plan_moved_to_its_own_day_is_no_correction():
    facts = profile(("plans", "plan:exam", "экзамен по химии", "2026-12-07"))
    assert plan_for("экзамен перенесли на понедельник", facts).corrections == []


# ---- forget requests ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "forgotten"),
    [
        pytest.param("Забудь про мою собаку", {"pet:laika"}, id="ru-my-dog"),
        pytest.param("забудь про Лайку", {"pet:laika"}, id="ru-name-case-form"),
        pytest.param("Forget about my dog", {"pet:rex"}, id="en-my-dog"),
        pytest.param("forget about Rex", {"pet:rex"}, id="en-name"),
        pytest.param("Удали из памяти мою машину", {"car:toyota"}, id="ru-delete-from-memory"),
        pytest.param("забудь, что я курю", {"habit:smoking"}, id="ru-clause"),
        pytest.param("forget what I told you about my ex", {"family:ex_mark"}, id="en-what-i-told-you"),
        pytest.param("забудь про моих питомцев", {"pet:barsik", "pet:laika"}, id="ru-plural-pets"),
        pytest.param("forget about my pets", {"pet:rex", "pet:bubbles"}, id="en-plural-pets"),
        pytest.param("forget my age and where I live", {"age", "city"}, id="en-two-things"),
        pytest.param("забудь про мою машину и про то, что я курю", {"car:toyota", "habit:smoking"},
                     id="ru-two-things"),
        pytest.param("Can you forget about my car?", {"car:honda"}, id="en-polite-question"),
        pytest.param("Could you please forget my age?", {"age"}, id="en-polite-question-please"),
        pytest.param("можешь забыть про моего бывшего?", {"family:ex_oleg"}, id="ru-polite-question"),
        pytest.param("забудь всё, что я рассказывала про Олега", {"family:ex_oleg"}, id="ru-everything-about-one"),
    ],
)
def test_a_forget_request_forgets_what_it_names(text, forgotten):
    plan = plan_for(text)
    assert keys(plan.forget) == forgotten
    assert not (plan.forget_all or plan.forget_this or plan.ask or plan.unmatched)
    assert plan.forgets
    assert plan.requests and set(plan.requests) == {text}
    assert plan.endings == [] and plan.corrections == []  # "забудь, что я курю" ends no habit


def test_requests_hold_only_the_request_sentence():
    text = "Привет! Забудь про мою собаку, пожалуйста. Как дела?"
    plan = plan_for(text)
    assert keys(plan.forget) == {"pet:laika"}
    assert plan.requests == ["Забудь про мою собаку, пожалуйста."]


@pytest.mark.parametrize(
    ("text", "facts", "both"),
    [
        pytest.param("забудь про мою сестру", ALYONA + profile(("family", "family:sister_olya", "сестра Оля")),
                     {"family:sister_katya", "family:sister_olya"}, id="ru"),
        pytest.param("forget about my sister", SAM + profile(("family", "family:sister_olya", "sister Olya")),
                     {"family:sister_lily", "family:sister_olya"}, id="en"),
    ],
)
def test_an_ambiguous_singular_asks_which_and_forgets_nothing(text, facts, both):
    plan = plan_for(text, facts)
    assert keys(plan.ask) == both and len(plan.ask) == 2
    assert plan.forget == []
    assert plan.forgets and plan.requests == [text]


def test_a_plural_forgets_every_one_of_that_kind():
    facts = ALYONA + profile(("family", "family:sister_olya", "сестра Оля"))
    plan = plan_for("забудь про моих сестёр", facts)
    assert keys(plan.forget) == {"family:sister_katya", "family:sister_olya"}
    assert plan.ask == []


def test_a_name_is_never_ambiguous():
    facts = ALYONA + profile(("family", "family:sister_olya", "сестра Оля"))
    plan = plan_for("забудь про Катю", facts)
    assert keys(plan.forget) == {"family:sister_katya"} and plan.ask == []


@pytest.mark.parametrize(
    ("text", "words"),
    [pytest.param("забудь про мою лошадь", "мою лошадь", id="ru"),
     pytest.param("forget about my horse", "my horse", id="en")],
)
def test_a_request_that_matches_nothing_is_unmatched(text, words):
    plan = plan_for(text)
    assert plan.unmatched == [words]
    assert plan.forget == [] and plan.ask == []
    assert plan.forgets and plan.requests == [text]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("не запоминай это", id="ru"),
        pytest.param("don't remember that", id="en"),
        pytest.param("не надо это запоминать", id="ru-no-need"),
        pytest.param("please don't save this", id="en-save"),
    ],
)
def test_dont_remember_this_forgets_what_was_just_said(text):
    changes = extract_changes(text, NOW)
    assert [change.op for change in changes] == [FORGET_THIS]
    plan = plan_for(text)
    assert plan.forget_this and plan.forgets
    assert plan.forget == [] and not plan.forget_all
    assert plan.requests == [text]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("забудь всё обо мне", id="ru"),
        pytest.param("forget everything you know about me", id="en"),
        pytest.param("Forget everything", id="en-short"),
        pytest.param("ok forget everything and let's start over", id="en-start-over"),
    ],
)
def test_forget_everything_is_pointed_to_forget_not_done(text):
    assert [change.op for change in extract_changes(text, NOW)] == [FORGET_ALL]
    plan = plan_for(text)
    assert plan.forget_all and plan.forgets
    assert plan.forget == [] and plan.ask == [] and not plan.forget_this
    assert plan.requests == [text]


def test_everything_about_one_person_is_not_forget_all():
    changes = extract_changes("забудь всё, что я рассказывала про Олега", NOW)
    assert [change.op for change in changes] == [FORGET]
    assert not plan_for("забудь всё, что я рассказывала про Олега").forget_all


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("не забудь купить молоко", id="ru-dont-forget"),
        pytest.param("Не забывай про мою собаку", id="ru-dont-forget-my-dog"),
        pytest.param("забудь, проехали", id="ru-never-mind"),
        pytest.param("забудь об этом", id="ru-forget-about-it"),
        pytest.param("forget it, it's fine", id="en-never-mind"),
        pytest.param("forget about it", id="en-forget-about-it"),
        pytest.param("I forgot my keys", id="en-forgot"),
        pytest.param("я забыла про экзамен", id="ru-forgot"),
        pytest.param("you won't forget about Rex, right?", id="en-you-wont-forget"),
        pytest.param("did you forget about my dog?", id="en-question"),
        pytest.param("ты забыл про мою собаку?", id="ru-question"),
        pytest.param("Don't forget about my interview", id="en-dont-forget"),
        pytest.param("he told me to forget about my ex", id="en-reported"),
        pytest.param(
            "«Забудь про мою собаку», — сказала подруга", id="ru-quote"),
    ],
)
def test_a_non_request_forgets_nothing(text):
    assert [change for change in extract_changes(text, NOW) if change.op in (FORGET, FORGET_THIS, FORGET_ALL)] == []
    plan = plan_for(text)
    assert not plan.forgets
    assert changes_nothing(plan)


def test_a_quote_said_by_someone_further_on_does_not_take_the_request_before_it():
    text = ('Забудь про мою собаку. Вчера мы долго гуляли в парке, потом зашли в кафе и встретили там Машу. '
            'Она: "я так устала", сказала она и ушла.')
    assert [change.op for change in extract_changes(text, NOW)] == [FORGET]
    assert extract_changes("«Забудь про мою собаку», — сказала подруга", NOW) == []


# ---- which facts words mean -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "key"),
    [
        ("Лайку", "pet:laika"), ("Лайкой", "pet:laika"), ("Лайке", "pet:laika"),
        ("Барсика", "pet:barsik"), ("Барсику", "pet:barsik"), ("Барсиком", "pet:barsik"),
        ("Тойоту", "car:toyota"), ("Яндексе", "employer"), ("Катю", "family:sister_katya"),
        ("Олега", "family:ex_oleg"), ("бабушку", "family:grandmother"), ("мою собаку", "pet:laika"),
        ("моего кота", "pet:barsik"), ("моего парня", "family:boyfriend_dima"),
    ],
)
def test_a_case_form_means_its_fact(words, key):
    assert keys(facts_meant(words, ALYONA)) == {key}


@pytest.mark.parametrize(
    ("words", "facts", "key"),
    [
        pytest.param("my dog", ALYONA, "pet:laika", id="en-words-ru-fact"),
        pytest.param("my cat", ALYONA, "pet:barsik", id="en-cat-ru-fact"),
        pytest.param("мою собаку", SAM, "pet:rex", id="ru-words-en-fact"),
        pytest.param("the dog", profile(("pets", "pet:laika", "собака Лайка"), ("pets", "pet:tom", "cat Tom")),
                     "pet:laika", id="species-decides-between-pets"),
    ],
)
def test_a_species_word_means_its_pet_in_any_language(words, facts, key):
    assert keys(facts_meant(words, facts)) == {key}


HUSBANDS_EN = profile(("family", "family:husband_tom", "husband Tom"), ("family", "family:ex_mark", "ex-husband Mark"))
HUSBANDS_RU = profile(("family", "family:husband_ivan", "муж Иван"), ("family", "family:ex_oleg", "бывший муж Олег"))


@pytest.mark.parametrize(
    ("words", "facts", "key"),
    [
        pytest.param("my ex", HUSBANDS_EN, "family:ex_mark", id="en-ex"),
        pytest.param("my ex-husband", HUSBANDS_EN, "family:ex_mark", id="en-ex-husband"),
        pytest.param("my husband", HUSBANDS_EN, "family:husband_tom", id="en-husband"),
        pytest.param("моего бывшего", HUSBANDS_RU, "family:ex_oleg", id="ru-ex"),
        pytest.param("бывшего мужа", HUSBANDS_RU, "family:ex_oleg", id="ru-ex-husband"),
        pytest.param("моего мужа", HUSBANDS_RU, "family:husband_ivan", id="ru-husband"),
    ],
)
def test_an_ex_and_a_husband_are_not_confused(words, facts, key):
    assert keys(facts_meant(words, facts)) == {key}


def test_my_husband_is_no_ex_husband_and_my_ex_no_boyfriend():
    assert facts_meant("my husband", SAM) == []  # Sam has only an ex-husband
    assert keys(facts_meant("my ex", ALYONA)) == {"family:ex_oleg"}  # not парень Дима


def test_slots_narrow_what_words_may_mean():
    assert keys(facts_meant("Барсик", ALYONA, ("pet", "family"))) == {"pet:barsik"}
    assert facts_meant("Барсик", ALYONA, ("employer",)) == []
    assert keys(facts_meant("Яндекса", ALYONA, ("employer",))) == {"employer"}
    assert facts_meant("Яндекса", ALYONA, ("city", "country", "hometown")) == []
    assert keys(facts_meant("экзамен", ALYONA, ("plans",))) == {"plan:exam"}
    assert keys(facts_meant("", ALYONA, ("partner",))) == {"family:boyfriend_dima"}  # "мы расстались"
    assert facts_meant("", ALYONA) == []  # no words and no slots mean nothing


def test_stems_and_concepts():
    assert stem("Лайку") == stem("Лайка") == stem("Лайкой")
    assert stem("Ёжик") == stem("ежик")
    assert concepts_of("собаку") == concepts_of("dog") == {"pet", "species:dog"}
    assert "smoking" in concepts_of("курить") and "smoking" in concepts_of("smoking")
    assert concepts_of("Лайку") == set()


@pytest.mark.parametrize(
    ("word", "concepts"),
    [
        # any form of a listed word, by its lemma or English stem (the lists held a few forms each)
        ("семье", {"family"}), ("семьёй", {"family"}), ("автомобилем", {"car"}), ("машинах", {"car"}),
        ("пробежках", {"running"}), ("сигаретах", {"smoking"}), ("курящий", {"smoking"}), ("питомцам", {"pet"}),
        ("офисе", {"job"}), ("имени", {"name"}), ("живёт", {"city"}), ("working", {"job"}), ("cities", {"city"}),
        ("котам", {"pet", "species:cat"}), ("сёстрам", {"family", "rel:sister"}),
        ("бабулей", {"family", "rel:grandmother"}),
        # what stays out: a name, and "лет"'s lemma "год", which is no age
        ("Лайкой", set()), ("года", set()),
    ],
)
def test_concepts_of_any_form(word, concepts):
    assert concepts_of(word) == concepts


def test_words_meaning_a_kind_of_fact_in_any_form():
    assert keys(facts_meant("о моей семье", ALYONA)) == {
        "family:sister_katya", "family:boyfriend_dima", "family:ex_oleg", "family:grandmother"}
    assert keys(facts_meant("о моих питомцах", ALYONA)) == {"pet:barsik", "pet:laika"}
    assert keys(facts_meant("моими сёстрами", ALYONA)) == {"family:sister_katya"}
    assert words_of("про мою бабулю и моими котами") == ["бабулю", "котами"]  # forms of "мой" are fillers


# ---- scrubbing forgotten facts out of texts -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "left"),
    [
        pytest.param("Лайка сегодня гуляла. Погода отличная!", "Погода отличная!", id="nominative"),
        pytest.param("Гуляла с Лайкой в парке. Потом пошла домой.", "Потом пошла домой.", id="instrumental"),
        pytest.param("Барсик спит. Лайке скучно", "Барсик спит.", id="dative-other-pet-stays"),
        pytest.param("Моя собака любит снег. Кот спит.", "Кот спит.", id="species-word"),
        pytest.param("Купила корм для Лайки", None, id="nothing-left"),
        pytest.param("Лайку покормила!", None, id="accusative-nothing-left"),
    ],
)
def test_a_sentence_naming_a_forgotten_fact_goes(text, left):
    scrub = scrubber([fact(ALYONA, "pet:laika")])
    assert scrub(text) == left


def test_the_kind_of_a_fact_without_a_name_scrubs_too():
    scrub = scrubber([fact(ALYONA, "habit:smoking")])
    assert scrub("Я опять курила вчера. Устала.") == "Устала."


def test_several_forgotten_facts_scrub_together():
    scrub = scrubber([fact(SAM, "car:honda"), fact(SAM, "pet:rex")])
    assert scrub("My Honda broke down. Rex barked at the mechanic. Then I had lunch.") == "Then I had lunch."


@pytest.mark.parametrize(
    "text",
    ["Сегодня хорошая погода.", "Барсик спит, а я читаю. Вечером кино!", "  пробелы  остаются  ", ""],
)
def test_an_untouched_text_comes_back_identical(text):
    assert scrubber([fact(ALYONA, "pet:laika")])(text) == text


# ---- the past day words name ----------------------------------------------------------------------------

TODAY = NOW.date()  # Tuesday 2026-12-01


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("сегодня", "2026-12-01"),
        ("today", "2026-12-01"),
        ("this morning", "2026-12-01"),
        ("вчера", "2026-11-30"),
        ("yesterday", "2026-11-30"),
        ("last night", "2026-11-30"),
        ("позавчера", "2026-11-29"),
        ("the day before yesterday", "2026-11-29"),
        ("3 дня назад", "2026-11-28"),
        ("три дня назад", "2026-11-28"),
        ("two days ago", "2026-11-29"),
        ("Бабушка умерла в субботу", "2026-11-28"),
        ("on Saturday", "2026-11-28"),
        ("во вторник", "2026-11-24"),  # said on a Tuesday: the Tuesday before
        ("в прошлую пятницу", "2026-11-27"),
        ("вчера или позавчера", None),
        ("в субботу, а похоронили вчера", None),
        ("на прошлой неделе", None),
        ("last week", None),
        ("Барсик умер", None),
        ("", None),
    ],
)
def test_past_day(text, day):
    assert past_day(text, TODAY) == day


def test_past_day_counts_from_the_given_day():
    assert past_day("вчера", date(2026, 1, 1)) == "2025-12-31"


# ---- the fact model and an ended fact -------------------------------------------------------------------


def test_a_fact_said_again_after_it_ended_comes_back():
    ended = Fact("career", "employer", "Яндекс", source_message_id=10, ended="ended", ended_at=NOW)
    again = Fact("career", "employer", "Яндекс", source_message_id=11)
    assert merge_action(ended, again, []) == "replace"  # the same value, said later: current once more


def test_a_fact_read_from_before_it_ended_is_skipped():
    ended = Fact("pets", "pet:barsik", "кот Барсик", source_message_id=10, ended="died", ended_at=NOW)
    earlier = Fact("pets", "pet:barsik", "кот Барсик", source_message_id=9)
    assert merge_action(ended, earlier, []) == "skip"


def test_a_fact_without_a_message_id_revives_an_ended_one():
    ended = Fact("career", "employer", "Яндекс", source_message_id=10, ended="ended", ended_at=NOW)
    assert merge_action(ended, Fact("career", "employer", "Озон"), []) == "replace"


def test_an_ended_fact_is_the_past_and_a_loss_is_remembered_for_good():
    recent = Fact("career", "employer", "Яндекс", ended="ended", ended_at=NOW - timedelta(days=10))
    old = Fact("location", "city", "Москва", ended="ended", ended_at=NOW - timedelta(days=40))
    loss = Fact("pets", "pet:barsik", "кот Барсик", ended="died", ended_at=NOW - timedelta(days=400))
    current = Fact("pets", "pet:laika", "собака Лайка")
    assert not any(is_current(item, NOW) for item in (recent, old, loss)) and is_current(current, NOW)
    assert is_loss(loss) and not is_loss(recent) and not is_loss(current)
    assert still_matters(recent, NOW) and still_matters(loss, NOW)
    assert not still_matters(old, NOW) and not still_matters(current, NOW)
    assert prompt_candidates([recent, old, loss, current], NOW) == [recent, loss, current]
