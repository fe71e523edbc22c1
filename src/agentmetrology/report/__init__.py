"""Reports: canonical JSON in, Markdown / HTML / SVG / terminal tables out; no new numbers are
computed here.

`html` holds generic self-contained HTML primitives, `numberguard` refuses prose whose numbers
are not in the source JSON, `archive_report` renders the archive audit, and `terminal` holds
what each command prints (rich tables fitted to the console, plain lines).
"""
