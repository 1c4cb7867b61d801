"""The learned second stage of the request policy: a linear model over the policy's term classes.

The rules (`generator/policy.py`) refuse when a whole intent is met; a new phrasing often meets
most of one, or meets its parts in an order no rule spells out. This model reads the same term
classes as the rules (`generator/policy_terms.py`, on the shared folded text, the same in every
language) and scores how hostile their combination is. Features, per window of a sentence and
the next: each class (`k:`), each pair of classes (`p:`), and for each intent rule met but for
at most one need group, how far it is from firing and whether an `unless` class is there
(`i:<rule>` and `c:<code>`); then the content words (`w:`, CJK runs as character pairs) and
pairs of them (`b:`). The two parts are each scaled to unit length. Out of fold, on the tuning
hostile requests the rules let through, classes and words did better than classes alone or
character n-grams (README, Security policy).

The weights are data: `templates/policy_model.json`, written by
`python -m a4a.generator.policy_model fit` (logistic regression by AdaGrad on the tuning corpora
of tests/data, the threshold chosen by 5-fold cross-validation; same bytes on every run).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from a4a.generator.policy_terms import Intent, pooled_classes, readings, rules
from a4a.generator.text import LANGUAGES, fold, normalize, table

MODEL_FILE = "policy_model.json"
_TOKEN = re.compile(r"\w+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
ROOT = Path(__file__).resolve().parents[1]
# The tuning corpora: (file, key of the list, key of the text, label). Held-out items
# (heldout: true) are never read; tests/data/generation/heldout.yaml is not listed.
# The last two hold real requests people wrote, which the threshold keeps clear of (REAL).
CORPORA = (("tests/data/policy/hostile_tuning.yaml", "requests", "text", 1),
           ("tests/data/policy/hostile.yaml", "requests", "text", 1),
           ("tests/data/policy/benign_tuning.yaml", "requests", "text", 0),
           ("tests/data/policy/benign_risky.yaml", "requests", "text", 0),
           ("tests/data/generation/tuning.yaml", "cases", "request", 0),
           ("tests/data/requests_benign.yaml", "requests", "", 0))
# The requests `a4a synth` writes (generator.requests) are benign by construction and the
# threshold keeps clear of them too: seeds 0 and 2, so the test that compiles seed 1's requests
# reads requests the screen was not fitted on.
SYNTH = (("synth:0", 0), ("synth:2", 2))
SYNTH_REQUESTS = 176  # per seed: half the pack x pattern pairs
REAL = frozenset({"tests/data/generation/tuning.yaml", "tests/data/requests_benign.yaml",
                  *(name for name, _ in SYNTH)})


@dataclass(frozen=True)
class Config:
    """How the model is trained; stored in the model file."""

    epochs: int = 8
    rate: float = 0.5
    l2: float = 1e-5
    seed: int = 0
    keep: int = 3000  # features kept, by |weight|
    min_requests: int = 3  # a word (or pair) in fewer tuning requests is no feature
    digits: int = 3  # weights rounded to
    folds: int = 5
    benign_refused: float = 0.01  # cross-validated share of benign requests refused
    real_margin: float = 0.1  # the threshold stays this far above every real request's score


@dataclass(frozen=True)
class Model:
    """Weights by feature, a bias, the refusal threshold and how they were obtained.

    `vocabulary` holds the words and pairs of words that are features (None: every one); the
    others are left out before the request's word part is scaled, in training as in scoring.
    """

    weights: dict[str, float]
    bias: float
    threshold: float
    vocabulary: frozenset[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def features(sentences: Sequence[set[str]], intents: Iterable[Intent], fold: str = "") -> list[str]:
    """The model's features of a request: its classes' and then its words' (each part sorted).

    `sentences` are the term classes of each sentence, `fold` the folded text the words come
    from (words and pairs of words; a run of CJK characters gives its character pairs).
    """
    intents = tuple(intents)
    out: set[str] = set()
    for i in range(len(sentences)):
        window = set().union(*sentences[i:i + 2])
        ordered = sorted(window)
        out.update(f"k:{c}" for c in ordered)
        out.update(f"p:{a}|{b}" for j, a in enumerate(ordered) for b in ordered[j + 1:])
        for n, rule in enumerate(intents):
            met = sum(bool(group & window) for group in rule.need)
            missing = len(rule.need) - met
            if missing <= 1 and met >= 2:
                unless = "u" if rule.unless & window else ""
                out.add(f"i:{n}:{missing}{unless}")
                out.add(f"c:{rule.code}:{missing}{unless}")
    return sorted(out) + _words(fold)


def _words(fold: str) -> list[str]:
    words: list[str] = []
    for token in _TOKEN.findall(fold):
        if _CJK.search(token):
            words += [token[i:i + 2] for i in range(len(token) - 1)] or [token]
        elif len(token) > 1 and token not in _stopwords():
            words.append(token)
    found = {f"w:{w}" for w in words} | {f"b:{a} {b}" for a, b in itertools.pairwise(words)}
    return sorted(found)


@cache
def _stopwords() -> frozenset[str]:
    """The function words of every language table, folded.

    They say nothing of an aim; as features they learn which corpus a language's items came from.
    """
    return frozenset(fold(normalize(w)) for lang in LANGUAGES
                     for w in table(lang, "language").get("stopwords", ()))


def features_of(text: str) -> list[str]:
    """The model's features of a request, read as the rules read it."""
    texts = readings(text)
    return features(pooled_classes(texts), rules().intents, texts[0].fold)


