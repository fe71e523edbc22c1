"""Inspect logs: reading `.eval` logs as archives, and writing our runs as `.eval` logs.

`importer` reads a log (a zip, through `zip_members`' bounded reader; grades by `grades`) into
an `archive.model.Archive` without inspect-ai; `archive_format` is the `inspect` entry the
archive's format registry names by module path; `export` writes an evidence store's episodes
as Inspect logs.
"""
