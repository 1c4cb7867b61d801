"""Graph view of the IR and the validator."""
