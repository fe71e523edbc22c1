"""Write benchmarks/README.md: one table of every benchmark, read from benchmarks/results/*.json.

    python benchmarks/table.py [--check]

Run by `make bench` after the benchmarks, so no number in the table is ever typed by hand. A
result file that is missing gives a row saying so. `--check` exits 1 when README.md is not what
the results say (for CI), without writing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from table_export_audit import evidence_verify_memory, export_audit_scale
from table_json_keys import json_keys
from table_stats_scale import stats_scale, table_read
from table_store_scale import check_split, store_scale
from table_transcripts import transcript_bytes
from table_view_scale import view_scale

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
OUT = HERE / "README.md"

Row = dict[str, str]


def _num(x: Any, digits: int = 1) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int | float):
        return f"{x:,.{digits}f}"
    return str(x)


def _machine(doc: dict[str, Any]) -> str:
    m = doc.get("machine")
    if isinstance(m, dict):  # stats.py records its platform in detail
        return f"{m.get('platform', '?')}, {m.get('cpu', '')}, py {m.get('python', '?')}"
    parts = [str(m) if m else None,
             f"{doc['cpus']} cpus" if doc.get("cpus") else None,
             f"py {doc['python']}" if doc.get("python") else None,
             doc.get("processor_note")]
    if doc.get("uptime"):
        load = str(doc["uptime"]).split("load average:")[-1].strip()
        parts.append(f"load {load}")
    return ", ".join(p for p in parts if p) or "not recorded"


def _row(bench: str, what: str, ours: str, peer: str, ratio: str, goal: str, machine: str,
         command: str) -> Row:
    return {"benchmark": bench, "measure": what, "ours": ours, "peer": peer, "ratio": ratio,
            "goal": goal, "machine": machine, "command": f"`{command}`"}


def stats(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/stats.py: our statistics beside scipy's."""
    mach, cmd = _machine(doc), "python benchmarks/stats.py"
    rt = doc["reliability_table"]
    yield _row("stats", f"reliability table, {rt['design']} (s, median)",
               _num(rt["agentmetrology"]["median_s"], 3),
               f"scipy.stats.bootstrap {_num(rt['scipy_bootstrap_percentile']['median_s'], 3)}",
               f"{_num(rt['speedup_vs_scipy']['from_median'], 2)}x", rt.get("target", ""),
               mach, cmd)
    pc = doc["paired_cluster_comparison"]
    yield _row("stats", f"paired cluster intervals, {pc['design']} (s, median)",
               _num(pc["agentmetrology_intervals"]["median_s"], 3),
               f"scipy {_num(pc['scipy_bootstrap_percentile_intervals']['median_s'], 3)}",
               f"{_num(pc['speedup_intervals_vs_scipy']['from_median'], 2)}x", "", mach, cmd)
    yield _row("stats", "full comparison incl. 100,000-draw sign-flip test (s, median)",
               _num(pc["agentmetrology_full_comparison"]["median_s"], 3),
               "scipy " + _num(pc["scipy_intervals_plus_permutation_test_100000"]["median_s"],
                               3),
               f"{_num(pc['speedup_full_vs_scipy']['from_median'], 2)}x", "", mach, cmd)


