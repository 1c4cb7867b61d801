"""The engine: the agent loop, orchestration of typed edges, budgets and trajectories."""
