"""The operator workbench: the case lifecycle from the browser (`agm view STORE --workbench`).

Each action is the library call `agm cases` makes (assess.cases: propose, calibrate, admit, use,
withdraw) on the store opened for writing for that one request, so it is recorded in the store
with its receipt exactly as from the shell, and refused out of order exactly as the shell
refuses it (the library re-checks the state in the same transaction: a refused step changes
nothing). Writes need the run's token (workbench_auth); reading the page needs it too, since
the page carries the forms.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from agentmetrology.assess import cases as C
from agentmetrology.edges.http_guard import prefix
from agentmetrology.records.episode import EpisodeKey
from agentmetrology.records.errors import UserError
from agentmetrology.store import EvidenceStore, StoreBusyError
from agentmetrology.view.html import SECURITY_HEADERS, Html
from agentmetrology.view.workbench_auth import COOKIE, LOGIN_PATH, WorkbenchAuth
from agentmetrology.view.workbench_page import workbench_page
from agentmetrology.view.workbench_reports import ReportChecks

log = logging.getLogger("agentmetrology.view")
# The viewer sends no referrer at all; with that policy a browser posts a form with `Origin:
# null`, which the request guard must refuse. Same-origin keeps the Origin (and any referrer)
# within this server while still sending nothing to other sites.
HEADERS = {**SECURITY_HEADERS, "Referrer-Policy": "same-origin"}
ACTIONS = ("propose", "calibrate", "admit", "use", "withdraw")
CHECK = "qualify"  # re-checks a listed report: writes nothing, still needs the token


def _form(body: bytes) -> dict[str, str]:
    """Return a urlencoded form's fields (the first value of each; blanks dropped)."""
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=False)
    return {k: v[0].strip() for k, v in fields.items() if v and v[0].strip()}


def _need(form: dict[str, str], *names: str) -> list[str]:
    missing = [n for n in names if n not in form]
    if missing:
        raise UserError(f"the form is missing {', '.join(missing)}")
    return [form[n] for n in names]


def _int(form: dict[str, str], name: str) -> int:
    try:
        return int(_need(form, name)[0])
    except ValueError:
        raise UserError(f"{name} must be an integer, not {form[name]!r}") from None


def _act(store: EvidenceStore, action: str, form: dict[str, str]) -> str:
    """Run one lifecycle step as `agm cases` runs it; return what happened, in one line."""
    if action == "propose":
        campaign, target, task, condition, level = _need(
            form, "campaign", "target", "task", "condition", "level")
        key = EpisodeKey(campaign, target, task, _int(form, "seed"), condition, level,
                         _int(form, "repeat"))
        case = C.propose(store, key)
        return f"{case.id}: proposed from {campaign}/{target}/{task}/seed={key.seed}"
    (case_id,) = _need(form, "case")
    if action == "calibrate":
        result = C.calibrate(store, case_id, _need(form, "positive")[0])
        if not result.passed:
            return (f"{case_id}: calibration failed ({', '.join(result.failed())}); the case "
                    "stays proposed")
        return f"{case_id}: calibrated (positive, defect and missingness controls hold)"
    if action == "admit":
        reviewer, revision = _need(form, "reviewer", "revision")
        C.admit(store, case_id, reviewer, revision)
        return f"{case_id}: admitted (revision {revision}, reviewer {reviewer})"
    if action == "use":
        receipt = C.use(store, case_id, _need(form, "agent")[0], form.get("level"))
        return (f"{case_id}: use {receipt['use']} by {form['agent']} at {receipt['level']}: "
                f"contract {receipt['status']} (episode {receipt['episode_digest'][:12]})")
    (reason,) = _need(form, "reason")
    case = C.withdraw(store, case_id, reason)
    return f"{case_id}: withdrawn ({len(case.uses)} earlier use(s) kept)"


class Workbench:
    """The workbench routes over one store, with the run's write permission."""

    def __init__(self, root: Path, h: Html, auth: WorkbenchAuth,
                 reports: Sequence[Path] = ()) -> None:
        self.root, self.h, self.auth = root, h, auth
        self.reports = ReportChecks(root, reports)

    def _page(self, status: int, message: str = "", ok: bool = True) -> Response:
        return HTMLResponse(workbench_page(self.h, self.root, self.auth.csrf, self.reports,
                                           message, ok), status, headers=HEADERS)

    def _refused(self, status: int, message: str) -> Response:
        log.warning("%s", message)
        return HTMLResponse(self.h.page("Workbench: refused",
                                        f'<p class="status-INVALID" id="error">'
                                        f"{self.h.t(message)}</p>", '<a href="/">home</a>'),
                            status, headers=HEADERS)

    def login(self, request: Request) -> Response:
        """Hand this run's token to the browser as a cookie, then show the workbench."""
        if not self.auth.token_ok(request.query_params.get("token")):
            return self._refused(403, "wrong or missing workbench token: use the login URL "
                                      "printed on the terminal")
        response = RedirectResponse("/workbench", 303, headers=HEADERS)
        response.headers["Set-Cookie"] = self.auth.cookie_header()
        return response

    def page(self, request: Request) -> Response:
        """Show the cases, the failing episodes to propose from, and the forms."""
        if not self.auth.token_ok(request.cookies.get(COOKIE)):
            return self._refused(403, "this browser has no workbench token: open the login "
                                      "URL `agm view --workbench` printed on the terminal")
        return self._page(200)

    async def write(self, request: Request) -> Response:
        """Run one lifecycle step (a POST), refused without the token or out of order."""
        action = request.path_params["action"]
        if action not in (*ACTIONS, CHECK):
            return self._refused(404, f"no workbench action {prefix(action)}")
        form = _form(await request.body())
        why = self.auth.write_refusal(request.cookies.get(COOKIE), form.get("csrf"))
        if why is not None:
            return self._refused(403, why)
        if action == CHECK:
            try:
                message = self.reports.outcome(_int(form, "report"))
            except UserError as exc:
                return self._page(409, f"refused: {exc}", ok=False)
            return self._page(200, message, ok=message.endswith(": qualified"))
        try:
            with EvidenceStore.open(self.root, create=False, write=True) as store:
                message = _act(store, action, form)
        except StoreBusyError as exc:
            return self._page(409, f"refused: {exc}", ok=False)
        except UserError as exc:  # out of order, unknown case or agent: nothing changed
            return self._page(409, f"refused: {exc}", ok=False)
        log.warning("workbench: %s", message)
        return self._page(200, message, ok="calibration failed" not in message)


def workbench_routes(root: Path, h: Html, auth: WorkbenchAuth,
                     reports: Sequence[Path] = ()) -> list[Route]:
    """Return the workbench's routes (the login, the page, one POST per action); it answers
    its own refusals (403 without the token, 404 for an unknown action, 409 out of order)."""
    wb = Workbench(root, h, auth, reports)
    return [Route(LOGIN_PATH, wb.login), Route("/workbench", wb.page),
            Route("/workbench/{action}", wb.write, methods=["POST"])]
