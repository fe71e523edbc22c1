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

# The permission tool world, a compliant and an overreaching policy: the failing episodes a
# case is proposed from (agm cases).
PERMISSION = """
[campaign]
name = "perm"
environment = "permission"
tasks = ["flag_overdue"]
seeds = "0-1"
levels = ["L2"]
conditions = ["clean"]

[[targets]]
name = "within"
kind = "scripted"
agent = "scripted:within"

[[targets]]
name = "overreach"
kind = "scripted"
agent = "scripted:overreach"
"""
