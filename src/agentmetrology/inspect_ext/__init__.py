"""Everything agm knows about Inspect AI, in one package (an optional extension).

- `task/`: our environments, scorers and reliability metrics served as Inspect tasks;
- `logs/`: Inspect `.eval` logs read as archives (no inspect-ai needed) and our runs written as
  Inspect logs (`agm export --format inspect`);
- `audit/`: an Inspect benchmark's own scorers audited (`agm audit inspect|census|propose`).

The package sits above the auditor and the archive: their registries name its entries (the
`inspect` archive format, the probe proposer, the tau2 do-nothing evaluator) by module path and
import them when asked for, as they would a plug-in's, and never import it themselves.

`inspect eval agentmetrology/ENV -T task=... -T seeds=0-4 -T level=L2 --model PROVIDER/NAME`
runs any registered environment as an Inspect task: the episode goes through our one runner
with the Inspect model as the agent, our scorers grade it, and our reliability vocabulary
(worst case, CVaR, Reliability@tau, a seeded bootstrap CI) is available as Inspect metrics for
any task. Inspect finds all of it through the `inspect_ai` entry point, which names
`agentmetrology.inspect_ext.registry`. Only that module and the ones it imports need inspect-ai;
`task/options`, `task/values` and `logs/` are plain Python, so the rest of agm never needs the
extra.
"""

ENTRY_POINT_MODULE = "agentmetrology.inspect_ext.registry"
