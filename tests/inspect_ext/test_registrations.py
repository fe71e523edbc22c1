"""The Inspect package plugs into the archive's and the auditor's registries by module path:
each entry resolves to the package's object, in the place a static registration had."""

from __future__ import annotations

from agentmetrology.archive.importers.detect import FORMATS, format_names
from agentmetrology.archive.importers.formats import ARCHIVE_FORMATS
from agentmetrology.archive.tau2_donothing import DEFAULT_EVALUATOR, EVALUATORS
from agentmetrology.audit.proposals import PROPOSERS
from agentmetrology.inspect_ext.audit import probe_proposals, tau2_do_nothing
from agentmetrology.inspect_ext.logs import archive_format


def test_the_inspect_archive_format_is_found_by_name_in_its_place() -> None:
    assert ARCHIVE_FORMATS.target("inspect") == \
        "agentmetrology.inspect_ext.logs.archive_format:INSPECT"
    assert ARCHIVE_FORMATS.get("inspect") is archive_format.INSPECT
    assert archive_format.INSPECT.name == "inspect"
    # --format auto tries Inspect after tau2 and before JSONL, as before the move
    assert FORMATS == ("auto", "agm", "taubench", "tau2", "inspect", "jsonl")
    assert format_names()[:6] == list(FORMATS)


def test_probe_proposals_and_the_tau2_evaluator_resolve_to_the_inspect_package() -> None:
    assert PROPOSERS.names() == ["ownership", "probes"]
    assert PROPOSERS.get("probes") is probe_proposals.propose_task_probes
    assert EVALUATORS.names() == [DEFAULT_EVALUATOR] == ["inspect-evals"]
    assert EVALUATORS.get(DEFAULT_EVALUATOR) is tau2_do_nothing.run_evaluator
