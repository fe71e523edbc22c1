"""The report section that names why cells are INVALID also reads an environment audit."""

from __future__ import annotations

from agentmetrology.report.blocks import Doc, to_markdown
from agentmetrology.report.inspect_report import invalid_section
from agentmetrology.report.numberguard import NumberGuard


def test_env_audit_doc_with_a_raising_scorer_gets_its_reason():
    doc = {"stages": {"probes": {"shipped": {
        "scorer": "raiser.py:score",
        "invalid_reasons": [{"reason": "RuntimeError: boom", "cells": 160}]}}}}
    d = Doc(NumberGuard(doc))
    invalid_section(d, doc)
    text = to_markdown(d.blocks)
    assert "INVALID cells and why" in text
    assert "`raiser.py:score` (shipped): 160 × RuntimeError: boom" in text


def test_no_invalid_cells_no_section():
    doc = {"stages": {"probes": {"shipped": {"scorer": "s", "invalid_reasons": []}}}}
    d = Doc(NumberGuard(doc))
    invalid_section(d, doc)
    assert d.blocks == []
