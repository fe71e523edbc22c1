"""Small built-in campaigns the command-line tests run (seconds each, no model)."""

# ResearchOps, 25 tasks x seed 0 x one scripted policy, each with its alias mutation: enough
# pairs for `agm diagnose`.
RESEARCHOPS_GRID = """
[campaign]
name = "ro-grid"
environment = "researchops"
tasks = "all"
seeds = "0"
levels = ["L2"]
mutations = ["alias"]

[[targets]]
name = "careful"
kind = "scripted"
agent = "scripted:careful"
"""
