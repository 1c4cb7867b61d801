"""Request synthesis: deterministic, distinct, spread over the design space, and buildable."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from a4a.generator.pipeline import compile_request
from a4a.generator.requests import load_manifest, synthesize_requests
from a4a.runtime import knowledge
from a4a.runtime.errors import UserError

PACKS = {p for p in knowledge.domain_packs() if p != "generic"}


def test_same_seed_same_requests_and_a_longer_batch_extends_a_shorter_one() -> None:
    a, b = synthesize_requests(60, seed=3), synthesize_requests(60, seed=3)
    assert a == b
    assert synthesize_requests(90, seed=3)[:60] == a
    assert synthesize_requests(60, seed=4) != a


def test_requests_are_distinct_and_cover_every_pack_and_pattern() -> None:
    reqs = synthesize_requests(400)
    assert len({r.text for r in reqs}) == len({r.id for r in reqs}) == 400
    packs, patterns = Counter(r.pack for r in reqs), Counter(r.pattern for r in reqs)
    assert set(packs) == PACKS and set(patterns) == set(knowledge.patterns())
    # inverse-frequency draws keep the spread even: no pack or pattern hogs the batch
    assert max(packs.values()) <= 2 * min(packs.values())
    assert max(patterns.values()) <= 2 * min(patterns.values())
    assert len({(r.pack, r.pattern) for r in reqs}) >= 300  # of 22 x 16 = 352 pairs


def test_synthesized_requests_compile_to_the_pack_and_mostly_the_pattern_asked_for() -> None:
    reqs = synthesize_requests(64, seed=1)
    built = [(r, compile_request(r.text)) for r in reqs]
    assert all(not [i for i in c.issues if i.severity == "error"] for _, c in built)
    assert all(r.pack in c.intent.domains for r, c in built)
    assert sum(r.pattern == c.spec.pattern for r, c in built) >= 0.75 * len(built)


def test_a_manifest_lists_requests_as_strings_or_mappings(tmp_path: Path) -> None:
    f = tmp_path / "m.yaml"
    f.write_text("requests:\n  - a team that triages GitHub issues\n"
                 "  - {text: an agent that books flights, tag: travel}\n", encoding="utf-8")
    reqs = load_manifest(f)
    assert [r.text for r in reqs][1] == "an agent that books flights"
    assert reqs[1].extra == {"tag": "travel"} and reqs[0].source == "manifest"


@pytest.mark.parametrize("body", ["requests: []\n", "other: 1\n", "requests:\n  - {x: 1}\n",
                                  "requests:\n  - '  '\n"])
def test_a_bad_manifest_is_a_clear_error(tmp_path: Path, body: str) -> None:
    f = tmp_path / "m.yaml"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(UserError) as err:
        load_manifest(f)
    assert err.value.code == "manifest.invalid"
