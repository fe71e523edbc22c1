"""Suite-wide: the slowest modules start first; xdist workers see the controller's COLUMNS.

Under pytest-xdist (`make test` runs `-n 2 --dist loadscope`) modules are handed to workers in
collection order, so a 45-second module collected last keeps one worker busy after the other
has finished. Moving the known-slow modules (and any test marked `slow`) to the front lets the
short tests fill in around them. Nothing is skipped or deselected: only the order changes, and
within each group the collection order is kept.

An xdist worker process starts with COLUMNS=80 and LINES=24 in its environment even when the
controller has neither; piped CLI output would then wrap at 80 columns instead of the CLI's
160, and tests that read a long line back fail only under `-n`. Workers restore the
controller's values (unset stays unset).
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from typing import Any

import pytest

TERMINAL_VARS = ("COLUMNS", "LINES")

# Modules measured at about 5 s or more of wall time in the parallel run on the 2-core machine
# (docs/testing.md, "Suite time"), slowest first; the Ray module first of all: it waits on Ray
# more than it computes, so it is the longest unit of work on a quiet machine. The modules that
# read the session's shared Inspect logs (tests/support/inspect_logs.py) other than
# tests/inspect_ext/task/test_eval.py are left out on purpose: test_eval builds those logs early, so
# they find them ready instead of one worker waiting on the other's build.
SLOW_MODULES = (
    "tests/run/campaign/test_campaign_ray_llm.py",
    "tests/inspect_ext/audit/test_census.py",
    "tests/envs/conformance/test_campaign.py",
    "tests/envs/conformance/test_audit.py",
    "tests/inspect_ext/task/test_eval.py",
    "tests/audit/test_comtrade_audit.py",
    "tests/audit/test_audit_store.py",
    "tests/inspect_ext/audit/test_tau2_census.py",
    "tests/archive/test_tau2_do_nothing.py",
    "tests/archive/test_tau2_regrade.py",
    "tests/inspect_ext/audit/test_target.py",
    "tests/diagnose/test_researchops_grid.py",
    "tests/store/test_tamper_study.py",
    "tests/report/test_audit_report.py",
    "tests/serve/test_mcp_server.py",
    "tests/view/test_view_browser.py",
    "tests/audit/test_user_scorer_faults.py",
    "tests/archive/test_importer_fuzz.py",
    "tests/agents/llm/test_llm_price.py",
    "tests/inspect_ext/task/test_options.py",
    "tests/envs/conformance/test_run.py",
    "tests/records/test_canonical_properties.py",
    "tests/run/campaign/test_campaign_kill.py",
    "tests/inspect_ext/audit/test_user_interrupt.py",
    "tests/run/campaign/test_interrupt_says_resume.py",
)


# Modules whose assertions include a wall-clock limit that a second busy worker on a 2-core
# machine can break (Ctrl-C must end a run within 10 s): marked `serial`, and `make test` runs
# them after the parallel part, beside mypy only (`-m "not serial"`, then `-m serial` on these
# paths). The marker comes from this list alone: a test marked `serial` by hand elsewhere would
# run in neither part, so collection refuses it. The Ray cluster module starts nodes of its own
# (processes and ports beside a test worker's local Ray instance): it runs there too.
SERIAL_MODULES = ("tests/run/campaign/test_campaign_interrupt.py",
                  "tests/run/campaign/test_campaign_ray_nodes.py")


_SCRATCH: list[str] = []  # the scratch folders this process made (xdist workers inherit them)


def _scratch_folder(variable: str, prefix: str) -> None:
    """Point `variable` at a new scratch folder unless it is set; remember it for removal."""
    if variable not in os.environ:
        os.environ[variable] = tempfile.mkdtemp(prefix=prefix)
        _SCRATCH.append(os.environ[variable])


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the scratch folders made in pytest_configure (every run left two in /tmp)."""
    while _SCRATCH:
        shutil.rmtree(_SCRATCH.pop(), ignore_errors=True)


