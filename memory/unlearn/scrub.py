"""Scrubbing what was forgotten out of texts (session messages, topic lines), sentence by sentence. Pure.

A sentence goes when it mentions a forgotten fact: one of its distinctive words ("Лайка", "Тойота", "Яндекс",
in any case) or, for a fact without one ("собака", "habit:smoking"), a word of its kind ("пёс", "курить").
Saying too much is the risk here, so a sentence that merely might mention it goes too.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from memory.facts import Fact
from memory.unlearn.targets import KIN_CONCEPTS, concepts_of, fact_words, stem, words_of

SENTENCE = re.compile(r"[^.!?\n;]*(?:[.!?\n;]+|$)")
# Concepts too wide to scrub by: every sentence about any pet or relative would go.
TOO_WIDE = KIN_CONCEPTS | {"name", "age", "city"}


def scrubber(facts: Sequence[Fact]) -> Callable[[str], str | None]:
    """Return the function that gives a text back without the sentences that mention any of `facts`: the same
    text when none does, None when nothing is left."""
    stems: set[str] = set()
    kinds: set[str] = set()
    for fact in facts:
        fact_stems, concepts = fact_words(fact)
        stems |= {item for item in fact_stems if len(item) > 1}
        kinds |= {concept for concept in concepts if concept not in TOO_WIDE}

    def mentions(sentence: str) -> bool:
        for word in words_of(sentence):
            if stem(word) in stems or concepts_of(word) & kinds:
                return True
        return False

    def scrub(text: str) -> str | None:
        sentences = [match.group() for match in SENTENCE.finditer(text) if match.group()]
        kept = [sentence for sentence in sentences if not mentions(sentence)]
        if len(kept) == len(sentences):
            return text
        rest = "".join(kept).strip()
        return rest or None

    return scrub
