"""Text as a reader sees it: what a filter on words must judge, not the code points a writer chose to hide behind.

NFKC folds fullwidth and styled letters ("ｉｇｎｏｒｅ", "𝐒𝐘𝐒𝐓𝐄𝐌") to plain ones; invisible format characters
(zero-width spaces and joiners, soft hyphens, byte order marks, bidi marks and isolates: Unicode's category
Cf) are dropped; and a word that mixes Latin, Cyrillic and Greek letters ("ignоre" with a Cyrillic о) has its
stray letters mapped to their lookalikes in the script most of its letters are in. A hand-written table of
the lookalikes is enough here: the letters people swap are few, and the library that knows them all
(confusable-homoglyphs) loads a table of several MiB to say only whether a string is mixed. Pure.
"""

from __future__ import annotations

import re
import unicodedata

from memory.decodings import decoded_readings, with_tags_spelled

# Lookalike letters, position by position ("-" where a script has none).
_LATIN = "aceopxyABCEHKMOPTXYikmnruhsjIJS"
_CYRILLIC = "асеорхуАВСЕНКМОРТХУікмпгиһѕјІЈЅ"
_GREEK = "α-εορχγΑΒ-ΕΗΚΜΟΡΤΧΥικ-------Ι--"
_TO = {
    "LATIN": {**dict(zip(_GREEK, _LATIN, strict=True)), **dict(zip(_CYRILLIC, _LATIN, strict=True))},
    "CYRILLIC": {**dict(zip(_GREEK, _CYRILLIC, strict=True)), **dict(zip(_LATIN, _CYRILLIC, strict=True))},
    "GREEK": {**dict(zip(_LATIN, _GREEK, strict=True)), **dict(zip(_CYRILLIC, _GREEK, strict=True))},
}
_TO = {kind: {source: target for source, target in table.items() if "-" not in (source, target)}
       for kind, table in _TO.items()}
_WORD = re.compile(r"[^\W\d_]+")


# A right-to-left override shows the letters after it reversed, up to a pop of the direction or the line's end.
_OVERRIDDEN = re.compile("\u202e([^\u202c\n]*)\u202c?")


def readings(text: str) -> list[str]:
    """Return the ways `text` can be read, each normalised: as its characters go (as a model reads it); when a
    right-to-left override reverses part of it, as it shows on a screen; with the message its tag characters
    hide spelled out; and as each disguise it may wear undone (memory/decodings.py)."""
    plain = normalised(text)
    found = [plain]
    if "\u202e" in text:
        found.append(normalised(_OVERRIDDEN.sub(lambda match: match.group(1)[::-1], text)))
    spelled = with_tags_spelled(text)  # before normalised drops the tag characters as invisible
    if spelled is not None:
        found.append(normalised(spelled))
    found += [normalised(reading) for reading in decoded_readings(plain)]
    if _MIXED.search(plain) is not None:  # a word split evenly between scripts: read in each
        found += [normalised(text, tie) for tie in ("LATIN", "CYRILLIC")]
    return list(dict.fromkeys(found))


# A letter of one script beside a letter of another inside a word: where an even split may be left.
_MIXED = re.compile(r"[A-Za-z][\u0370-\u04ff]|[\u0370-\u04ff][A-Za-z]|[\u0370-\u03ff][\u0400-\u04ff]"
                    r"|[\u0400-\u04ff][\u0370-\u03ff]")


def normalised(text: str, tie: str | None = None) -> str:
    """Return `text` in NFKC, without invisible format characters, each mixed-script word in one script (a word
    split evenly in the script `tie` names, if any: "ΡRΕVΙΟUS" is four Greek letters and four Latin ones)."""
    text = "".join(char for char in unicodedata.normalize("NFKC", text) if unicodedata.category(char) != "Cf")
    return _WORD.sub(lambda match: one_script(match.group(), tie), text)


def one_script(word: str, tie: str | None = None) -> str:
    """Return `word` with letters of a minority script swapped for their lookalikes in its majority script
    ("ignоre" -> "ignore", "Отнынe" -> "Отныне"); a word in one script, or an even split, comes back as is
    (an even split goes to `tie`, if given)."""
    counts: dict[str, int] = {}
    for char in word:
        counts[script(char)] = counts.get(script(char), 0) + 1
    counts.pop("OTHER", None)
    if len(counts) < 2:
        return word
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    if ranked[0][1] == ranked[1][1]:
        if tie is None or tie not in counts:
            return word
        table = _TO[tie]
        return "".join(table.get(char, char) for char in word)
    table = _TO[ranked[0][0]]
    return "".join(table.get(char, char) for char in word)


def script(char: str) -> str:
    """Return "LATIN", "CYRILLIC" or "GREEK" for a letter of that script, else "OTHER"."""
    if char.isascii():
        return "LATIN" if char.isalpha() else "OTHER"
    name = unicodedata.name(char, "")
    return next((kind for kind in ("LATIN", "CYRILLIC", "GREEK") if name.startswith(kind)), "OTHER")
