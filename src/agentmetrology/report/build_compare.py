"""A report written by another build of agm, compared with what this build derives again.

Another build may write fields this one does not and lack fields it writes, and word its method
texts otherwise; a number it and this build both write must still be the same. So only the
values both write are compared (a key one side lacks, at any depth, is listed, not compared),
and a value both write that differs is a difference, whoever wrote it: an edited number and a
method that changed between builds read alike here, and neither is ever called agreeing.
Numbers are every compared value that is not text (numbers, booleans and nulls, a list whose
length differs, a value whose kind changed); texts are the values both sides hold as strings
(method texts, verdict words).

A digest the report holds over its other values (diagnose.json's `digest`, a score row's
`row_id`) changes with any field another build adds, so across builds it is left out and the
values it covers are compared one by one.

Such a report qualifies only when it holds exactly the values this build derives again and each
is the same (numbers and texts). A value the report alone holds is not agreement: it may be a
field this build no longer writes, or a group renamed by an edit, and nothing here derives it
again. Nor is a value this build writes that the report lacks: a field added since that build
and a section deleted from the report (a group whose diagnosis was unwelcome) read alike. Anything
else is `report_from_other_build` with result `unavailable`, saying whether the values both
write agree: what would tell an upgrade from an edit (the build that wrote the report) is not
here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentmetrology.records.canonical import canonical_json
from agentmetrology.records.json_diff import SHOWN, shown
from agentmetrology.report.build_id import build_name, this_build
from agentmetrology.store.qualify import UNAVAILABLE

OTHER_BUILD = "report_from_other_build"


@dataclass
class Shared:
    """What comparing the values two builds both write found."""

    compared: int = 0  # values both write (leaves, and lists whose lengths differ)
    numbers: list[str] = field(default_factory=list)  # differing non-text values, described
    texts: list[str] = field(default_factory=list)  # differing texts, described
    only_report: list[str] = field(default_factory=list)  # paths the report alone holds
    only_again: list[str] = field(default_factory=list)  # paths this build alone writes

    @property
    def agree(self) -> bool:
        """Return True when every value both builds write is the same."""
        return not self.numbers and not self.texts

    def to_json(self) -> dict[str, Any]:
        """Return the comparison as plain JSON (paths listed up to SHOWN, all counted)."""
        return {"compared": self.compared,
                "numbers_agree": not self.numbers, "numbers_differing": len(self.numbers),
                "texts_agree": not self.texts, "texts_differing": len(self.texts),
                "only_in_report": len(self.only_report),
                "only_in_report_paths": self.only_report[:SHOWN],
                "only_recomputed": len(self.only_again),
                "only_recomputed_paths": self.only_again[:SHOWN]}


def shared_values(report: Any, again: Any) -> Shared:
    """Return the comparison of the values both plain JSON documents hold: `report` (as found)
    and `again` (recomputed by this build)."""
    out = Shared()
    _walk(report, again, "", out)
    return out


def _walk(old: Any, new: Any, path: str, out: Shared) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            here = f"{path}.{key}" if path else str(key)
            if key not in new:
                out.only_report.append(here)
            elif key not in old:
                out.only_again.append(here)
            else:
                _walk(old[key], new[key], here, out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            _walk(a, b, f"{path}[{i}]", out)
    else:
        out.compared += 1
        a, b = canonical_json(old), canonical_json(new)
        if a != b:
            texts = isinstance(old, str) and isinstance(new, str)
            (out.texts if texts else out.numbers).append(
                f"{path}: {shown(old)} in the report, {shown(new)} recomputed")


def listed(items: list[str]) -> str:
    """Return up to SHOWN items joined, with `; ...` when there were more."""
    return "; ".join(items[:SHOWN]) + ("; ..." if len(items) > SHOWN else "")


def without(doc: Any, path: str) -> Any:
    """Return plain JSON `doc` with the value at `path` left out: `a.b` a key of an object,
    `a[].b` that key of every object in the list `a` (what is not there is left as it is)."""
    head, _, rest = path.partition(".")
    if not isinstance(doc, dict) or head.removesuffix("[]") not in doc:
        return doc
    if not rest:
        return {k: v for k, v in doc.items() if k != head}
    key, inner = head.removesuffix("[]"), doc[head.removesuffix("[]")]
    if head.endswith("[]"):
        kept = [without(item, rest) for item in inner] if isinstance(inner, list) else inner
    else:
        kept = without(inner, rest)
    return {**doc, key: kept}


def _not_compared(found: Shared) -> str:
    parts = []
    if found.only_report:
        parts.append(f"{len(found.only_report)} value(s) only the report holds, not derived "
                     f"again ({listed(found.only_report)})")
    if found.only_again:
        parts.append(f"{len(found.only_again)} value(s) this build writes are missing from "
                     f"the report ({listed(found.only_again)})")
    return "; " + "; ".join(parts) if parts else ""


@dataclass(frozen=True, slots=True)
class OtherBuild:
    """What recomputing another build's report found."""

    problems: list[dict[str, str]]
    notes: list[str]
    block: dict[str, Any]  # the qualification's `recomputed` section
    uncompared: int  # values the report holds that were not derived again


def other_build(name: str, written: dict[str, str] | None, report: dict[str, Any],
                again: dict[str, Any], digests: tuple[str, ...] = ()) -> OtherBuild:
    """Return the finding of the report `name`, written by the build `written` (None: unknown),
    whose compared sections are `report`, recomputed by this build as `again`; `digests`: the
    paths of the report's digests over its other values, left out (see `without`)."""
    for path in digests:
        report, again = without(report, path), without(again, path)
    found = shared_values(report, again)
    block = {"status": OTHER_BUILD, "same_build": False, "report_build": written,
             "this_build": this_build(), "digests_not_compared": list(digests),
             **found.to_json()}
    head = (f"{name} was written by another build: {build_name(written)} wrote it, "
            f"{build_name(this_build())} recomputed it")
    if found.agree and not found.only_report and not found.only_again:
        return OtherBuild([], [f"{OTHER_BUILD}: {head}; the {found.compared} value(s) both "
                               f"builds write agree (numbers and texts){_not_compared(found)}"],
                          block, 0)
    differ = [f"{len(found.numbers)} number(s) differ ({listed(found.numbers)})"
              if found.numbers else "the numbers agree",
              f"{len(found.texts)} text(s) differ ({listed(found.texts)})"
              if found.texts else "the texts agree"]
    detail = (f"{head}; of the {found.compared} value(s) both builds write, "
              f"{' and '.join(differ)}{_not_compared(found)}; a change between builds and an "
              "edit of the report read alike here: write the report again with this build to "
              "compare like with like")
    return OtherBuild([{"kind": OTHER_BUILD, "result": UNAVAILABLE, "detail": detail}], [],
                      block, len(found.only_report))
