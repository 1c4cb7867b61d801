"""Simulated worlds: typed records from the domain packs, operations with preconditions."""
