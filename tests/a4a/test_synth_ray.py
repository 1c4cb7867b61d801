"""The Ray engine (the `ray` extra, installed by `make test`) matches the local engine."""

from __future__ import annotations

from pathlib import Path

from a4a.synth import SynthConfig, SynthOptions, synthesize
from tests.a4a.synth_support import journal_ids, outputs

CONFIG = SynthConfig(n=3, tasks_per_env=2, seed=5)


def test_a_two_cpu_local_ray_instance_gives_the_local_engine_s_ids_and_outputs(
        tmp_path: Path) -> None:
    import ray  # the extra must be installed: a missing ray fails this test, never skips it

    synthesize(tmp_path / "local", CONFIG, options=SynthOptions(workers=1, catalog=False))
    synthesize(tmp_path / "ray", CONFIG, options=SynthOptions(engine="ray", workers=2,
                                                             catalog=False))
    assert not ray.is_initialized()  # the engine shut its instance down
    for name in ("builds.jsonl", "tasks.jsonl", "runs.jsonl"):
        assert sorted(journal_ids(tmp_path / "ray", name)) == sorted(
            journal_ids(tmp_path / "local", name))
    assert outputs(tmp_path / "ray") == outputs(tmp_path / "local")