def vector(feats: Sequence[str]) -> list[tuple[str, float]]:
    """Features with their values: the class part and the word part each of unit length."""
    words = sum(f[0] in "wb" for f in feats)
    parts = {True: 1 / math.sqrt(words) if words else 0.0,
             False: 1 / math.sqrt(len(feats) - words) if len(feats) > words else 0.0}
    return [(f, parts[f[0] in "wb"]) for f in feats]


@cache
def load() -> Model:
    """The committed model (`templates/policy_model.json`), read once."""
    text = resources.files("a4a.templates").joinpath(MODEL_FILE).read_text("utf-8")
    data = json.loads(text)
    return Model(data["weights"], data["bias"], data["threshold"],
                 frozenset(data["vocabulary"]), data["meta"])


def score(feats: Sequence[str], model: Model | None = None) -> float:
    """The probability that a request with these features is hostile."""
    model = model or load()
    feats = known(feats, model.vocabulary)
    return _sigmoid(model.bias + sum(model.weights.get(f, 0.0) * v for f, v in vector(feats)))


def evidence(feats: Sequence[str], model: Model | None = None, top: int = 3) -> list[str]:
    """The features that pushed the score up the most, strongest first."""
    model = model or load()
    feats = known(feats, model.vocabulary)
    weighted = sorted(((model.weights.get(f, 0.0) * v, f) for f, v in vector(feats)),
                      key=lambda t: (-t[0], t[1]))
    return [f for w, f in weighted[:top] if w > 0]


def near_rule(feats: Iterable[str]) -> bool:
    """Whether some intent rule is met but for at most one group (the screen refuses no other).

    A request that comes near no rule holds nothing the rules call hostile; refusing it would
    rest on its words alone, which is where plain requests were refused in other languages.
    """
    return any(f.startswith("c:") for f in feats)


def nearest_rule(feats: Sequence[str], model: Model | None = None) -> str:
    """The intent code the request comes nearest, by weight (`c:<code>:<groups missing>[u]`)."""
    model = model or load()
    near = [f for f in feats if f.startswith("c:")]
    return max(near, key=lambda f: (model.weights.get(f, 0.0), f), default="")


def known(feats: Sequence[str], vocabulary: frozenset[str] | None) -> list[str]:
    """`feats` less the words and pairs of words outside `vocabulary` (None keeps them all)."""
    if vocabulary is None:
        return list(feats)
    return [f for f in feats if f[0] not in "wb" or f in vocabulary]


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def train(data: Sequence[tuple[list[tuple[str, float]], int]], config: Config) -> Model:
    """Logistic regression by AdaGrad, classes weighted to balance; pruned and rounded.

    `data` holds each request's `vector` and label. The order of the epochs comes
    from `config.seed`, so the same data give the same model.
    """
    weights: dict[str, float] = {}
    grads: dict[str, float] = {}
    bias, bias_grad = 0.0, 1e-8
    positives = sum(label for _, label in data)
    balance = {1: len(data) / (2 * positives), 0: len(data) / (2 * (len(data) - positives))}
    order = list(range(len(data)))
    rng = random.Random(config.seed)
    for _ in range(config.epochs):
        rng.shuffle(order)
        for k in order:
            feats, label = data[k]
            z = bias + sum(weights.get(f, 0.0) * v for f, v in feats)
            err = (_sigmoid(z) - label) * balance[label]
            for f, v in feats:
                w = weights.get(f, 0.0)
                g = err * v + config.l2 * w
                grads[f] = grads.get(f, 1e-8) + g * g
                weights[f] = w - config.rate * g / math.sqrt(grads[f])
            bias_grad += err * err
            bias -= config.rate * err / math.sqrt(bias_grad)
    kept = sorted(weights.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:config.keep]
    return Model({f: round(w, config.digits) for f, w in sorted(kept) if round(w, config.digits)},
                 round(bias, config.digits), 1.0)


def cross_validate(data: Sequence[tuple[list[str], int]], sources: Sequence[str],
                   config: Config) -> list[float]:
    """Each request's score by a model trained without its fold.

    Folds are contiguous slices of each corpus file, so paraphrases written side by side
    mostly fall in one fold and the scores are those of phrasings the model has not seen.
    """
    fold = _folds(sources, config.folds)
    vectors = [(vector(feats), label) for feats, label in data]
    scores = [0.0] * len(data)
    for f in range(config.folds):
        model = train([d for d, k in zip(vectors, fold, strict=True) if k != f], config)
        for i, (feats, _) in enumerate(data):
            if fold[i] == f:
                scores[i] = score(feats, model)
    return scores


