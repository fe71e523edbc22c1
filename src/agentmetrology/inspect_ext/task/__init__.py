"""Our environments served as Inspect tasks: the task factory, solver, scorers and metrics.

`tasks` builds one Inspect task per registered environment; `solver` runs the episode through
our one runner with the Inspect model as the agent (`policy`); `scorers` grade it with the
environment's scorers; `metrics` give our reliability vocabulary to any Inspect task. `options`
and `values` are plain Python: the rest of agm reads them without the `inspect` extra.
"""
