"""NexRL interop: trajectories as NexAU's in-memory tracer spans, and NexRL workspaces."""
