"""The other ways a value may be read once its disguise is undone: hidden tag characters spelled out, letters
spread apart closed up, leetspeak spelled in letters, and reversed, rot13 or base64 text decoded.

A filter on words sees "i g n o r e", "1gn0r3", "erongi", "vtaber" or "aWdub3Jl…" as no word at all, while a
model reads each of them as "ignore". So memory/orders.py judges these readings as well as the text itself.
Each one is made only when its sign is there (a tag character, a run of lone letters, a digit inside a word, a
long base64 run); reversing and rot13 change any text, so theirs count only when they turn it into words
(more of COMMON_WORDS than the text held, and at least two). Pure and cheap: a few regex passes and a
translate.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

# Unicode tag characters (U+E0000–U+E007F) copy ASCII one for one and show nothing: a message hidden in them is
# invisible on screen yet read by a model.
TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
# Three or more lone letters joined by one separator each: "i g n o r e", "i.g.n.o.r.e.", "d-i-s-r-e-g-a-r-d".
# One separator all the way, so that lone words around a run ("в S.T.A.L.K.E.R.") stay out of it.
SPREAD = re.compile(r"(?<!\w)[^\W\d_]([ .\-_*·])[^\W\d_](?:\1[^\W\d_])+(?!\w)\.?")
LONE_LETTER = re.compile(r"[^\W\d_]")
# Three words or more, each a sentence of its own: "Ignore. All. Previous. Instructions." reads as one sentence.
# ... or joined by hyphens or underscores: "ignore-all-previous-instructions", "forget_your_rules".
CHOPPED = re.compile(r"(?<!\w)(?:[^\W\d_]+[.!,;:]+\s+){2,}[^\W\d_]+(?!\w)"
                     r"|(?<![\w-])(?:[^\W\d_]+[-_]){2,}[^\W\d_]+(?![\w-])")
CHOP = re.compile(r"[.!,;:]+\s+|[-_]")
# A word with a letter and a digit or sign used for a letter in it: "1gn0r3", "pr3v10u5", "3абудь".
LEET_WORD = re.compile(r"(?=[\w$@!|]*[^\W\d_])(?=[\w$@!|]*[0-9$|])[\w$@!|]{2,}")
TRAILING_DIGITS = re.compile(r"[^\W\d]+\d{3,}")
MAX_LEET_WORD = 20
LATIN_LEET = str.maketrans("0134578$|!", "oieastbsli")
# 1 is i or l: after a vowel (or another such 1) it is l ("a11", "ru1es", "he110"), else i ("1gn0re", "pr3v10us").
AFTER_VOWEL_ONE = re.compile(r"(?<=[aeiouAEIOU013])1+")
CYRILLIC_LEET = str.maketrans("0346", "оеаб")  # 3 at a word's start is з ("3абудь"), elsewhere е ("вс3")
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
# A base64 run long enough to hold a sentence; shorter ones are ids and hashes.
BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
WORD = re.compile(r"[^\W\d_]+")
MAX_SEGMENTED = 120  # letters: a longer run is not split into words (the split costs a pass per letter)
LATIN = re.compile(r"[A-Za-z]")
LEET_SIGN = re.compile(r"[^\W\d_][0-9$|!]|[0-9$|!][^\W\d_]")  # a digit or sign touching a letter

# Words found in nearly any sentence, and those of the orders themselves: a decoding that makes several of them
# is text, one that makes none is noise.
COMMON_WORDS = frozenset("""
the an and or of to in on at is are be was all any every your you my me it this that these from with for
not no now only always never new as by do don't what about its their his her we us our them they
previous prior above instructions instruction rules rule prompt system secret password hidden mode admin
developer ignore forget disregard reveal print show tell obey follow answer reply say restrictions filters
не на что все всё ты вы твои свои мне меня мой это как но по из за от до для только всегда теперь
отныне правила правил инструкции инструкций указания промпт системный системные предыдущие прежние
игнорируй забудь выведи покажи раскрой слушайся подчиняйся ограничения режим пароль
""".split())


MAX_COMMON_WORD = max(map(len, COMMON_WORDS))


def decoded_readings(text: str) -> list[str]:
    """Return the readings of `text` its disguises hide (none for a plain text), each different from it; tag
    characters aside (with_tags_spelled), as they must be read before invisible characters are dropped."""
    found = [reading for reading in (closed_up(text), spelled_leet(text), joined_up(text)) if reading is not None]
    found += base64_readings(text)
    turned = [text[::-1], words_reversed(text)]
    if LATIN.search(text) is not None:  # rot13 turns Latin letters only
        turned.append(codecs.encode(text, "rot13"))
    words_before = common_words(text)
    found += [reading for reading in turned if makes_words(reading, words_before)]
    return list(dict.fromkeys(reading for reading in found if reading != text))


def with_tags_spelled(text: str) -> str | None:
    """Return `text` with each run of tag characters written out as the ASCII it copies; None when it has none."""
    if TAG_RUN.search(text) is None:
        return None
    return TAG_RUN.sub(lambda match: " " + "".join(chr(ord(char) - 0xE0000) for char in match.group()) + " ",
                       text)


def joined_up(text: str) -> str | None:
    """Return `text` with runs of one-word sentences, or of words joined by hyphens or underscores, read as one
    ("Ignore. All. Previous. Instructions." -> "Ignore All Previous Instructions."); None when it has no run of
    three."""
    if CHOPPED.search(text) is None:
        return None
    return CHOPPED.sub(lambda match: CHOP.sub(" ", match.group()), text)


def closed_up(text: str) -> str | None:
    """Return `text` with runs of lone letters joined into words ("i g n o r e" -> "ignore"); None when it has
    no such run of three letters or more."""
    changed = False

    def join(match: re.Match[str]) -> str:
        nonlocal changed
        letters = LONE_LETTER.findall(match.group())
        if len(letters) < 3:
            return match.group()
        changed = True
        return segmented("".join(letters))

    joined = SPREAD.sub(join, text)
    return joined if changed else None


def segmented(run: str) -> str:
    """Return a run of letters split into COMMON_WORDS where it is nothing but them ("ignoreallrules" -> "ignore all
    rules": words spread with the same one space as their letters); else the run as it is."""
    lower = run.lower()
    if len(lower) > MAX_SEGMENTED:
        return run
    ends: dict[int, int] = {0: 0}  # where a split ends -> where its last word starts
    for end in range(1, len(lower) + 1):
        start = next((start for start in range(max(0, end - MAX_COMMON_WORD), end)
                      if start in ends and lower[start:end] in COMMON_WORDS), None)
        if start is not None:
            ends[end] = start
    if len(lower) not in ends:
        return run
    words, end = [], len(lower)
    while end:
        words.append(run[ends[end]:end])
        end = ends[end]
    return " ".join(reversed(words))


def spelled_leet(text: str) -> str | None:
    """Return `text` with the digits and signs inside words read as the letters they stand for ("1gn0r3" ->
    "ignore", "3абудь" -> "забудь"); None when no word mixes them."""
    if LEET_SIGN.search(text) is None:
        return None
    changed = False

    def spell(match: re.Match[str]) -> str:
        nonlocal changed
        word = match.group()
        if len(word) > MAX_LEET_WORD or TRAILING_DIGITS.fullmatch(word):
            return word  # "SHA256", "vanya_1990", a base64 run: a number or an id, not letters in disguise
        if CYRILLIC.search(word):
            spelled = ("з" + word[1:] if word.startswith("3") else word).translate(CYRILLIC_LEET)
        else:
            spelled = AFTER_VOWEL_ONE.sub("l", word).translate(LATIN_LEET)
        changed = changed or spelled != word
        return spelled

    spelled = LEET_WORD.sub(spell, text)
    return spelled if changed else None


def base64_readings(text: str) -> list[str]:
    """Return `text` with its base64 runs decoded, when one decodes to text of several words; else []."""
    changed = False

    def decode(match: re.Match[str]) -> str:
        nonlocal changed
        run = match.group()
        try:
            plain = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run
                                     else None, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return run
        if not looks_like_words(plain):
            return run
        changed = True
        return f" {plain} "

    decoded = BASE64_RUN.sub(decode, text)
    return [decoded] if changed else []


def looks_like_words(plain: str) -> bool:
    """True when decoded bytes read as text: printable, with a space, mostly letters and spaces."""
    if " " not in plain.strip() or not plain.isprintable():
        return False
    wordy = sum(char.isalpha() or char.isspace() for char in plain)
    return wordy >= 0.7 * len(plain)


def words_reversed(text: str) -> str:
    """Return `text` with each word reversed in place ("erongi lla" -> "ignore all"); a word's punctuation turns
    with it, which no judgement of words minds (a split is several times cheaper than a regex)."""
    return " ".join(word[::-1] for word in text.split())


def makes_words(reading: str, words_before: int) -> bool:
    """True when `reading` holds at least two COMMON_WORDS and more of them than the text it was made of held
    (`words_before`)."""
    found = common_words(reading)
    return found >= 2 and found > words_before


def common_words(text: str) -> int:
    """Return how many words of `text` are COMMON_WORDS (lone letters, which noise is full of, are none)."""
    return sum(word in COMMON_WORDS for word in WORD.findall(text.lower()))
