"""Redaction before anything is written: registered secrets and credential-shaped text."""

from __future__ import annotations

import json
from pathlib import Path

from agentmetrology.records import canonical_json
from agentmetrology.store.blobs import contents
from agentmetrology.store.redact import Redactor, env_secrets, redact_patterns

SECRET = 'plain-secret-value-1234"quoted'


def test_registered_secret_removed_raw_and_json_escaped() -> None:
    r = Redactor([SECRET])
    doc = canonical_json({"msg": f"key {SECRET} used", "nested": [SECRET]})
    assert json.dumps(SECRET)[1:-1].encode() in doc  # the escaped form is what JSON holds
    out = r.bytes(doc)
    assert b"plain-secret-value" not in out
    assert json.loads(out)["nested"] == ["[redacted]"]
    assert r.text(f"raw {SECRET}") == "raw [redacted]"


def test_short_values_are_not_treated_as_secrets() -> None:
    assert Redactor(["abc", ""]).bytes(b"abc abc") == b"abc abc"


def test_credential_patterns_keep_json_valid() -> None:
    doc = canonical_json({
        "api_key": "anything-here", "headers": {"Authorization": "Bearer abcdefghijklmnop123"},
        "log": "api_key=zzzzzzzzzzzz, next", "err": "sent Bearer abcdefghijklmnop123 to x",
        "openai": "sk-proj-abcdefghijklmnopqrstuvwx",
        "gh": "ghp_abcdefghijklmnopqrstuvwx", "aws": "AKIAABCDEFGHIJKLMNOP",
    })
    out = json.loads(redact_patterns(doc))
    assert out["api_key"] == "[redacted]"
    assert out["headers"]["Authorization"] == "[redacted]"
    assert out["err"] == "sent Bearer [redacted] to x"
    assert out["log"] == "api_key=[redacted], next"
    assert out["openai"] == out["gh"] == out["aws"] == "[redacted]"


def test_ordinary_evidence_is_untouched() -> None:
    rows = [{"record_id": f"T3_duplicates-{i:06d}", "task": "mask-free", "max_tokens": 10,
             "input_tokens": 5, "api_key_env": "OPENAI_API_KEY", "netWeight": i} for i in range(50)]
    doc = canonical_json({"rows": rows, "description": "Fetch every page of the mock API."})
    assert Redactor(["OPENAI"[:3]]).bytes(doc) == doc


def test_env_secrets_by_variable_name() -> None:
    env = {"OPENAI_API_KEY": "x" * 20, "HOME": "/root/long-enough", "GH_TOKEN": "short",
           "MY_SECRET": "y" * 12}
    assert sorted(env_secrets(env)) == ["x" * 20, "y" * 12]


KEY = "sk-proj-Zq8vN3kLm2Xc7Rt5Wy1Bp4Hd6Gf0Js9"


def test_key_quoted_without_prefix_or_as_base64_never_reaches_the_store(tmp_path: Path) -> None:
    import base64

    from agentmetrology.store import EvidenceStore
    from support.stores import episode_key, make_episode, register

    bare = KEY[len("sk-proj-"):]
    b64 = base64.urlsafe_b64encode(KEY.encode()).decode().rstrip("=")
    error = f"401 Incorrect API key provided: {bare[:20]}****; token {b64}"
    with EvidenceStore.open(tmp_path / "s", scrub_env=False, secrets=[KEY]) as st:
        register(st, 2)
        first, second = st.pending("c1")
        ep, scored = make_episode(episode_key(0), kind="infra_error", text=error)
        st.record_episode(st.start_attempt(first, None, "inline"), ep, scored)
        st.fail_attempt(st.start_attempt(second, None, "inline"), error)
        assert "[redacted]" in st.episode(episode_key(0))["termination_detail"]  # type: ignore[index]
        assert "[redacted]" in st.attempts(episode_key(1))[0]["detail"]
    leaks = [p for p in (tmp_path / "s").rglob("*") if p.is_file()
             and any(s in contents(p.read_bytes()) for s in (bare[:12].encode(), b64.encode()))]
    assert leaks == []


