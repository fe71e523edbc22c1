"""Values no ledger writer stores, as the verifier names them: a raw BLOB in a digested column
or in place of a sealed text (a forger's edit; SQLite keeps a BLOB whatever a column declares).
"""

from __future__ import annotations


def undigestable(cols: tuple[str, ...], row: tuple[object, ...]) -> str:
    """Return the detail of a row holding a value the ledger never writes (a raw BLOB)."""
    odd = [f"{c} ({type(v).__name__})" for c, v in zip(cols, row[1:], strict=True)
           if v is not None and type(v) not in (str, int, float)]
    return (f"{', '.join(odd) or 'a column'} holds a value the ledger never writes (a raw "
            "BLOB): the row has no content digest, so it is not the row sealed")


def not_text(text: object) -> str:
    """Return what a sealed text that is no text is, for a problem's detail ('' for text)."""
    return "" if isinstance(text, str) else f" (it is no text but a {type(text).__name__})"
