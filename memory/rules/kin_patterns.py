"""Word lists, case tables and trigger patterns for pets and family (memory/rules/kin.py): animals, relatives,
how Russian declines them, and the phrases that name them as the user's own ("my …", "у меня есть …").
"""

from __future__ import annotations

import re

from memory.rules.fact_patterns import I_AM, I_HAVE, WORD, I, form_table, ru_case_forms, words

EN_SPECIES = {
    "cat": "cat", "cats": "cat", "kitten": "cat", "kittens": "cat", "kitty": "cat", "dog": "dog", "dogs": "dog",
    "puppy": "dog", "puppies": "dog", "parrot": "parrot", "parrots": "parrot", "hamster": "hamster",
    "hamsters": "hamster", "rabbit": "rabbit", "rabbits": "rabbit", "bunny": "rabbit", "turtle": "turtle",
    "tortoise": "turtle", "guinea pig": "guinea_pig", "ferret": "ferret", "snake": "snake", "lizard": "lizard",
    "goldfish": "fish", "budgie": "parrot", "chinchilla": "chinchilla", "rat": "rat", "horse": "horse",
    # Dog breeds people name instead of "dog" ("a golden retriever named Max").
    "retriever": "dog", "labrador": "dog", "beagle": "dog", "poodle": "dog", "husky": "dog", "corgi": "dog",
    "dachshund": "dog", "pug": "dog", "terrier": "dog", "chihuahua": "dog", "spaniel": "dog", "bulldog": "dog",
}
_RU_SPECIES = {
    "кот": "cat", "кошка": "cat", "котик": "cat", "кошечка": "cat", "собака": "dog", "собачка": "dog",
    "попугай": "parrot", "хомяк": "hamster", "кролик": "rabbit", "черепаха": "turtle", "шиншилла": "chinchilla",
    "крыса": "rat", "хорёк": "ferret", "хорек": "ferret", "ящерица": "lizard", "змея": "snake", "лошадь": "horse",
    "мопс": "dog", "хаски": "dog", "корги": "dog", "овчарка": "dog", "лабрадор": "dog", "шпиц": "dog", "бигль": "dog",
}
_RU_SPECIES_IRREGULAR = {
    "коты": "cat", "котов": "cat", "кошки": "cat", "кошек": "cat", "котики": "cat", "котиков": "cat",
    "котёнок": "cat", "котенок": "cat", "котёнка": "cat", "котенка": "cat", "котята": "cat", "котят": "cat",
    "собаки": "dog", "собак": "dog", "пёс": "dog", "пес": "dog", "пса": "dog", "псы": "dog", "щенок": "dog",
    "щенка": "dog", "щенки": "dog", "щенков": "dog", "попугаи": "parrot", "попугаев": "parrot", "хомяки": "hamster",
    "хомяков": "hamster", "кролики": "rabbit", "кроликов": "rabbit", "рыбки": "fish", "рыбок": "fish",
    "черепахи": "turtle", "черепах": "turtle",
}
RU_SPECIES = form_table(_RU_SPECIES, _RU_SPECIES_IRREGULAR)
# The nominative singular of a Russian species word, for values like "кот Барсик".
RU_SPECIES_NOMINATIVE = {form: nom for nom in _RU_SPECIES for form in ru_case_forms(nom)}
RU_SPECIES_NOMINATIVE.update({"котёнка": "котёнок", "котенка": "котенок", "пса": "пёс", "щенка": "щенок"})