def pytest_configure(config: pytest.Config) -> None:
    """Register markers; deliverable SIGINT; in an xdist worker, the controller's COLUMNS/LINES.

    A shell without job control starts background commands with SIGINT ignored, and children
    inherit that: the Ctrl-C tests (tests/run/campaign/test_campaign_interrupt.py) would then see
    no KeyboardInterrupt and a run that cannot be interrupted. The suite restores the default.
    """
    # The status memo (store/verify_memo.py) goes to a scratch folder, never the user's cache;
    # tests of the memo itself set AGM_VERIFY_CACHE per test.
    _scratch_folder("AGM_VERIFY_CACHE", "agm-verify-memo-")
    _scratch_folder("AGM_TAU2_CACHE", "agm-tau2-memo-")
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # pytest-xdist (3.6 and later) re-sorts loadscope's modules by their number of tests unless
    # told not to, which undoes the slow-first order below: the Ray module then started a third
    # of the way through the run, and the run ended on one worker. Keep the collection order.
    if getattr(config.option, "loadscopereorder", None):
        config.option.loadscopereorder = False
    config.addinivalue_line("markers", "slow: a slow test; collected first, never skipped")
    config.addinivalue_line("markers", "serial: has a wall-clock limit; `make test` runs it "
                                       "after the parallel part, beside mypy only (set by "
                                       "SERIAL_MODULES in tests/conftest.py, not by hand)")
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        for name in TERMINAL_VARS:
            value = workerinput.get(f"agm_env_{name}")
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist controller: hand each worker this process's COLUMNS/LINES (None when unset)."""
    for name in TERMINAL_VARS:
        node.workerinput[f"agm_env_{name}"] = os.environ.get(name)


def _rank(item: pytest.Item) -> int:
    path = item.nodeid.split("::", 1)[0]
    if path in SLOW_MODULES:
        return SLOW_MODULES.index(path)
    return len(SLOW_MODULES) if item.get_closest_marker("slow") else len(SLOW_MODULES) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the serial modules; put the slow modules first (stable: module order is kept)."""
    stray = [item.nodeid for item in items if item.get_closest_marker("serial")
             and item.nodeid.split("::", 1)[0] not in SERIAL_MODULES]
    if stray:
        raise pytest.UsageError(f"marked serial outside SERIAL_MODULES (tests/conftest.py), so "
                                f"`make test` would run it in neither part: {stray[0]}; add its "
                                "module to SERIAL_MODULES and SERIAL_TESTS (Makefile) instead")
    for item in items:
        if item.nodeid.split("::", 1)[0] in SERIAL_MODULES:
            item.add_marker(pytest.mark.serial)
    items.sort(key=_rank)


# A skipped test proves nothing: `.ci/run` sets AGM_FAIL_ON_SKIP=1, and then every skip (a
# missing extra, browser or data file, at collection or at run time) is reported as a failure
# that names what was missing. Locally a skip stays a skip with its reason.
FAIL_ON_SKIP = os.environ.get("AGM_FAIL_ON_SKIP") == "1"


def _fail_skip(report: Any) -> None:
    if FAIL_ON_SKIP and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under AGM_FAIL_ON_SKIP=1 (CI installs everything): " \
                          f"{report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Any:
    """Under AGM_FAIL_ON_SKIP=1, a skipped test is a failed one."""
    outcome = yield
    _fail_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """Under AGM_FAIL_ON_SKIP=1, a module skipped at collection is a failed one."""
    outcome = yield
    _fail_skip(outcome.get_result())



@pytest.fixture
def refusing_port() -> Any:
    """A loopback port that refuses connections: bound, never listening (RST on connect)."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    yield s.getsockname()[1]
    s.close()


@pytest.fixture(autouse=True)
def _signal_handlers_kept() -> Any:
    """Put back SIGINT and SIGTERM as they were before each test: a library a test builds
    (verifiers' Environment installs both handlers when constructed) must not change how the
    next test on the same worker sees Ctrl-C."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in before.items():
        if handler is not None and signal.getsignal(sig) is not handler:
            signal.signal(sig, handler)
