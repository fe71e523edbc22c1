"""The status tables' old home: `cli.campaign_cmd` still imports them from here.

They live in `report/terminal/campaign_tables.py`; this re-export goes when campaign_cmd
imports them from there.
"""

from agentmetrology.report.terminal.campaign_tables import cell_table, target_table

__all__ = ["cell_table", "target_table"]
