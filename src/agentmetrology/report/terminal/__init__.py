"""Terminal renderings of the analyses' documents: rich tables fitted to a console and plain lines.

The command line makes the console and prints; what a table or a line holds is decided here,
from the same document the JSON output prints, so both agree. Nothing here computes a number.
"""
