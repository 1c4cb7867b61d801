"""Relevance of tools to a duty: BM25 over operation names, descriptions and keywords.

Words are lower-cased, split on snake_case and reduced to a crude stem (first six letters), so
"drafts", "drafting" and "draft_reply" meet. Scores are rounded so that builds stay
byte-identical across platforms.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

K1, B = 1.2, 0.75
_WORD = re.compile(r"[a-z][a-z0-9]+|[\u3040-\u30ff\u3400-\u9fff]")
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")
_STOP = frozenset("the and for with from into that this then are you your our their its all "
                  "any each one can will should must who which when what how has have not "
                  "but use uses using via per about by of to in on at or an a is it as be".split())


def stems(text: str) -> list[str]:
    """The comparable word stems of a text."""
    words = _WORD.findall(text.lower().replace("_", " "))
    return [_SUFFIX.sub("", w)[:6] if len(w) > 4 else w for w in words if w not in _STOP]


def bm25(query: str, docs: Sequence[str]) -> list[float]:
    """BM25 score of each document for the query (0.0 where nothing matches)."""
    toks, df, avg = _corpus(tuple(docs))
    if not toks:
        return []
    q = set(stems(query))
    out = []
    for t in toks:
        score = 0.0
        for w in sorted(q & t.keys()):  # a fixed order: the same float sum everywhere
            idf = math.log(1 + (len(toks) - df[w] + 0.5) / (df[w] + 0.5))
            score += idf * t[w] * (K1 + 1) / (t[w] + K1 * (1 - B + B * t.total() / avg))
        out.append(round(score, 3))
    return out


@lru_cache(maxsize=1024)
def _corpus(docs: tuple[str, ...]) -> tuple[tuple[Counter[str], ...], Counter[str], float]:
    """Term counts per document, document frequencies and the mean length.

    Agents of one area share their documents, so this is computed once per area.
    """
    toks = tuple(Counter(stems(d)) for d in docs)
    avg = sum(t.total() for t in toks) / len(toks) if toks else 1.0
    df: Counter[str] = Counter(w for t in toks for w in t)
    return toks, df, avg or 1.0
