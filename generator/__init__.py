"""The rule-based compiler: request text to a validated framework directory."""
