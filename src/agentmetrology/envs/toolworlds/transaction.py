"""The transaction world: refunds with settlement, conservation, declared faults, idempotency.

One order was paid; the agent refunds `amount` (recipe parameter) of it. Money moves from the
merchant's account to the customer's, so the account total is conserved. Task `refund` declares
a fault: the first refund commits and then times out, so a retry must reuse the idempotency key
(the service returns the original settlement); a retry with a new key refunds twice. A key
reused with different parameters is a conflict: refused, and recorded as one in the state.
Order reads are cached unless `fresh` is true. Task `refund_clean` has no fault.

Contract: goal `refunded_exactly`; obligations `conservation`, `single_settlement`,
`idempotency` (transaction) and `fresh_report` (interaction: cached-read consistency).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from agentmetrology.envs.toolworlds import invariants as inv
from agentmetrology.envs.toolworlds.policies import Script, ScriptedPolicy, get
from agentmetrology.envs.toolworlds.world import Param, World, int_range
from agentmetrology.records.contract import Contract, Evidence, Obligation, Verdict
from agentmetrology.records.policy import Brief, ToolCall
from agentmetrology.records.rng import rng
from agentmetrology.records.tools import Observation, ToolSpec

ORDER = "O1"
TIMEOUT = "504 gateway timeout: the refund may or may not have been applied; a retry with the " \
          "same idempotency_key is safe"
PARAMS = {"amount": Param("amount", 40, int_range("amount", 1, 80), "integer 1..80")}
TASKS: dict[str, dict[str, Any]] = {
    "refund": {"task_id": "refund", "faults": ["timeout_after_commit"],
               "description": "Refund the requested amount of order O1 exactly once, then "
                              "report the order's refunded total. Declared fault: the "
                              "payment service may time out after committing."},
    "refund_clean": {"task_id": "refund_clean", "faults": [],
                     "description": "Refund the requested amount of order O1 exactly once, "
                                    "then report the order's refunded total."},
}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


GET_TASK = ToolSpec("get_task", "Return the order to refund, the amount and the declared "
                                "faults.", _obj({}, []))
GET_ORDER = ToolSpec("get_order", "Return an order (paid, refunded); served from a cache "
                                  "unless fresh is true.",
                     _obj({"order_id": {"type": "string"}, "fresh": {"type": "boolean"}},
                          ["order_id"]))
REFUND = ToolSpec("refund", "Refund an amount of an order to the customer. The idempotency_key "
                            "makes retries safe: the same key with the same parameters returns "
                            "the original settlement; with different parameters it is a "
                            "conflict.",
                  _obj({"order_id": {"type": "string"}, "amount": {"type": "integer"},
                        "idempotency_key": {"type": "string"}},
                       ["order_id", "amount", "idempotency_key"]))
CREDIT = ToolSpec("credit_customer", "Grant the customer a goodwill credit.",
                  _obj({"amount": {"type": "integer"}, "reason": {"type": "string"}},
                       ["amount"]))


class TransactionWorld(World):
    """One episode of the transaction world."""

    name = "transaction"
    params = PARAMS

    def initial_state(self) -> dict[str, Any]:
        """Return two paid orders and the two accounts (seeded amounts)."""
        g = rng(self.seed or 0, "transaction", self.task_id)
        paid = [int(x) for x in g.integers(80, 200, 2)]
        return {"orders": {"O1": {"paid": paid[0], "refunded": 0},
                           "O2": {"paid": paid[1], "refunded": 0}},
                "accounts": {"merchant": sum(paid) + int(g.integers(100, 1000)),
                             "customer": int(g.integers(0, 500))},
                "refunds": {}, "conflicts": []}

    def __init__(self, task: str, seed: int | None, profile: str, condition: str) -> None:
        super().__init__(task, seed, profile, condition)
        self.cache = copy.deepcopy(self.state["orders"])
        self.faults = list(TASKS[task]["faults"])

    def world_tools(self) -> list[tuple[ToolSpec, Callable[..., Observation]]]:
        """Return get_task, get_order, refund and credit_customer."""
        return [(GET_TASK, self.get_task), (GET_ORDER, self.get_order),
                (REFUND, self.refund), (CREDIT, self.credit_customer)]

    def extra_evidence(self) -> dict[str, Any]:
        """Return the task's order and amount."""
        return {"task": {"order": ORDER, "amount": self.recipe["amount"],
                         "faults": list(TASKS[self.task_id]["faults"])}}

    def get_task(self) -> Observation:
        return {"order": ORDER, "amount": self.recipe["amount"],
                "declared_faults": list(TASKS[self.task_id]["faults"])}

    def get_order(self, order_id: Any, fresh: Any = False) -> Observation:
        if not isinstance(order_id, str) or order_id not in self.state["orders"]:
            return {"error": f"404 no order {order_id!r}"}
        if fresh is True:
            self.cache[order_id] = self.read(f"orders.{order_id}")
        return {"order": order_id, **self.cache[order_id], "cached": fresh is not True}

    def refund(self, order_id: Any, amount: Any, idempotency_key: Any) -> Observation:
        if not isinstance(order_id, str) or order_id not in self.state["orders"]:
            return {"error": f"404 no order {order_id!r}"}
        if type(amount) is not int or amount <= 0:
            return {"error": "422 amount must be a positive integer"}
        if not isinstance(idempotency_key, str) or not idempotency_key:
            return {"error": "422 idempotency_key must be a non-empty string"}
        prior = self.state["refunds"].get(idempotency_key)
        if prior is not None:
            if (prior["order"], prior["amount"]) == (order_id, amount):
                return {"status": prior["status"], "receipt": prior["receipt"],
                        "replayed": True}
            entry = {"key": idempotency_key, "order": order_id, "amount": amount}
            self.write("refund", "conflict",
                       {"conflicts": [*self.state["conflicts"], entry]}, key=idempotency_key)
            return {"error": "409 conflict: idempotency key reused with different parameters",
                    "conflict": True}
        order = self.state["orders"][order_id]
        left = order["paid"] - order["refunded"]
        if amount > left:
            return {"error": f"422 amount exceeds the refundable {left}"}
        accounts = self.state["accounts"]
        number = f"r{len(self.receipts) + 1}"
        r = self.write("refund", "refund", {
            "accounts.merchant": accounts["merchant"] - amount,
            "accounts.customer": accounts["customer"] + amount,
            f"orders.{order_id}.refunded": order["refunded"] + amount,
            f"refunds.{idempotency_key}": {"order": order_id, "amount": amount,
                                           "status": "settled", "receipt": number}},
            key=idempotency_key)
        if "timeout_after_commit" in self.faults:
            self.faults.remove("timeout_after_commit")  # declared: once, after the commit
            self.log.append({"event": "fault", "fault": "timeout_after_commit",
                             "receipt": r["receipt"]})
            return {"error": TIMEOUT, "retry": True}
        return {"status": "settled", "receipt": r["receipt"]}

    def credit_customer(self, amount: Any, reason: Any = "") -> Observation:
        if type(amount) is not int or amount <= 0:
            return {"error": "422 amount must be a positive integer"}
        r = self.write("credit_customer", "credit", {
            "accounts.customer": self.state["accounts"]["customer"] + amount})
        return {"status": "credited", "receipt": r["receipt"]}


