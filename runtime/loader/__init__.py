"""Safe YAML, canonical files, framework directories and NexAU configs."""
