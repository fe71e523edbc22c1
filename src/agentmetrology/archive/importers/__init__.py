"""Importers: one small module per source format, all producing `archive.model` records."""

from agentmetrology.archive.importers.detect import FORMATS, detect_format, load_archive

__all__ = ["FORMATS", "detect_format", "load_archive"]
