"""Request synthesis for batches: diverse framework requests that cover the design space.

Each request combines a domain pack, a workflow pattern, one of the pack's personas and one of
its problem types (a leaf of its problem-type tree). Every factor is drawn with
inverse-frequency weights, 1 / (count + 1) ** 1.5 over how often its value was drawn already,
so a batch spreads over packs, patterns, personas and problem types instead of repeating the
likeliest ones; a (pack, pattern) pair repeats only once every pair has been used. The text
comes from templates/requests.yaml. Same `seed`, same requests, in the same order.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from a4a.runtime import knowledge
from a4a.runtime.errors import UserError
from a4a.runtime.ir.domain import DomainPack, ProblemType
from a4a.runtime.loader.yamlio import load_yaml_file

_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class Request:
    """One framework request of a batch, with the factors it was drawn from."""

    id: str
    text: str
    pack: str = ""
    pattern: str = ""
    persona: str = ""
    problem_type: tuple[str, ...] = ()
    size: int = 0
    source: str = "synth"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {**asdict(self), "problem_type": list(self.problem_type)}


def request_id(text: str, seed: int) -> str:
    """Deterministic id of a request: its text and the build seed."""
    return hashlib.sha256(f"request|{seed}|{text}".encode()).hexdigest()[:16]


@cache
def _phrases() -> dict[str, Any]:
    from importlib import resources

    from a4a.runtime.loader.yamlio import load_yaml_text

    text = resources.files("a4a.templates").joinpath("requests.yaml").read_text("utf-8")
    data: dict[str, Any] = load_yaml_text(text, "requests.yaml", trusted=True)
    return data


def _leaves(tree: Sequence[ProblemType], path: tuple[str, ...] = ()
            ) -> Iterator[tuple[tuple[str, ...], str]]:
    for node in tree:
        here = (*path, node.id)
        if node.children:
            yield from _leaves(node.children, here)
        else:
            yield here, node.en


class _Sampler:
    """Inverse-frequency draws: rarely drawn values are likelier next time."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.counts: Counter[Any] = Counter()

    def pick(self, options: Sequence[Any], key: Any = None) -> Any:
        weights = [1 / (self.counts[(key, o)] + 1) ** 1.5 for o in options]
        choice = self.rng.choices(list(options), weights)[0]
        self.counts[(key, choice)] += 1
        return choice


def _roles(pack: DomainPack, rng: random.Random) -> dict[str, str]:
    names = [r.name.replace("_", " ") for r in pack.roles] or ["specialist", "reviewer",
                                                                "coordinator"]
    rng.shuffle(names)
    names = (names * 3)[:3]
    return {"r1": names[0], "r2": names[1], "r3": names[2]}


def _area(pack: DomainPack, rng: random.Random) -> str:
    words = sorted({k for k in pack.keywords if " " not in k and len(k) > 3}) or [pack.id]
    return " and ".join(rng.sample(words, min(2, len(words))))


def synthesize_requests(n: int, seed: int = 0) -> list[Request]:
    """`n` distinct requests drawn over packs x patterns x personas x problem types."""
    phrases = _phrases()
    packs = {k: v for k, v in sorted(knowledge.domain_packs().items()) if k != "generic"}
    patterns = sorted(phrases["patterns"])
    rng = random.Random(f"requests:{seed}")
    draw = _Sampler(rng)
    pairs: Counter[tuple[str, str]] = Counter()
    made: Counter[str] = Counter()
    out: list[Request] = []
    seen: set[str] = set()
    for _ in range(n * 20):
        if len(out) >= n:
            break
        # the packs with the fewest requests so far, as for patterns: with dozens of packs,
        # inverse-frequency weights alone let one pack have twice another's share
        fewest = min(made[k] for k in packs)
        pack = packs[draw.pick([k for k in sorted(packs) if made[k] == fewest], "pack")]
        least = min(pairs[(pack.id, p)] for p in patterns)
        pattern = draw.pick([p for p in patterns if pairs[(pack.id, p)] == least], "pattern")
        persona = draw.pick([p.en for p in pack.personas] or ["a team lead"], pack.id)
        leaves = list(_leaves(pack.problem_types)) or [((), pack.title)]
        path, focus = draw.pick(leaves, ("focus", pack.id))
        size = draw.pick(phrases["sizes"], "size")
        body = rng.choice(phrases["patterns"][pattern]).format(
            focus=focus.lower(), area=_area(pack, rng), n=_WORDS.get(size, str(size)),
            **_roles(pack, rng))
        text = rng.choice(phrases["intros"]).format(persona=persona, body=body)
        if text in seen:
            continue
        seen.add(text)
        pairs[(pack.id, pattern)] += 1
        made[pack.id] += 1
        out.append(Request(request_id(text, seed), text, pack.id, pattern, persona, path,
                           size))
    return out


def load_manifest(path: Path, seed: int = 0) -> list[Request]:
    """Requests a batch manifest lists: `requests:` of strings or {text, ...} mappings.

    Raises:
        UserError: `manifest.invalid` for a file without a list of requests, or an entry
            without text.
    """
    data = load_yaml_file(path)
    rows = data.get("requests") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise UserError("manifest.invalid", f"{path} has no `requests:` list",
                        "Write `requests:` followed by request strings or {text: ...} items.")
    out = []
    for i, row in enumerate(rows):
        text = row if isinstance(row, str) else (row or {}).get("text") if isinstance(
            row, dict) else None
        if not isinstance(text, str) or not text.strip():
            raise UserError("manifest.invalid", f"{path}: request {i} has no text",
                            "Give every request a non-empty `text`.")
        extra = {k: v for k, v in row.items() if k != "text"} if isinstance(row, dict) else {}
        out.append(Request(request_id(text, seed), text, source="manifest", extra=extra))
    return out
