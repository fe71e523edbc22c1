"""`agm view`: a local, read-only web viewer of evidence stores, audit dirs and archive audits."""

from agentmetrology.view.app import create_app
from agentmetrology.view.source import Source, ViewSourceError, detect_source

__all__ = ["Source", "ViewSourceError", "create_app", "detect_source"]
