"""Batch synthesis: many environments and their trajectories in one resumable job.

>>> from a4a.synth import SynthConfig, synthesize
>>> report = synthesize("runs/batch", SynthConfig(n=10, tasks_per_env=3))  # doctest: +SKIP
"""

from a4a.synth.config import SynthConfig, SynthOptions
from a4a.synth.job import synthesize

__all__ = ["SynthConfig", "SynthOptions", "synthesize"]
