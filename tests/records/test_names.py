"""The two sluggers of records/names.py and where they differ on purpose."""

from agentmetrology.records.names import compact_slug, slug


def test_slug_replaces_each_character_and_keeps_unicode_letters() -> None:
    # Campaign names: one `-` per replaced character, so distinct inputs rarely collide.
    assert slug("openai/gpt-4o mini") == "openai-gpt-4o-mini"
    assert slug("a//b") == "a--b"
    assert slug("café") == "café"


def test_compact_slug_collapses_runs_trims_and_falls_back() -> None:
    # Directory names for `agm audit inspect`: ASCII only, runs collapsed, ends trimmed.
    assert compact_slug("inspect_evals/gsm8k", "task") == "inspect_evals-gsm8k"
    assert compact_slug("/path//to/file.py@task/", "task") == "path-to-file.py-task"
    assert compact_slug("café", "task") == "caf"
    assert compact_slug("@@@", "task") == "task"
    assert compact_slug("a--b", "task") == "a--b"


def test_repeated_names_each_item_given_more_than_once_sorted() -> None:
    from agentmetrology.records.names import repeated

    assert repeated(["b", "a", "b", "c", "a", "b"]) == ["a", "b"]
    assert repeated([3, 1, 3]) == [3] and repeated(["x", "y"]) == []
