"""Auditing an Inspect benchmark's own scorers: forged outputs, do-nothing runs, the census.

`load` loads an Inspect task as `inspect eval` would; `forge` makes the probe outputs; `run`
scores them (and a do-nothing episode) through Inspect; `kind` reads a scorer's kind from its
scores; `target` assembles the audit document and card. `tau2_outcome` and `tau2_tools` probe
tau2's episode-judging scorers; `census` audits many benchmarks at once (`census_worker` is
its child process, `census_tau2` the tau-bench do-nothing counts). `probe_proposals` and
`tau2_do_nothing` are reached from the auditor's and the archive's registries by module path.
"""
