"""Batch synthesis: quality filtering of trajectories (more to come: batch jobs, resume)."""
