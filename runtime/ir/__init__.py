"""The framework IR and domain-pack models."""
