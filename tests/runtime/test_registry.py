"""The generic registry: decorated factories by name, families, entry points, recipes."""

from __future__ import annotations

import importlib.metadata
import sys
import types
from collections.abc import Callable, Iterator

import pytest

from agentmetrology.records.errors import UserError
from agentmetrology.runtime.registry import (
    BadEntryPointError,
    DuplicateNameError,
    Recipe,
    Registry,
    UnknownNameError,
    named_instance,
)

Maker = Callable[..., str]


def _registry() -> Registry[Maker]:
    reg: Registry[Maker] = Registry("greeting", group="agentmetrology.greetings",
                                    hint=" (or shout:WORD)")

    @reg.register("hello")
    def hello(who: str = "world") -> str:
        return f"hello {who}"

    @reg.register("shout", family="WORD")
    def shout(word: str, times: int = 1) -> str:
        return word.upper() * times

    return reg


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A fake installed distribution: module `fake_greetings` behind two entry points."""
    module = types.ModuleType("fake_greetings")
    module.wave = lambda: "wave"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_greetings", module)
    scanned: list[str] = []
    points = importlib.metadata.EntryPoints((
        importlib.metadata.EntryPoint("wave", "fake_greetings:wave", "agentmetrology.greetings"),
        importlib.metadata.EntryPoint("gone", "fake_greetings:gone", "agentmetrology.greetings"),
        importlib.metadata.EntryPoint("other", "fake_greetings:wave", "agentmetrology.other"),
    ))

    def entry_points(*, group: str) -> importlib.metadata.EntryPoints:
        scanned.append(group)
        return points.select(group=group)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    yield scanned


def test_a_decorated_factory_is_found_and_built_by_name() -> None:
    reg = _registry()
    assert reg.get("hello")() == "hello world"
    assert reg.create("hello", who="you") == "hello you"
    assert "hello" in reg and "nope" not in reg


def test_a_family_passes_what_follows_the_colon() -> None:
    reg = _registry()
    assert reg.create("shout:hey", times=2) == "HEYHEY"
    assert reg.entry_name("shout:a:b") == "shout" and reg.family_argument("shout:a:b") == "a:b"
    assert reg.family_argument("hello") is None and reg.entry_name("hello:x") is None
    assert reg.entry_name("shout") is None and "shout" not in reg  # a family needs `shout:x`
    assert reg.names(plugins=False) == ["hello", "shout:WORD"]


def test_a_recipe_rebuilds_the_same_object() -> None:
    reg = _registry()
    recipe = reg.recipe("shout:ok", times=3)
    assert recipe == Recipe("greeting", "shout:ok", {"times": 3})
    plain = recipe.to_plain()
    assert plain == {"kind": "greeting", "name": "shout:ok", "args": {"times": 3}}
    assert reg.build(Recipe.from_plain(plain)) == "OKOKOK" == reg.create("shout:ok", times=3)
    with pytest.raises(ValueError, match="a colour recipe given to the greeting registry"):
        reg.build(Recipe("colour", "hello"))


def test_a_name_is_registered_once() -> None:
    reg = _registry()
    with pytest.raises(DuplicateNameError, match="greeting 'hello' is registered twice"):
        reg.add("hello", lambda: "again")
    with pytest.raises(DuplicateNameError):
        reg.add_lazy("shout", "fake:thing")
    assert reg.get("hello")() == "hello world"  # the first registration stands
    with pytest.raises(ValueError, match="family name is a plain word"):
        reg.add("a:b", lambda w: w, family="X")


def test_an_unknown_name_is_one_line_listing_the_known(plugin: list[str]) -> None:
    reg = _registry()
    with pytest.raises(UnknownNameError) as info:
        reg.get("nope")
    assert str(info.value) == ("unknown greeting 'nope'; known: hello, shout:WORD, gone, wave "
                               "(or shout:WORD)")
    assert isinstance(info.value, UserError) and "\n" not in str(info.value)


def test_the_kind_raises_its_own_error_class() -> None:
    class UnknownGreeting(UnknownNameError):
        pass

    reg: Registry[str] = Registry("greeting", error=UnknownGreeting)
    with pytest.raises(UnknownGreeting, match=r"unknown greeting 'x'; known: $"):
        reg.get("x")


def test_entry_points_are_read_on_the_first_miss_only(plugin: list[str]) -> None:
    reg = _registry()
    assert reg.create("hello") == "hello world" and plugin == []  # built-ins need no scan
    assert reg.create("wave") == "wave" and plugin == ["agentmetrology.greetings"]
    assert reg.create("wave") == "wave" and len(plugin) == 1  # loaded once, then registered
    assert reg.names() == ["hello", "shout:WORD", "gone", "wave"]
    reg.refresh()
    assert "gone" in reg and len(plugin) == 2


def test_a_broken_entry_point_is_a_user_error(plugin: list[str]) -> None:
    reg = _registry()
    with pytest.raises(BadEntryPointError, match=r"greeting 'gone' \(fake_greetings:gone\) "
                                                 "cannot be loaded: AttributeError"):
        reg.get("gone")


def test_check_validates_what_an_entry_point_gives(plugin: list[str]) -> None:
    def only_int(name: str, obj: object) -> int:
        value = obj() if callable(obj) else obj
        if not isinstance(value, int):
            raise BadEntryPointError(f"greeting {name!r} is a {type(value).__name__}, not int")
        return value

    reg: Registry[int] = Registry("greeting", group="agentmetrology.greetings", check=only_int)
    with pytest.raises(BadEntryPointError, match="greeting 'wave' is a str, not int"):
        reg.get("wave")


def test_a_lazy_builtin_is_imported_when_first_asked_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("fake_lazy")
    module.thing = types.SimpleNamespace(value=lambda: 7)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_lazy", module)
    reg: Registry[Callable[[], int]] = Registry("number")
    reg.add_lazy("seven", "fake_lazy:thing.value")
    reg.add_lazy("missing", "fake_lazy_absent:x")
    assert reg.names() == ["seven", "missing"] and reg.create("seven") == 7
    with pytest.raises(BadEntryPointError, match=r"number 'missing' .* ModuleNotFoundError"):
        reg.get("missing")


def test_remove_forgets_a_registration() -> None:
    reg = _registry()
    reg.remove("shout")
    reg.remove("never")
    assert reg.names() == ["hello"] and "shout:x" not in reg
    reg.add("shout", lambda: "again")
    assert reg.create("shout") == "again"


def test_named_instance_accepts_an_object_of_the_entry_point_s_name() -> None:
    named = types.SimpleNamespace
    check = named_instance(named, call=True)
    thing = named(name="a")
    assert check("a", thing) is thing and check("a", lambda: thing) is thing
    with pytest.raises(BadEntryPointError, match="leads to a SimpleNamespace named 'a', not a "
                                                 "SimpleNamespace of that name"):
        check("b", thing)
    with pytest.raises(BadEntryPointError, match="leads to a function named None"):
        named_instance(named)("a", lambda: thing)
