"""Our environments, scorers and reliability metrics inside Inspect AI (an optional extension).

`inspect eval agentmetrology/ENV -T task=... -T seeds=0-4 -T level=L2 --model PROVIDER/NAME`
runs any registered environment as an Inspect task: the episode goes through our one runner
with the Inspect model as the agent, our scorers grade it, and our reliability vocabulary
(worst case, CVaR, Reliability@tau, a seeded bootstrap CI) is available as Inspect metrics for
any task. Inspect finds all of it through the `inspect_ai` entry point, which names
`agentmetrology.inspect_ext.registry`. Only that module and the ones it imports need inspect-ai;
`options` and `values` are plain Python, so the rest of agm never needs the extra.
"""

ENTRY_POINT_MODULE = "agentmetrology.inspect_ext.registry"
