"""Training on trajectories: fine-tuning loop, TRL-style rewards, agent evaluation."""