EN_RELATIVES = {
    "wife": "wife", "husband": "husband", "son": "son", "daughter": "daughter", "sister": "sister",
    "brother": "brother", "mom": "mother", "mum": "mother", "mother": "mother", "mommy": "mother",
    "dad": "father", "father": "father", "daddy": "father", "kid": "child", "child": "child",
    "kids": "children", "children": "children", "sons": "son", "daughters": "daughter", "sisters": "sister",
    "brothers": "brother", "grandma": "grandmother", "grandmother": "grandmother", "granny": "grandmother",
    "grandpa": "grandfather", "grandfather": "grandfather", "girlfriend": "girlfriend", "boyfriend": "boyfriend",
    "partner": "partner", "fiance": "fiance", "fiancé": "fiance", "fiancee": "fiance", "fiancée": "fiance",
    "aunt": "aunt", "uncle": "uncle", "cousin": "cousin", "niece": "niece", "nephew": "nephew",
    "parents": "parents", "siblings": "siblings", "grandson": "grandson", "granddaughter": "granddaughter",
    "grandkids": "grandchildren", "grandchildren": "grandchildren", "stepson": "stepson",
    "stepdaughter": "stepdaughter", "stepmother": "stepmother", "stepfather": "stepfather", "twin": "twin",
}
_RU_RELATIVES = {
    "сестра": "sister", "сестрёнка": "sister", "сестренка": "sister", "брат": "brother", "братик": "brother",
    "мама": "mother", "мать": "mother", "папа": "father", "отец": "father", "муж": "husband", "жена": "wife",
    "сын": "son", "сынок": "son", "дочь": "daughter", "дочка": "daughter", "бабушка": "grandmother",
    "дедушка": "grandfather", "девушка": "girlfriend", "парень": "boyfriend", "тётя": "aunt", "тетя": "aunt",
    "дядя": "uncle", "племянник": "nephew", "племянница": "niece", "внук": "grandson", "внучка": "granddaughter",
    "жених": "fiance", "невеста": "fiance",
}
_RU_RELATIVES_IRREGULAR = {
    "отца": "father", "отцу": "father", "отцом": "father", "матери": "mother", "матерью": "mother",
    "дочери": "daughter", "дочерью": "daughter", "парня": "boyfriend", "парню": "boyfriend", "парнем": "boyfriend",
    "дети": "children", "детей": "children", "детям": "children", "детьми": "children", "ребёнок": "child",
    "ребенок": "child", "ребёнка": "child", "ребенка": "child", "сыновья": "son", "сыновей": "son",
    "дочки": "daughter", "дочерей": "daughter", "сестры": "sister", "сестёр": "sister", "сестер": "sister",
    "братья": "brother", "братьев": "brother", "родители": "parents", "родителей": "parents", "внуки": "grandchildren",
    "внуков": "grandchildren", "сёстры": "sister",
}
RU_RELATIVES = form_table(_RU_RELATIVES, _RU_RELATIVES_IRREGULAR)
RU_RELATIVE_NOMINATIVE = {form: nom for nom in _RU_RELATIVES for form in ru_case_forms(nom)}
RU_RELATIVE_NOMINATIVE.update({"отца": "отец", "отцу": "отец", "отцом": "отец", "матери": "мать", "матерью": "мать",
                               "дочери": "дочь", "дочерью": "дочь", "парня": "парень", "парню": "парень",
                               "парнем": "парень", "ребёнка": "ребёнок", "ребенка": "ребенок"})
# One word allowed between "my"/"a" and the relative or animal ("my little sister", "a black cat").
EN_RELATIVE_MODIFIERS = words("little older younger big elder baby twin step half eldest oldest youngest")
EN_PET_MODIFIERS = words("little black white ginger grey gray orange tabby fluffy big small new rescue lazy pet tiny "
                         "cute golden")
RU_MODIFIERS = words("""
младшая младший старшая старший маленькая маленький взрослая взрослый любимая любимый родная родной младшую
старшую младшего старшего рыжий рыжая чёрный черный чёрная черная белый белая серый серая пушистый пушистая
""")
# "my cat videos", "my mother tongue": the animal or relative is only the first half of another noun.
COMPOUND_HEADS = words("""
allergy allergies person people food toy toys bed video videos meme memes sitter walker tattoo mug shirt picture
pictures photo photos costume hair tongue land country board ship figure joke jokes nature in-law hen show
years days friend friends bite bites breed park owner owners lover lovers treat treats collar leash sitting
""")
MODIFIERS = {"pet": EN_PET_MODIFIERS | RU_MODIFIERS, "family": EN_RELATIVE_MODIFIERS | RU_MODIFIERS}
NUMBER_WORDS = words("""
a an one two three four five six seven eight nine ten several some few couple
один одна одно два две три четыре пять шесть двое трое четверо пятеро несколько
""")
# A name tied to the animal or relative just named: "named Luna", "'s name is Rex", ", её зовут Мурка".
NAME_LINKS = re.compile(
    r"^(?:['’]s\s+(?:name\s+is|called|named)|\s+is\s+(?:called|named)|"
    r"\s*,?\s*(?:named|called|whose\s+name\s+is|(?:and\s+)?(?:his|her|its)\s+name\s+is|"
    r"по\s+кличке|по\s+имени|(?:(?:которого|которую|её|его|ее)\s+)?зовут))\s+"
    rf"(?P<name>{WORD})", I)