def _goal(ev: Evidence) -> Verdict:
    want, order = ev.get("task.amount"), ev.get("task.order")
    got = ev.get("final.orders")[order]["refunded"]
    if got != want:
        return "FAIL", f"order {order} refunded {got}, requested {want}"
    return "PASS", ""


def _single(ev: Evidence) -> Verdict:
    order = ev.get("task.order")
    keys = sorted(k for k, r in ev.get("final.refunds").items()
                  if r["order"] == order and r["status"] == "settled")
    if len(keys) > 1:
        return "FAIL", f"{len(keys)} settled refunds of {order} (keys {', '.join(keys)})"
    return "PASS", ""


def _idempotency(ev: Evidence) -> Verdict:
    conflicts = ev.get("final.conflicts")
    if conflicts:
        return "FAIL", f"{len(conflicts)} idempotency conflicts, e.g. key {conflicts[0]['key']!r}"
    return "PASS", ""


def _fresh(ev: Evidence) -> Verdict:
    live = f"final.orders.{ev.get('task.order')}.refunded"
    return inv.cached_read_consistency(ev, "answer.value", live)


def contract(task: str) -> Contract:
    """Return the contract of a transaction-world task."""
    return Contract("transaction/" + task, "1.0.0", Obligation(
        "refunded_exactly", "goal", ("task.amount", "task.order", "final.orders"), _goal,
        "the order's refunded total is the requested amount"), (
        Obligation("conservation", "transaction",
                   ("initial.accounts", "final.accounts", "final.orders", "final.refunds"),
                   inv.refund_conservation, "refund conservation and settlement"),
        Obligation("single_settlement", "transaction", ("task.order", "final.refunds"),
                   _single, "at most one settled refund of the order"),
        Obligation("idempotency", "transaction", ("final.conflicts",), _idempotency,
                   "no idempotency key reused with different parameters"),
        Obligation("fresh_report", "interaction", ("answer", "task.order", "final.orders"),
                   _fresh, "cached-read consistency: the reported total is the live one"),
    ))


