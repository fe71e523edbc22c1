"""ResearchOpsEnv's tools: their specifications and the episode environment that executes them."""
