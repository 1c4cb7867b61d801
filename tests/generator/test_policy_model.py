"""The learned second stage of the request policy: its model file and its determinism."""

from __future__ import annotations

import pytest

from a4a.generator import policy_model


def test_the_model_file_loads_and_scores() -> None:
    model = policy_model.load()
    assert len(model.weights) > 1000
    assert 0.5 < model.threshold < 1
    assert model.meta["cv_benign_refused"] <= 0.01
    feats = policy_model.features_of("a team that triages GitHub issues")
    assert any(f.startswith("w:") for f in feats)
    assert 0 <= policy_model.score(feats) < model.threshold


def test_features_read_cjk_as_character_pairs() -> None:
    feats = policy_model.features([set()], [], "偷偷复制")
    assert {"w:偷偷", "w:偷复", "b:偷偷 偷复"} <= set(feats)


def test_a_fit_on_a_slice_is_deterministic() -> None:
    texts, labels, sources = policy_model.corpora()
    pick = list(range(0, len(texts), 12))
    args = ([texts[i] for i in pick], [labels[i] for i in pick], [sources[i] for i in pick])
    config = policy_model.Config(epochs=2)
    first = policy_model.dump(policy_model.fit(*args, config=config))
    assert first == policy_model.dump(policy_model.fit(*args, config=config))


@pytest.mark.slow
def test_refitting_gives_the_committed_model_byte_for_byte() -> None:
    """Fails when the corpora, the term tables or the trainer changed without a refit:
    run `python -m a4a.generator.policy_model fit` and commit templates/policy_model.json."""
    committed = (policy_model.ROOT / "templates" / policy_model.MODEL_FILE).read_text("utf-8")
    refit = policy_model.dump(policy_model.fit(*policy_model.corpora()))
    assert refit == committed, "run `python -m a4a.generator.policy_model fit` and commit it"