def _folds(sources: Sequence[str], k: int) -> list[int]:
    sizes = {s: sources.count(s) for s in set(sources)}
    seen = dict.fromkeys(sizes, 0)
    out = []
    for s in sources:
        out.append(seen[s] * k // sizes[s])
        seen[s] += 1
    return out


def threshold(scores: Sequence[float], labels: Sequence[int], benign_refused: float) -> float:
    """The lowest score (3 decimals) at which at most `benign_refused` of benign are refused."""
    benign = sorted((s for s, y in zip(scores, labels, strict=True) if y == 0), reverse=True)
    allowed = int(benign_refused * len(benign))
    return math.floor(benign[allowed] * 1000 + 1) / 1000


def corpora(root: Path = ROOT) -> tuple[list[str], list[int], list[str]]:
    """The tuning requests, their labels (1 hostile) and the file each came from."""
    texts: list[str] = []
    labels: list[int] = []
    sources: list[str] = []
    for name, key, text_key, label in CORPORA:
        for item in yaml.safe_load((root / name).read_text("utf-8"))[key]:
            if isinstance(item, dict) and item.get("heldout", False):
                continue
            texts.append(item[text_key] if text_key else item)
            labels.append(label)
            sources.append(name)
    from a4a.generator.requests import synthesize_requests  # no cycle: it reads packs only

    for name, seed in SYNTH:
        synth = [r.text for r in synthesize_requests(SYNTH_REQUESTS, seed=seed)]
        texts += synth
        labels += [0] * len(synth)
        sources += [name] * len(synth)
    return texts, labels, sources


def fit(texts: Sequence[str], labels: Sequence[int], sources: Sequence[str],
        config: Config = Config()) -> Model:
    """Train on every request and choose the threshold by cross-validation.

    The threshold is the one at which `config.benign_refused` of the benign requests would be
    refused out of fold, counting only those near a rule (`near_rule`), as the screen does; and
    at least `config.real_margin` above the highest out-of-fold score of a real request (`REAL`):
    a plain request must not be refused because the risky-sounding benign ones set the bar.

    Words and pairs of words found in fewer than `config.min_requests` requests are left out:
    a word seen once says which request it came from, not what requests of that kind want.
    """
    data = [(features_of(t), y) for t, y in zip(texts, labels, strict=True)]
    seen = Counter(f for feats, _ in data for f in feats if f[0] in "wb")
    vocabulary = frozenset(f for f, n in seen.items() if n >= config.min_requests)
    data = [(known(feats, vocabulary), y) for feats, y in data]
    cv = [s if near_rule(feats) else 0.0
          for s, (feats, _) in zip(cross_validate(data, sources, config), data, strict=True)]
    real = [s for s, source in zip(cv, sources, strict=True) if source in REAL]
    th = max(threshold(cv, labels, config.benign_refused),
             round(max(real, default=0.0) + config.real_margin, 3))
    hostile = [s for s, y in zip(cv, labels, strict=True) if y == 1]
    benign = [s for s, y in zip(cv, labels, strict=True) if y == 0]
    model = train([(vector(feats), y) for feats, y in data], config)
    meta = {"config": asdict(config), "hostile": len(hostile), "benign": len(benign),
            "cv_hostile_refused": round(sum(s >= th for s in hostile) / len(hostile), 3),
            "cv_benign_refused": round(sum(s >= th for s in benign) / len(benign), 4)}
    return Model(model.weights, model.bias, th, vocabulary, meta)


def dump(model: Model) -> str:
    """The model file's text: sorted keys, one word or weight a line, so a refit diffs readably."""
    head = {"bias": model.bias, "threshold": model.threshold, "meta": model.meta}
    words = [f"  {json.dumps(f, ensure_ascii=False)}" for f in sorted(model.vocabulary or ())]
    lines = [f"  {json.dumps(f, ensure_ascii=False)}: {w}"
             for f, w in sorted(model.weights.items())]
    return (json.dumps(head, sort_keys=True, ensure_ascii=False)[:-1]
            + ', "vocabulary": [\n' + ",\n".join(words) + "\n]"
            + ', "weights": {\n' + ",\n".join(lines) + "\n}}\n")


def main(argv: list[str] | None = None) -> int:
    """`fit`: train on the tuning corpora and write templates/policy_model.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["fit"])
    parser.add_argument("--out", type=Path, default=ROOT / "templates" / MODEL_FILE)
    args = parser.parse_args(argv)
    model = fit(*corpora())
    args.out.write_text(dump(model), "utf-8")
    print(f"{args.out}: {len(model.weights)} weights, {len(model.vocabulary or ())} words, "
          f"threshold {model.threshold}, "
          f"{json.dumps(model.meta['config'])}; cross-validated: hostile refused "
          f"{model.meta['cv_hostile_refused']:.1%}, benign refused "
          f"{model.meta['cv_benign_refused']:.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
