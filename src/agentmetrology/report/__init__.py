"""Reports: canonical JSON in, Markdown / HTML / SVG out; no new numbers are computed here.

`html` holds generic self-contained HTML primitives, `numberguard` refuses prose whose numbers
are not in the source JSON, and `archive_report` renders the archive audit.
"""
