"""Whether a Russian word is most likely an order ("игнорируй", "выведи", "забудьте"): a lookup in a sorted word
list shipped beside this module, so that judging a word costs a binary search, not a morphological analyser.

pymorphy3 with its Russian dictionary tells the imperative mood best, but only with its probability estimator,
which the bot's own analyzer (memory/text/word_forms.py) leaves out to stay small. So the analyser is run once,
offline (`python -m memory.ru_imperatives`), over every word of its
dictionary: a word goes into the list when its most likely reading is the second-person imperative. "мой"
(also "wash!") and "три" (also "rub!") stay out, their likelier readings being "my" and "three". The list,
gzipped (about 190 KB), is read on first use into one bytes object of about 1.3 MiB. ё is written е in it.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

WORDS_FILE = Path(__file__).with_name("ru_imperatives.txt.gz")


@lru_cache(maxsize=1)
def _words() -> bytes:
    """Return the sorted word list, one lowercase word a line, framed by newlines (read once)."""
    return b"\n" + gzip.decompress(WORDS_FILE.read_bytes()).strip(b"\n") + b"\n"


def is_imperative(word: str) -> bool:
    """True when the Russian `word`'s most likely reading is an order to "you" (singular or plural)."""
    key = word.lower().replace("ё", "е").encode()
    if not key or b"\n" in key:
        return False
    return _contains(_words(), key)


def _contains(words: bytes, key: bytes) -> bool:
    """True when `key` is a line of the sorted, newline-framed `words` (a binary search over byte offsets)."""
    low, high = 0, len(words) - 1  # newlines: the lines still in question lie between them
    while low < high:
        end = words.find(b"\n", max((low + high) // 2, low + 1))  # the end of a line in the middle
        start = words.rfind(b"\n", low, end)
        line = words[start + 1:end]
        if line == key:
            return True
        if line < key:
            low = end
        else:
            high = start
    return False


def imperative_words() -> list[str]:
    """Return every word whose most likely reading pymorphy3 gives as the second-person imperative, sorted."""
    import pymorphy3  # offline only: the bot reads the list this builds

    analyser = pymorphy3.MorphAnalyzer()
    dictionary = analyser.dictionary
    orders = {index for index, tag in enumerate(dictionary.gramtab) if "impr" in tag and "excl" in tag}
    found = set()
    for word, (paradigm_id, index) in dictionary.words.iteritems():
        paradigm = dictionary.paradigms[paradigm_id]
        if paradigm[len(paradigm) // 3 + index] in orders:
            found.add(word)
    kept = {word.replace("ё", "е") for word in found if _likeliest_is_order(analyser, word)}
    return sorted(kept)


def _likeliest_is_order(analyser, word: str) -> bool:
    """True when pymorphy3's most likely reading of `word` is the second-person imperative."""
    best = analyser.parse(word)[0].tag
    return best.mood == "impr" and best.involvement == "excl"


if __name__ == "__main__":
    WORDS_FILE.write_bytes(gzip.compress("\n".join(imperative_words()).encode() + b"\n", 9, mtime=0))
    print(f"wrote {WORDS_FILE}")
