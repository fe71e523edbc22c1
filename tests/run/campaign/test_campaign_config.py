"""Campaign files: every problem reported at once, with its location; examples are valid."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentmetrology.run.campaign import (
    CampaignConfigError,
    check_environment,
    load_campaign,
    parse_campaign,
)
from agentmetrology.run.seeds import parse_seeds as parse_seed_text
from run.campaign.campaign_fixtures import model_free, with_llm

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

BAD = """\
[campaign]
name = "bad name!"
tasks = ["T3_duplicates", "T99_nope"]
seeds = "5-2"
levels = ["L0", "L4"]
conditions = ["clean", "stress:dose=7"]
repeats = 0
concurency = 3

[limits]
max_cost = -1

[[targets]]
name = "a"
kind = "rule"

[[targets]]
name = "a"
kind = "scripted"
agent = "scripted:nope"

[[targets]]
name = "c"
kind = "llmm"

[[targets]]
name = "d"
kind = "llm"
model = "m"
api_key = "sk-abc"
api_key_env = "sk-proj-aaaaaaaaaaaaaaaaaaaaaaaa"
decoding = { temperature = 5, n = 3 }
"""


def _problems(text: str) -> list[str]:
    with pytest.raises(CampaignConfigError) as info:
        parse_campaign(text, "campaign.toml")
    return str(info.value).splitlines()


def test_examples_are_valid() -> None:
    mf = load_campaign(EXAMPLES / "campaign.toml")
    assert {t.kind for t in mf.targets} == {"rule", "scripted"}
    assert set(mf.levels) == {"L0", "L2"} and len(mf.seeds) >= 2
    llm = load_campaign(EXAMPLES / "campaign_llm.toml")
    target = next(t for t in llm.targets if t.kind == "llm")
    assert target.base_url == "http://127.0.0.1:8000/v1"
    assert target.api_key_env == "OPENAI_API_KEY"
    assert target.decoding["max_tokens"] == llm.limits.max_output_tokens  # the cap applies
    assert "OPENAI_API_KEY" not in str(target.public()["decoding"])


def test_every_problem_is_reported_at_once_with_its_location() -> None:
    lines = _problems(BAD)
    expected = [
        "campaign.toml:2: campaign.name: 'bad name!' is not a valid campaign name",
        "campaign.toml:3: campaign.tasks: unknown task 'T99_nope'",
        "campaign.toml:4: campaign.seeds: bad seed range '5-2'",
        "campaign.toml:5: campaign.levels: unknown level 'L4'",
        "campaign.toml:6: campaign.conditions: bad condition 'stress:dose=7'",
        "campaign.toml:7: campaign.repeats: must be at least 1, got 0",
        "campaign.toml:8: campaign.concurency: unknown key (did you mean 'concurrency'?)",
        "campaign.toml:11: limits.max_cost: must be at least 0.0, got -1",
        "campaign.toml:24: targets[2].kind: unknown kind 'llmm' (expected rule, scripted, llm)",
        "campaign.toml:20: targets[1].agent: unknown agent 'scripted:nope'",
        "campaign.toml:30: targets[3].api_key: never write a key into a campaign file",
        "campaign.toml:31: targets[3].api_key_env: this looks like a key",
        "campaign.toml:32: targets[3].decoding.temperature: must be at most 2.0, got 5",
        "campaign.toml:32: targets[3].decoding.n: only n = 1 is supported",
        "campaign.toml:18: targets[1].name: duplicate target name 'a' (also targets[0])",
    ]
    for fragment in expected:
        assert any(line.startswith(fragment) for line in lines), (fragment, lines)
    assert len(lines) == len(expected)


def test_toml_syntax_error_has_line_and_column() -> None:
    lines = _problems('[campaign]\nname = "x" y\n')
    assert len(lines) == 1
    assert lines[0].startswith("campaign.toml:2:12: TOML syntax error: ")
    unclosed = _problems('[campaign]\nname = "x"\nseeds = [1, 2\n')
    assert unclosed[0].startswith("campaign.toml:3: TOML syntax error: ")


def test_missing_sections_are_reported() -> None:
    lines = _problems("")
    assert any("campaign: missing table" in line for line in lines)
    assert any("targets: missing: add at least one [[targets]] table" in line for line in lines)


def test_agents_must_fit_their_levels() -> None:
    text = model_free().replace('agent = "scripted:keeps_totals"', 'agent = "l1:always-retry"')
    text = text.replace('kind = "scripted"\nagent = "l1:', 'kind = "rule"\nagent = "l1:')
    lines = _problems(text)
    assert any("acts only at L1" in line and "levels = ['L1']" in line for line in lines)
    fixed = text.replace('agent = "l1:always-retry"', 'agent = "l1:always-retry"\nlevels = ["L1"]')
    config = parse_campaign(fixed)
    assert config.levels_of(config.targets[2]) == ("L1",)


def test_prices_and_budgets() -> None:
    text = with_llm(model_free()).replace(
        'price = { input_per_m = 1.0, output_per_m = 2.0, cached_per_m = 0.5 }', "")
    config = parse_campaign(text)
    assert any("recorded as unknown (null)" in w.message for w in config.warnings)
    lines = _problems(text.replace("max_steps = 30", "max_steps = 30\nmax_cost = 1.0"))
    assert any("the budget could not be enforced" in line for line in lines)


def test_output_cap_applies_and_is_checked() -> None:
    text = with_llm(model_free(), limits="max_output_tokens = 256")
    target = parse_campaign(text).targets[-1]
    assert target.decoding == {"max_tokens": 256}
    over = text + "decoding = { max_tokens = 1000 }\n"
    assert any("exceeds limits.max_output_tokens = 256" in line for line in _problems(over))


@pytest.mark.parametrize(("text", "seeds"), [("0-2,5", [0, 1, 2, 5]), ("7", [7])])
def test_seed_text(text: str, seeds: list[int]) -> None:
    assert parse_seed_text(text) == seeds


def test_seed_lists_and_duplicates() -> None:
    base = model_free()
    assert parse_campaign(base.replace('seeds = "0-1"', "seeds = [3, 1]")).seeds == (3, 1)
    assert parse_campaign(base.replace('seeds = "0-1"', "seeds = 4")).seeds == (4,)
    assert any("duplicate seeds: 1" in line
               for line in _problems(base.replace('seeds = "0-1"', "seeds = [1, 1]")))


def test_environment_check_names_unset_key_variables() -> None:
    config = parse_campaign(with_llm(model_free(), key_env="AGM_SURELY_UNSET_VAR"))
    problems = check_environment(config, environ={})
    assert any(p.location == "targets[3].api_key_env" and "is not set" in p.message
               and p.line is not None for p in problems)
    assert not [p for p in check_environment(config, environ={"AGM_SURELY_UNSET_VAR": "v"})
                if "is not set" in p.message]


def test_openai_base_url_is_refused_for_a_target_without_base_url() -> None:
    # Requests of a target without base_url go to api.openai.com, as its records say; a set
    # OPENAI_BASE_URL (which the SDK would follow, unrecorded) means the user meant another.
    text = with_llm(model_free(), key_env="K")
    no_url = parse_campaign("\n".join(line for line in text.splitlines()
                                      if not line.startswith("base_url")))
    env = {"K": "v", "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}
    (problem,) = check_environment(no_url, environ=env)
    assert problem.location == "targets[3]" and problem.severity == "error"
    assert problem.message.startswith("OPENAI_BASE_URL is set, but an endpoint is never taken "
                                      "from the environment: this target has no base_url")
    assert "127.0.0.1:8000" not in problem.message  # its value is never repeated
    assert check_environment(no_url, environ={"K": "v"}) == []
    assert check_environment(parse_campaign(text), environ=env) == []  # base_url given


@pytest.mark.parametrize(("url", "what"), [
    ("http://alice:secret@host/v1", "holds a password"),
    ("https://h/v1?key=AIzaSyA-1234567890abcdefghijklmnopqrstu",
     "holds something that looks like a key or token"),
])
def test_credentials_in_base_url_are_refused_without_repeating_them(url: str, what: str) -> None:
    text = """
[campaign]
name = "c"
tasks = ["T1_single_page"]
seeds = [0]
levels = ["L2"]

[[targets]]
name = "d"
kind = "llm"
model = "m"
base_url = "URL"
api_key_env = "MY_KEY"
""".replace("URL", url)
    (line,) = _problems(text)
    assert line.startswith(f"campaign.toml:12: targets[0].base_url: base_url {what}"), line
    assert "api_key_env" in line and "secret" not in line and "AIza" not in line