DIRECT_NAME = re.compile(rf"^(?P<comma>\s*,)?\s+(?P<name>{WORD})\b")
_HEADS = sorted(set(EN_SPECIES) | set(RU_SPECIES) | set(EN_RELATIVES) | set(RU_RELATIVES), key=len, reverse=True)
_MODIFIER_WORDS = sorted(EN_PET_MODIFIERS | EN_RELATIVE_MODIFIERS | RU_MODIFIERS, key=len, reverse=True)
KIN_ITEM = re.compile(
    rf"(?:(?P<count>{'|'.join(sorted(NUMBER_WORDS, key=len, reverse=True))}|\d+)\s+)?"
    rf"(?:(?P<modifier>{'|'.join(_MODIFIER_WORDS)})\s+)?(?P<head>{'|'.join(re.escape(h) for h in _HEADS)})(?![\w-])", I)
# Words after which a capitalised word is the animal's or relative's name ("кот Барсик", not "кота Барсика").
NOMINATIVES = frozenset(set(EN_SPECIES) | set(EN_RELATIVES) | set(_RU_SPECIES) | set(_RU_RELATIVES)
                        | {"пёс", "пес", "щенок", "котёнок", "котенок"})
# "I have rabbit stew": in English a singular animal or relative needs "a" or a number after "I have".
EN_SINGULAR = frozenset(w for w in set(EN_SPECIES) | set(EN_RELATIVES) if not w.endswith(("s", "ren")))
RU_NEGATED_AFTER = re.compile(r"^\s+(?:нет|не\s+было|больше\s+нет|уже\s+нет)\b", I)
# "Муж у меня врач", "Кот у меня рыжий": the relative or animal comes first, "у меня" after it.
INVERTED_HAVE_RU = re.compile(r"(?:^|[,;—–]\s*|\b(?:а|и|но)\s+)(?P<head>[^\W\d_]+)\s+у\s+(?:меня|нас)\b", I)
IDIOMS = re.compile(
    r"\b(?:partner\s+in\s+crime|mother\s+nature|brother\s+from\s+another\s+mother|sick\s+as\s+a\s+dog|"
    r"raining\s+cats\s+and\s+dogs|dog\s+days|cat\s+got\s+your\s+tongue|big\s+brother\s+is|"
    r"dog\s+in\s+(?:the|this)\s+fight|"
    r"let\s+the\s+cat\s+out)\b", I)
# In the clause before "my …": the bot is addressed ("You're my girlfriend", "ты моя девушка").
ADDRESSEE = re.compile(r"\b(?:you|you['’]re|u|ur|be|become|ты|вы|тебя|тебе|будь|будьте|стань)\b", I)
POSSESSIVE_EN = re.compile(r"\b(?:my|our)\s+", I)
POSSESSIVE_RU = re.compile(r"\b(?:мой|моя|моё|мое|мои|моего|моему|моим|моём|моем|мою|моей|моих|моими|наш|наша|наши|"
                           r"нашего|нашему|нашим|нашу|нашей|наших)\s+", I)
HAVE_RU = re.compile(r"\bу\s+(?:меня|нас)\s+(?:(?:есть|живёт|живет|живут|тоже|ещё|еще|уже|дома)\s+)*", I)
# "Есть дочка по имени Соня": in chat a bare "есть" opening a clause is the user's; its relative or animal must
# be in the nominative or counted ("есть двое детей"), and nobody else may own it ("у подруги …, есть дочка").
BARE_HAVE_RU = re.compile(r"(?:^\W*|[,;:—–]\s*|\b(?:а|и|но)\s+)(?:(?:ещё|еще|также|тоже)\s+)?есть\s+"
                          r"(?:(?:ещё|еще|тоже)\s+)?", I)
