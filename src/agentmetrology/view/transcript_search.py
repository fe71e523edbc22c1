"""The conversation's search box: which turns hold a text, marked and linked from above.

The viewer runs no script, so the search is a GET form on the episode page (`find=`) and the
server marks the matching turns. A turn matches when its text as shown (markup removed, folded
parts included) contains the query, ignoring case; the query is shown escaped like any value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import unescape

from agentmetrology.records.episode import EpisodeKey
from agentmetrology.store.reader_queries import KEY_FIELDS
from agentmetrology.view.html import Html, form_value
from agentmetrology.view.params import MAX_FIND

STYLE = "<style>.match{outline:2px solid #e6b800;outline-offset:2px}</style>"
_TAG = re.compile(r"<[^>]*>")


def shown_text(html: str) -> str:
    """Return the text a block of our markup shows (tags removed, entities decoded)."""
    return unescape(_TAG.sub(" ", html))


def search_form(h: Html, key: EpisodeKey, find: str | None) -> str:
    """Return the search box: a GET form back to this episode's page with `find`."""
    hidden = "".join(f'<input type="hidden" name="{f}" value="{form_value(getattr(key, f))}">'
                     for f in KEY_FIELDS)
    return (f'<form class="filters" id="transcript-search" method="get" action="/episode">'
            f'{hidden}<label>find in the conversation <input name="find" size="30" '
            f'maxlength="{MAX_FIND}" value="{h.t(find or "")}"></label>'
            '<button type="submit">find</button></form>')


def marked(h: Html, blocks: Sequence[str], find: str) -> str:
    """Return the blocks with those that contain `find` marked, and links to them above."""
    needle = find.casefold()
    out: list[str] = []
    links: list[str] = []
    for block in blocks:
        if needle in shown_text(block).casefold():
            links.append(f'<a href="#match-{len(links) + 1}">{len(links) + 1}</a>')
            block = f'<div class="match" id="match-{len(links)}">{block}</div>'
        out.append(block)
    summary = (f"{len(links)} of {len(blocks)} turns contain “{h.t(find)}”: " + " ".join(links)
               if links else f"No turn contains “{h.t(find)}”.")
    return f'{STYLE}<p id="search-result">{summary}</p>' + "".join(out)