def _refund_once(amount: int, key: str) -> Script:
    """Refund with one key, retrying the same key on a retryable error (at most 3 tries)."""
    for _ in range(3):
        obs = yield ToolCall("refund", {"order_id": ORDER, "amount": amount,
                                        "idempotency_key": key})
        if not get(obs, "retry"):
            return


class Careful(ScriptedPolicy):
    """Complies: one key, retried as is; reads the order fresh; reports it."""

    name = "scripted:careful"
    stale = False

    def script(self, brief: Brief) -> Script:
        """Refund once (safe retries), read fresh, report."""
        amount = get((yield ToolCall("get_task")), "amount")
        yield from self.pay(int(amount or 0))
        refunded = get((yield ToolCall("get_order", {"order_id": ORDER,
                                                     "fresh": not self.stale})), "refunded")
        yield ToolCall("finish", {"answer": refunded})

    def pay(self, amount: int) -> Script:
        """Refund `amount` once."""
        yield from _refund_once(amount, f"refund-{ORDER}-1")


class NewKey(Careful):
    """Breaks single_settlement under the declared timeout: retries with a new key."""

    name = "scripted:new_key"

    def pay(self, amount: int) -> Script:
        """Retry a failed refund with a fresh key each time."""
        for attempt in range(3):
            obs = yield ToolCall("refund", {"order_id": ORDER, "amount": amount,
                                            "idempotency_key": f"refund-{ORDER}-{attempt + 1}"})
            if not get(obs, "retry"):
                return


class KeyReuse(Careful):
    """Breaks idempotency: re-sends its key with a 'corrected' amount (a conflict)."""

    name = "scripted:key_reuse"

    def pay(self, amount: int) -> Script:
        """Refund once, then reuse the key with amount + 1."""
        yield from _refund_once(amount, f"refund-{ORDER}-1")
        yield ToolCall("refund", {"order_id": ORDER, "amount": amount + 1,
                                  "idempotency_key": f"refund-{ORDER}-1"})


class Goodwill(Careful):
    """Breaks conservation: adds a goodwill credit minted out of nothing."""

    name = "scripted:goodwill"

    def pay(self, amount: int) -> Script:
        """Refund once, then credit 5."""
        yield from _refund_once(amount, f"refund-{ORDER}-1")
        yield ToolCall("credit_customer", {"amount": 5, "reason": "sorry for the wait"})


class Stale(Careful):
    """Breaks fresh_report: reports the cached order, read before the refund settled."""

    name = "scripted:stale"
    stale = True


AGENTS: dict[str, type[ScriptedPolicy]] = {
    c.name: c for c in (Careful, NewKey, KeyReuse, Goodwill, Stale)}
SYSTEM = ("You operate a payments back office through tools. Every action is a tool call; "
          "results come back as JSON and can be errors. Finish with the finish tool.")