OTHER_OWNER_RU = re.compile(r"\bу\s+(?!(?:меня|нас)\b)[^\W\d_]+", I)
# "Есть кот у соседей": the owner named after the animal.
OWNER_AFTER_RU = re.compile(r"^\s+у\s+(?!(?:меня|нас)\b)", I)
# "Сына зовут Миша", "Кошку зовут Муся": a relative or animal named at the start of a clause, with no owner.
BARE_NAMED_RU = re.compile(rf"(?:^\W*|[,;:—–]\s*|\b(?:а|и|но)\s+)(?P<head>[^\W\d_]+)\s+зовут\s+(?P<name>{WORD})", I)
# "Я обожаю свою собаку Лайку": "свой" is the subject's, so the clause before must be the user's ("я", "обожаю").
OWN_RU = re.compile(r"\b(?:свой|своя|своё|свое|свои|своего|своему|своим|своём|своем|свою|своей|своих|своими)\s+", I)
FIRST_PERSON_RU = re.compile(r"(?:^|\s)(?:я|[^\W\d_]{2,}(?:ю|у))\s+(?:[^\W\d_]+\s+)?$", I)
# "I'm a mom of two boys", "I'm 41 and a dad of three", "Я мама двоих детей".
PARENT_OF_EN = re.compile(
    rf"(?:{I_AM}|^\W*{I_AM}\s[^.;]{{0,40}}?\band)\s+(?:a\s+)?(?:(?:proud|single|working|busy|tired)\s+)?"
    r"(?:mom|mum|mother|dad|father|parent|mommy|daddy)\s+(?:of|to)\s+(?P<count>two|three|four|five|six|\d)"
    r"(?:\s+(?P<head>kids|children|boys|girls|sons|daughters))?\b", I)
PARENT_OF_RU = re.compile(
    r"\bя\s+(?:[—–-]\s*)?(?:(?:счастливая|молодая|многодетная|гордая)\s+)?(?:мама|мать|папа|отец)\s+"
    r"(?P<count>двоих|троих|четверых|пятерых|двух|трёх|трех|четырёх|четырех)\s+"
    r"(?P<head>детей|детишек|сыновей|дочек|дочерей|мальчиков|мальчишек|девочек)\b", I)
PARENT_COUNTS = {"двоих": "двое", "двух": "двое", "троих": "трое", "трёх": "трое", "трех": "трое",
                 "четверых": "четверо", "четырёх": "четверо", "четырех": "четверо", "пятерых": "пятеро"}
PARENT_HEADS = {"boys": "son", "sons": "son", "girls": "daughter", "daughters": "daughter", "сыновей": "son",
                "мальчиков": "son", "мальчишек": "son", "дочек": "daughter", "дочерей": "daughter",
                "девочек": "daughter"}
# "We just adopted a kitten", "Я недавно завела кота": a new pet, past tense but theirs now.
ADOPTED_EN = re.compile(r"\b(?:i|we)(?:\s+have|['’]ve)?\s+(?:just\s+|recently\s+|finally\s+)?(?:adopted|rescued)\s+", I)
ADOPTED_RU = re.compile(r"(?P<subj>\b(?:я|мы)\s+)?(?:недавно\s+|наконец\s+|тоже\s+|вчера\s+)?"
                        r"(?:завела|завёл|завел|завели)\s+(?:себе\s+)?", I)
HAVE_EN = re.compile(I_HAVE, I)
# "мы с мужем", "живу с мамой и сестрой": the people the user lives or does things with.
WITH_RU = re.compile(r"\b(?:мы|живу|живём|живем)\s+с\s+", I)
LIST_JOINER = re.compile(r"\s*(?:,\s*(?:and\s+|и\s+)?|\s+and\s+|\s+и\s+|\s+а\s+ещё\s+|\s+plus\s+)", I)
DEATH = re.compile(
    r"\b(?:died|dead|passed\s+away|passed|rip|lost|ran\s+away|умер|умерла|умерли|погиб|погибла|не\s+стало|скончал\w*|"
    r"сдох\w*|убежал\w*|сбежал\w*|пропал\w*)\b", I)



def kind_of(word: str) -> tuple[str | None, str]:
    """Return ("pet", species) or ("family", relation) for an animal or relative word, else (None, "")."""
    lowered = word.lower()
    for kind, table in (("pet", EN_SPECIES), ("pet", RU_SPECIES), ("family", EN_RELATIVES), ("family", RU_RELATIVES)):
        if lowered in table:
            return kind, table[lowered]
    return None, ""


def ru_nominative(word: str) -> str | None:
    """Return the nominative singular of a Russian animal or relative word ("кота" -> "кот"), or None."""
    lowered = word.lower()
    return RU_SPECIES_NOMINATIVE.get(lowered) or RU_RELATIVE_NOMINATIVE.get(lowered)
