"""Training on trajectories (data, loss masking, LoRA, rewards, evaluation); not built yet."""