def episodes(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/episodes.py: episodes/s beside each task's generate-and-score floor."""
    mach, cmd = _machine(doc), "python benchmarks/episodes.py"
    for r in doc["results"]:
        cpu = r.get("cpu_us")
        split = (f" (CPU µs: episode run {_num(cpu['episode_run_us'])} + score "
                 f"{_num(cpu['episode_score_us'])}; floor generate+encode "
                 f"{_num(cpu['floor_generate_encode_us'])} + score "
                 f"{_num(cpu['floor_score_us'])})") if cpu else ""
        yield _row("episodes", f"{r['task']} ({r['rows']} rows), {r['agent']} at {r['level']} "
                   f"(episodes/s){split}{_episode_gap(r)}", _num(r["episodes_per_s"]),
                   f"floor {_num(r['floor_per_s'])}",
                   f"{_num(r['cost_vs_floor'], 2)}x the floor's cost",
                   f"≤ {EPISODE_GOAL}x the floor", mach, cmd)


EPISODE_GOAL = 1.5  # episode cost / floor cost


def _episode_gap(r: dict[str, Any]) -> str:
    """Return, for a row above the goal, how far it is and where its extra time goes."""
    cpu, extra = r.get("cpu_us"), r.get("extra_us")
    if not cpu or r["cost_vs_floor"] <= EPISODE_GOAL:
        return ""
    ep = cpu["episode_run_us"] + cpu["episode_score_us"]
    floor = cpu["floor_generate_encode_us"] + cpu["floor_score_us"]
    # The verdict is the paired rounds' ratio (whole calls); the split sums each part's lower
    # quartile, which runs lower. The share to cut is the ratio's, put in the split's µs: a
    # gap taken from the split alone once said "2.5 µs less" beside a 1.91x ratio.
    cut = 1 - EPISODE_GOAL / r["cost_vs_floor"]
    text = (f"; above the goal: at {EPISODE_GOAL}x the episode would cost {cut:.0%} less "
            f"(about {_num(cut * ep)} of its {_num(ep)} split µs; the split alone puts it at "
            f"{_num(ep / floor, 2)}x)")
    if extra:
        parts = ", ".join(f"{k} {_num(v)}" for k, v in
                          sorted(extra.items(), key=lambda kv: -kv[1]) if abs(v) >= 0.05)
        text += f"; sampled extra µs over the floor: {parts}"
    return text + _seeded(r.get("seeded_generators"))


_GENERATOR_NAMES = {"mersenne_twister": "Twisters", "seed_sequence": "SeedSequences"}


def _seeded(gens: dict[str, dict[str, float]] | None) -> str:
    """Return the generators the spec has the episode seed (in fault realisation), if measured."""
    if not gens or not any(g["per_episode"] for g in gens.values()):
        return ""
    parts = [f"{_num(g['per_episode'])} {_GENERATOR_NAMES.get(k, k)} ({_num(g['us_each'])} µs "
             f"each)" for k, g in gens.items() if g["per_episode"]]
    total = sum(g["us_per_episode"] for g in gens.values())
    return (f"; generators the spec seeds per episode: {', '.join(parts)}, "
            f"{_num(total)} µs in all")


def score_memory(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/score_memory.py: peak RSS scoring a huge submission, streamed."""
    mib = 2 ** 20
    mem = doc.get("in_memory") or {}
    peer = (f"in-memory path, 8 MiB limit lifted {_num(mem['peak_rss_bytes'] / mib)} MiB "
            f"({_num(mem['peak_vs_file'], 2)}x; same assessments: "
            f"{_num(mem['identical_assessments'])})") if mem else "—"
    yield _row("score_memory", f"peak RSS scoring a {doc['rows']:,}-row submission "
               f"({_num(doc['data_jsonl_bytes'] / mib)} MiB data.jsonl) with both scorers, "
               f"streamed, {_num(doc['score_cpu_s'])} s CPU (MiB; interpreter + imports "
               f"{_num(doc['baseline_rss_bytes'] / mib)} MiB included)",
               _num(doc["peak_rss_bytes"] / mib), peer,
               f"{_num(doc['peak_vs_file'], 2)}x the file", "≤ 2x the file", _machine(doc),
               "python benchmarks/score_memory.py")


def episodes_vs(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/episodes_vs.py: this tree beside a base commit, task by task."""
    cmd = "python benchmarks/episodes_vs.py --base REV"
    goal = doc.get("goal_ratio", 0.9)
    if doc.get("tasks", ["T3_duplicates"]) != ["T3_duplicates"]:
        cmd += f" --tasks {','.join(doc['tasks'])} --goal {goal:g}"
    quartile = doc.get("rate") == "quartile"
    if quartile:
        cmd += " --rate quartile"
    measure = "lower-quartile episode, median of rounds" if quartile else "median"
    for k, ratio in doc["ratio_current_over_base"].items():
        name = k if " " in k else f"{doc['task']} {k}"  # older files: one task, keys config
        met = "" if goal < 1 else (" (met)" if ratio >= goal else
                                   f" (not met: {_num(goal - ratio, 2)}x short)")
        yield _row("episodes_vs", f"{name}, this tree vs {doc['base'][:10]} "
                   f"(episodes/s, {measure})", _num(doc["median_episodes_per_s"]["current"][k]),
                   f"base {_num(doc['median_episodes_per_s']['base'][k])}",
                   f"{_num(ratio, 2)}x",
                   "≥ 0.9x (no regression)" if goal < 1 else f"≥ {goal:g}x the base{met}",
                   _machine(doc), cmd)


def harness(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/harness.py: campaign throughput beside Inspect AI, per-step costs."""
    mach, cmd = _machine(doc), "python benchmarks/harness.py"
    c, peer, ratio = doc["campaign"], doc.get("inspect", {}), doc.get("ratio_vs_inspect") or {}
    yield _row("harness", f"{c['episodes']} {c['task']} episodes via `agm campaign run "
               f"--backend {c['backend']}` (episodes/s, in-process)",
               _num(c["episodes_per_s_run"]),
               f"Inspect AI {peer.get('version', '')} {_num(peer.get('samples_per_s'))}"
               if peer.get("available") else "not run",
               f"{_num(ratio.get('run'))}x", f"≥ {doc.get('target_ratio', '—')}x", mach, cmd)
    s = doc.get("per_step", {})
    if s.get("available"):
        yield _row("harness", f"one LLM step, sequential, {s['task']} at {s['level']} (ms)",
                   _num(s["per_step_ms"], 3),
                   f"bare openai SDK {_num(s['openai_sdk_replay_ms_per_request'], 3)}", "—",
                   "", mach, cmd)
    yield _row("harness", "scaffold + environment per tool call, scripted (ms)",
               _num(s.get("scripted_per_tool_call_ms"), 3), "—", "—", "", mach, cmd)


def llm_throughput(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/llm_throughput.py: LLM steps/s at N concurrent episodes."""
    mach, cmd = _machine(doc), doc.get("command", "python benchmarks/llm_throughput.py")
    goal = doc.get("goal", {})
    for r in doc["results"]:
        n, lean, peer = r["n"], r["ours_lean"], r["inspect"]
        peer_text = (f"Inspect AI {peer.get('version', '')} {_num(peer.get('steps_per_s'))}"
                     if peer.get("available") else "not run")
        goal_text = (f"≥ {goal.get('steps_per_s_at_64')} steps/s, ≥ "
                     f"{goal.get('ratio_vs_inspect')}x" if n == 64 else "")
        yield _row("llm_throughput", f"LLM steps/s, {n} concurrent episodes, lean client "
                   f"(p50/p99 latency {_num(lean['latency_ms_p50'], 1)}/"
                   f"{_num(lean['latency_ms_p99'], 1)} ms)", _num(lean["steps_per_s"]),
                   peer_text, f"{_num(r.get('ratio_lean_vs_inspect'), 1)}x", goal_text,
                   mach, cmd)
        if "ours_sdk" in r:
            yield _row("llm_throughput", f"LLM steps/s, {n} concurrent, openai SDK client",
                       _num(r["ours_sdk"]["steps_per_s"]), peer_text,
                       f"{_num(r.get('ratio_sdk_vs_inspect'), 1)}x", "", mach, cmd)
        yield _row("llm_throughput", f"process CPU per LLM step, {n} concurrent, lean (ms)",
                   _num(lean["cpu_ms_per_step"], 3),
                   f"Inspect AI {_num(peer.get('cpu_ms_per_step'), 3)}"
                   if peer.get("available") else "not run",
                   f"{_num(_div(peer.get('cpu_ms_per_step'), lean['cpu_ms_per_step']), 1)}x "
                   "less", "", mach, cmd)
        env = r.get("scripted_scaffold_and_env", {}).get("cpu_ms_per_tool_call")
        alone = doc.get("policy_alone", {}).get("cpu_ms_per_request")
        split = "" if env is None else (
            f" (scaffold + environment {_num(env, 3)}, LLM policy + client "
            f"{_num(r.get('llm_policy_cpu_ms_per_step_beyond_http_and_env'), 3)})"
            if alone is None or "rest_cpu_ms_per_step" not in r else
            f" (scaffold + environment {_num(env, 3)}, LLM policy + client alone "
            f"{_num(alone, 3)}, event loop + GC + rest {_num(r['rest_cpu_ms_per_step'], 3)}"
            + (f" of which GC {_num(r['gc_cpu_ms_per_step'], 3)}"
               if "gc_cpu_ms_per_step" in r else "") + ")")
        beyond = r["harness_cpu_ms_per_step_beyond_http"]
        limit = goal.get("harness_cpu_ms_per_step")
        status = "" if limit is None else (
            " (met)" if beyond <= limit else f" ({_num(beyond - limit, 3)} ms over)")
        yield _row("llm_throughput", f"harness CPU per step beyond the HTTP round trip, {n} "
                   f"concurrent (ms){split}", _num(beyond, 3),
                   "—", "—", f"≤ {limit} ms{status}", mach, cmd)
    alone = doc.get("policy_alone")
    if alone:
        top = ", ".join(f"{p['function'].rsplit('/', 1)[-1]} {p['share'] * 100:.0f}%"
                        for p in alone["profile_top"][:4])
        yield _row("llm_throughput", "LLM policy + client alone per model request, no HTTP, "
                   f"environment or event loop (ms) (profile: {top})",
                   _num(alone["cpu_ms_per_request"], 3), "—", "—", "", mach,
                   "python benchmarks/llm_policy_profile.py")


def llm_campaign_ray(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/llm_campaign_ray.py: an LLM campaign on Ray actors beside inline."""
    mach, cmd = _machine(doc), doc.get("command", "python benchmarks/llm_campaign_ray.py")
    for r in doc["results"]:
        yield _row("llm_campaign_ray", f"LLM campaign steps/s, {r['n']} episodes in flight, "
                   f"ray ({doc['actors']} actors) vs inline, {r['episodes']} episodes recorded",
                   _num(r["ray"]["steps_per_s"]), f"inline {_num(r['inline']['steps_per_s'])}",
                   f"{_num(r['ratio_ray_vs_inline'], 2)}x", "", mach, cmd)


def ray_nodes(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/ray_nodes.py: a model-free campaign on 2 Ray nodes beside 1 node."""
    mach, cmd = _machine(doc), doc.get("command", "python benchmarks/ray_nodes.py")
    runs = doc["runs"]
    one = [r for r in runs if r["backend"] == "ray" and r["nodes"] == 1]
    two = next(r for r in runs if r["nodes"] == 2)
    inline = next(r for r in runs if r["backend"] == "inline")
    ones = " and ".join(_num(r["episodes_per_s"]) for r in one)
    mean_one = sum(r["episodes_per_s"] for r in one) / len(one)
    yield _row("ray_nodes", f"model-free campaign episodes/s on a 2-node Ray cluster (1 CPU "
               f"each, episodes per node {'/'.join(map(str, two['episodes_per_node']))}) beside "
               f"1 node (before and after: {ones}), {doc['episodes']} episodes recorded; inline "
               f"{_num(inline['episodes_per_s'])}. On 2 shared cores a second node adds a worker "
               "process, not a core (the driver and two workers share them): this shows "
               "episodes spread over nodes and recorded by one driver, not how a cluster of "
               "machines scales",
               _num(two["episodes_per_s"]), f"1 node {_num(mean_one)}",
               f"{_num(doc['two_over_one_node'], 2)}x", "", mach, cmd)


def _div(a: Any, b: Any) -> float | None:
    return a / b if isinstance(a, int | float) and isinstance(b, int | float) and b else None


def researchops(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/researchops.py: ResearchOps episodes/s (no peer)."""
    for r in doc["results"]:
        yield _row("researchops", f"{r['agent']} over {r['episodes']} episodes (episodes/s)",
                   _num(r["episodes_per_s"]), "—", "—", "", _machine(doc),
                   "python benchmarks/researchops.py")


def diagnose_grid(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/diagnose_grid.py: campaign + diagnosis of the full grid (no peer)."""
    yield _row("diagnose_grid", f"{doc['records']} records: campaign + diagnose (s)",
               _num(doc["campaign_s"] + doc["diagnose_s"], 2), "—", "—",
               f"< {doc['goal_s']} s", _machine(doc), "python benchmarks/diagnose_grid.py")


def rl_adapters(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/rl_adapters.py: an adapter session and OpenEnv beside the runner."""
    mach, cmd, r = _machine(doc), "python benchmarks/rl_adapters.py", doc["results"]
    for name, what in (("session", "an adapter session stepped from outside"),
                       ("openenv", "OpenEnv server + EnvClient on loopback")):
        yield _row("rl_adapters", f"{doc['task']} at {doc['level']}, {what} (episodes/s)",
                   _num(r[name]["episodes_per_s"]),
                   f"`agm run` runner {_num(r['runner']['episodes_per_s'])}",
                   f"{_num(doc[f'{name}_over_runner'], 2)}x the runner's time", "", mach, cmd)


def memory(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/memory.py: wall time and peak RSS of `agm` commands at scale."""
    mach = _machine(doc)
    base = doc["baseline"]["peak_rss_mib"]
    for c in doc["cases"]:
        size = (f"{c['episodes']:,} episodes" if "spans" not in c
                else f"{c['spans']:,} spans, {c['episodes']:,} episodes")
        per = (f"{_num(c.get('kib_per_episode'), 2)} KiB/episode" if "spans" not in c
               else f"{_num(c.get('kib_per_span'), 2)} KiB/span")
        goal = (f"< {c['goal_s']} s" if "goal_s" in c else
                "RSS beyond baseline per episode not growing with the store"
                if "spans" not in c else "bounded: RSS per span")
        yield _row("memory", f"`{c['case']}`, {size} (wall s; CPU {_num(c['cpu_s'], 2)} s; "
                   f"peak RSS {_num(c['peak_rss_mib'])} MiB, `agm --version` "
                   f"{_num(c.get('baseline_rss_mib', base))} MiB; {per}"
                   + (f"; its {c['processes']} processes together peak "
                      f"{_num(c['peak_tree_pss_mib'])} MiB PSS, sampled"
                      if c.get("processes", 1) > 1 and c.get("peak_tree_pss_mib") else "")
                   + (f"; measured at {c['revision']}" if c.get("revision") else "") + ")",
                   _num(c["wall_s"], 2),
                   _before(doc, c), "—", goal,
                   (f"{_machine({**doc, 'uptime': None})}, load {c['load']}"
                    if c.get("load") else mach),
                   "python benchmarks/memory.py")
        if c["case"] == "campaign status --json (warm)":
            yield from _status_profile(doc)


def _status_profile(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of the per-phase CPU time of one warm and one cold `campaign status`."""
    for p in doc.get("status_profile", []):
        phases = "; ".join(f"{name} {_num(v['cpu_s'], 2)}" for name, v in p["phases"].items())
        yield _row("memory", f"`campaign status ({p['state']})` CPU by phase, one process "
                   f"(s): {phases}", _num(p["cpu_s"], 2), "—", "—", "the profile of the rows "
                   "above", f"{_machine({**doc, 'uptime': None})}, load {p.get('load')}",
                   "python benchmarks/memory.py (benchmarks/status_profile.py)")


def _before(doc: dict[str, Any], case: dict[str, Any]) -> str:
    """Return the measurement of the same case before the change, when the result has one."""
    sb = doc.get("status_before") or {}
    for b in sb.get("cases", []):
        if b["case"] == case["case"] and b.get("episodes") == case.get("episodes"):
            return (f"before ({sb.get('label')}; same run, alternating): "
                    f"{_num(b['wall_s'], 2)} s wall, "
                    f"{_num(b['cpu_s'], 2)} s CPU, {_num(b['peak_rss_mib'])} MiB, load "
                    f"{b.get('load')}")
    for b in doc.get("before", {}).get("cases", []):
        if b["case"] == case["case"].replace(" (cold)", "").replace(" (warm)", "") \
                and b.get("episodes") == case.get("episodes"):
            return (f"before: {_num(b['wall_s'], 1)} s wall, "
                    + (f"{_num(b['cpu_s'], 1)} s CPU, " if b.get("cpu_s") is not None else "")
                    + f"{_num(b['peak_rss_mib'])} MiB")
    return "—"


def viewer(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/viewer.py: page times of the web viewer over a large store."""
    mach, cmd = _machine(doc), "python benchmarks/viewer.py"
    for name, page in doc["pages"].items():
        if not isinstance(page, dict):
            continue
        yield _row("viewer", f"{name}, {doc['episodes']:,} episodes (s, median; cold "
                   f"{_num(page['cold_s'], 3)}, HTTP {page['status']})", _num(page["median_s"], 4),
                   "—", "—", f"< {doc['budget_s']} s", mach, cmd)


def ledger_append(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/ledger_append.py: episodes recorded per second into a store."""
    mach, cmd = _machine(doc), "python benchmarks/ledger_append.py"
    yield _row("ledger_append", "`EvidenceStore.record` of pre-encoded episodes (episodes/s)",
               _num(doc["record_episodes_per_s"]), "—", "—", "", mach, cmd)
    yield _row("ledger_append", "inline `campaign run` of examples/campaign.toml "
               "(administrations/s)", _num(doc["campaign_administrations_per_s"]), "—", "—", "",
               mach, cmd)


def suite_time(doc: dict[str, Any]) -> Iterator[Row]:
    """Rows of benchmarks/suite_time.py: `make test`'s wall time, part by part."""
    mach, cmd = _machine(doc), "python benchmarks/suite_time.py"
    parts = ", ".join(f"{p['part']} {p['wall_s']:.1f}" for p in doc["parts"])
    spin = doc["spin_s"]
    met = doc["goal_met"]
    goal = f"≤ {doc['goal_s']:.0f} s (" + ("not measured: " + str(doc.get("not_measured"))
                                         if met is None else "met" if met else "not met") + ")"
    yield _row("suite_time", f"`make test`, mypy cold (s) ({parts}; {doc['tests_passed']:,} "
               f"tests passed; {doc['total_busy_cpu_s']:.1f} s busy CPU; spin loop "
               f"{spin['before']:.3f}/{spin['after']:.3f} s)", _num(doc["total_wall_s"]),
               "—", "—", goal, mach, cmd)


SOURCES: dict[str, Callable[[dict[str, Any]], Iterator[Row]]] = {
    "llm_throughput": llm_throughput, "harness": harness, "episodes": episodes,
    "score_memory": score_memory,
    "episodes_vs": episodes_vs, "episodes_vs_large": episodes_vs,
    "episodes_vs_redesign": episodes_vs, "episodes_vs_small": episodes_vs,
    "episodes_vs_overhead": episodes_vs, "episodes_vs_faults11": episodes_vs,
    "episodes_vs_faults12": episodes_vs, "episodes_vs_loop12": episodes_vs,
    "episodes_vs_env13": episodes_vs, "episodes_vs_agent40": episodes_vs,
    "episodes_vs_floor14": episodes_vs,
    "stats": stats,
    "researchops": researchops,
    "diagnose_grid": diagnose_grid,
    "rl_adapters": rl_adapters,
    "llm_campaign_ray": llm_campaign_ray,
    "ray_nodes": ray_nodes,
    "memory": memory,
    "store_scale": store_scale, "check_split": check_split,
    "export_audit_scale": export_audit_scale,
    "export_audit_scale_export50": export_audit_scale, "export_scale_million": export_audit_scale,
    "export_audit_scale_audit10": export_audit_scale,
    "export_audit_scale_fork48": export_audit_scale,
    "export_audit_scale_audit12": export_audit_scale,
    "export_audit_scale_audit12_loaded": export_audit_scale,
    "export_audit_scale_audit12_vs_c717c82": export_audit_scale,
    "export_audit_scale_audit13": export_audit_scale,
    "export_audit_scale_merged13": export_audit_scale,
    "export_audit_scale_merged13_100k": export_audit_scale,
    "export_audit_scale_million": export_audit_scale,
    "export_audit_scale_merged14": export_audit_scale,
    "export_audit_scale_body15": export_audit_scale,
    "export_audit_scale_head16": export_audit_scale,
    "export_audit_scale_read17": export_audit_scale,
    "export_audit_scale_audit23": export_audit_scale,
    "export_audit_scale_audit24": export_audit_scale,
    "export_audit_scale_audit13_vs_53001a4": export_audit_scale,
    "evidence_verify_memory": evidence_verify_memory,
    "store_scale_small": store_scale, "store_scale_million": store_scale,
    "viewer": viewer,
    "view_scale": view_scale, "view_scale_million": view_scale,
    "ledger_append": ledger_append,
    "suite_time": suite_time, "transcript_bytes": transcript_bytes,
    "json_keys": json_keys,
    "stats_scale": stats_scale,
    "table_read": table_read,
}
COLUMNS = ("benchmark", "measure", "ours", "peer", "ratio", "goal", "machine", "command")


def rows() -> list[Row]:
    """Return every row, in SOURCES order; a missing or unreadable result says so."""
    out: list[Row] = []
    for name, fn in SOURCES.items():
        path = RESULTS / f"{name}.json"
        try:
            out.extend(fn(json.loads(path.read_text(encoding="utf-8"))))
        except FileNotFoundError:
            out.append(_row(name, "not measured yet", "—", "—", "—", "", "—",
                            f"python benchmarks/{name}.py"))
        except (KeyError, TypeError, ValueError) as exc:
            out.append(_row(name, f"unreadable result ({type(exc).__name__}: {exc})", "—",
                            "—", "—", "", "—", f"python benchmarks/{name}.py"))
    return out


def render(table: list[Row]) -> str:
    """Return the README text."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["# Benchmarks", "",
             "Generated by `python benchmarks/table.py` (run by `make bench`) from "
             "`benchmarks/results/*.json`: do not edit by hand. Each script's docstring says "
             "what it measures. The machine is a shared 2-core VM: absolute numbers move with "
             "its load (recorded where the script notes it); ratios measured in the same run "
             "are the comparable figures. Numbers are never asserted in tests.", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(r[c]) for c in COLUMNS) + " |" for r in table]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Write (or with --check, verify) benchmarks/README.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md is stale")
    args = ap.parse_args()
    text = render(rows())
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is stale: run python benchmarks/table.py", file=sys.stderr)
            sys.exit(1)
        return
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text.splitlines()) - 6} rows)")


if __name__ == "__main__":
    main()