def test_a_not_launched_reason_is_redacted(tmp_path: Path) -> None:
    # the reason quotes the failure that stopped the launches: a provider's error may echo a
    # key, and campaign status printed it from the ledger as it was given
    from agentmetrology.store import EvidenceStore
    from support.stores import register

    reason = f"target m: 401 Incorrect API key provided: {KEY} (3 LLM episodes in a row failed)"
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        register(st, 2)
        st.set_not_launched(st.pending("c1"), reason)
        got = {a.key.seed: a.not_launched for a in st.pending("c1")}
    assert got == {s: "target m: 401 Incorrect API key provided: [redacted] (3 LLM episodes in "
                      "a row failed)" for s in (0, 1)}
    assert not any(KEY.encode() in contents(p.read_bytes())
                   for p in (tmp_path / "s").rglob("*") if p.is_file())


LATER = "plainvalue-set-after-open-0000"  # no credential shape: only its variable names it
HOME = "plain-home-directory-value-1234"  # as long, under a name that marks no credential


def test_a_variable_set_after_the_store_opened_is_redacted(tmp_path: Path,
                                                           monkeypatch) -> None:
    from agentmetrology.store import EvidenceStore

    monkeypatch.delenv("AGM_LATER_TOKEN", raising=False)
    with EvidenceStore.open(tmp_path / "s") as st:
        before = st.get_bytes(st.put_bytes(f"value {LATER}".encode()))
        monkeypatch.setenv("AGM_LATER_TOKEN", LATER)  # one more variable
        added = st.get_bytes(st.put_bytes(f"now {LATER}".encode()))
        monkeypatch.setenv("AGM_LATER_TOKEN", LATER[::-1])  # same count, new value
        changed = st.get_bytes(st.put_bytes(f"then {LATER[::-1]}".encode()))
        # An unrelated name, with a value long enough to be a secret: nothing changes.
        monkeypatch.setenv("AGM_RENAMED_HOME", HOME)
        other = st.get_bytes(st.put_bytes(f"{HOME} plain text".encode()))
    assert before == f"value {LATER}".encode()  # not a secret yet
    assert (added, changed, other) == (b"now [redacted]", b"then [redacted]",
                                       f"{HOME} plain text".encode())


def test_scrub_env_off_leaves_later_variables_alone(tmp_path: Path, monkeypatch) -> None:
    from agentmetrology.store import EvidenceStore

    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        monkeypatch.setenv("AGM_LATER_TOKEN", LATER)
        assert st.get_bytes(st.put_bytes(LATER.encode())) == LATER.encode()


def test_a_key_in_any_reversible_encoding_never_reaches_the_store() -> None:
    from support.encodings import encodings, holds_secret

    out = Redactor([KEY]).bytes(canonical_json({"args": encodings(KEY)})).decode()
    assert out.count("[redacted]") == len(encodings(KEY))
    assert not [w for w in out.replace('"', " ").split() if holds_secret(w, KEY)]


def test_a_billed_requests_model_and_provider_are_redacted(tmp_path: Path) -> None:
    # A judge's or an agent's model name is the target's configuration as typed: a key pasted
    # into it (or an endpoint's URL with a password) was written to grader_calls and
    # billable_attempts as given, while the episode blob holding the same request was redacted.
    from agentmetrology.records import BillableAttempt
    from agentmetrology.store import EvidenceStore
    from support.stores import register

    model = f"gpt-x?api_key={KEY}"
    provider = f"https://user:{KEY}@llm.example/v1"
    billed = BillableAttempt("a0", provider, model, "req-0", 10, 2, 0, 0.01, 0.5, "ok")
    with EvidenceStore.open(tmp_path / "s", scrub_env=False) as st:
        register(st, 1)
        adm = st.ledger.administration(st.pending("c1")[0].key)
        assert adm is not None
        assert st.record_billable(st.start_attempt(adm, None, "inline"), billed)
        assert st.record_grader_call("judge", "audit", "episode 0", billed)
        rows = [*st.grader_calls(), *st.billable_attempts(1)]
    assert len(rows) == 2
    for row in rows:
        assert KEY not in row["model"] and KEY not in row["provider"], row
        assert "[redacted]" in row["model"] and row["cost"] == 0.01
    assert not any(KEY.encode() in contents(p.read_bytes())
                   for p in (tmp_path / "s").rglob("*") if p.is_file())
