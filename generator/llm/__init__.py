"""LLM-backed builders: DSPy programs that improve the rule-based draft, checked in a loop.

Nothing here is imported by the rule-based path; dspy is imported inside these modules only.
"""
