"""The one idiom for everything picked by name: a registry per kind, filled by decorators.

A kind (agents, mutations, audit targets, archive formats, commands, environments) has one
`Registry[T]`. Built-ins are registered with the decorator `@REGISTRY.register("name")` (or
`add`, or `add_lazy("name", "module:attr")` when importing the object is costly); a third-party
package adds one with an entry point in the group `agentmetrology.<kind>`, read on the first
name the built-ins do not know. A name like `llm:MODEL` is a family: the entry `llm`
registered with `family="MODEL"` receives the part after the colon. An object built from a
registry is described by a `Recipe` (kind, name, arguments), from which `build` makes it again.

This module lives in `records` because environment plug-ins, which may import only `records`,
use it too; it imports nothing else from the package.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from agentmetrology.records.errors import UserError

if TYPE_CHECKING:  # importlib.metadata costs start-up time; it is imported on the first miss
    from importlib.metadata import EntryPoint

T = TypeVar("T")
R = TypeVar("R")
FAMILY_SEPARATOR = ":"


class UnknownNameError(UserError):
    """Raised for a name no built-in, registration or entry point provides; lists the known."""


class DuplicateNameError(UserError):
    """Raised when a name is registered twice in one registry."""


class BadEntryPointError(UserError):
    """Raised when an entry point cannot be loaded or does not lead to a usable object."""


@dataclass(frozen=True)
class Recipe:
    """What an object was built from: its kind, its registered name and the arguments given."""

    kind: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def to_plain(self) -> dict[str, Any]:
        """Return the recipe as JSON-able data."""
        return {"kind": self.kind, "name": self.name, "args": dict(self.args)}

    @classmethod
    def from_plain(cls, data: Mapping[str, Any]) -> Recipe:
        """Return the recipe `to_plain` wrote."""
        return cls(str(data["kind"]), str(data["name"]), dict(data.get("args") or {}))


def named_instance(cls: type[T], *, call: bool = False) -> Callable[[str, object], T]:
    """Return a `check` accepting an instance of `cls` whose `name` is the entry point's
    (with `call`, a function returning one is called first)."""
    def check(name: str, obj: object) -> T:
        if call and callable(obj) and not isinstance(obj, cls):
            obj = obj()
        if not isinstance(obj, cls) or getattr(obj, "name", None) != name:
            raise BadEntryPointError(f"entry point {name!r} leads to a {type(obj).__name__} "
                                     f"named {getattr(obj, 'name', None)!r}, not a "
                                     f"{cls.__name__} of that name")
        return obj
    return check


def _import_target(target: str) -> object:
    module_name, _, attr = target.partition(":")
    obj: object = importlib.import_module(module_name)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def _load_entry_point(ep: EntryPoint) -> object:
    return ep.load()


class Registry(Generic[T]):
    """The objects of one kind by name: built-ins, in-process registrations, entry points."""

    def __init__(self, kind: str, *, group: str | None = None, hint: str = "",
                 error: type[UnknownNameError] = UnknownNameError,
                 from_entry_point: Callable[[EntryPoint], object] = _load_entry_point,
                 check: Callable[[str, object], T] | None = None,
                 plugin_family: str | None = None,
                 bad: type[BadEntryPointError] = BadEntryPointError) -> None:
        """`kind` names the objects in messages; `group` is the entry-point group (None: no
        plug-ins); `hint` ends the unknown-name message; `error` is the kind's UnknownNameError;
        `from_entry_point` turns an entry point into an object (default: load it); `check`
        validates a loaded object (or raises BadEntryPointError) and returns it typed; with
        `plugin_family` every entry point is a family (`NAME:ARGUMENT`) of that argument; `bad`
        is the kind's BadEntryPointError."""
        self.kind = kind
        self.group = group
        self._hint = hint
        self._error = error
        self._from_entry_point = from_entry_point
        self._check = check
        self._plugin_family = plugin_family
        self._entries: dict[str, T] = {}
        self._loaded: dict[str, T] = {}  # lazy built-ins and entry points, once imported
        self._bad = bad
        self._lazy: dict[str, str] = {}
        self._order: list[str] = []
        self._families: dict[str, str] = {}  # family name -> what follows the colon
        self._plugins: dict[str, EntryPoint] | None = None

    def _claim(self, name: str, family: str | None, at: int | None = None) -> None:
        if not name or (family is not None and FAMILY_SEPARATOR in name):
            raise ValueError(f"a {self.kind} family name is a plain word, got {name!r}")
        if name in self._order:
            raise DuplicateNameError(f"{self.kind} {name!r} is registered twice; "
                                     "choose another name")
        self._order.insert(len(self._order) if at is None else at, name)
        if family is not None:
            self._families[name] = family

    def register(self, name: str, *, family: str | None = None) -> Callable[[T], T]:
        """Return a decorator registering its object under `name` (a family if `family`)."""
        def decorate(obj: T) -> T:
            self.add(name, obj, family=family)
            return obj
        return decorate

    def add(self, name: str, obj: T, *, family: str | None = None, at: int | None = None) -> T:
        """Register `obj` under `name` (listed at place `at`, else last); refuse a name already
        taken. Return `obj`."""
        self._claim(name, family, at)
        self._entries[name] = obj
        return obj

    def add_lazy(self, name: str, target: str, *, family: str | None = None,
                 at: int | None = None) -> None:
        """Register the object at `target` ("module:attr"), imported when first asked for
        (listed at place `at`, else last)."""
        self._claim(name, family, at)
        self._lazy[name] = target

    def remove(self, name: str) -> None:
        """Forget a registration made in this process (tests, notebooks)."""
        if name in self._order:
            self._order.remove(name)
        self._entries.pop(name, None)
        self._loaded.pop(name, None)
        self._lazy.pop(name, None)
        self._families.pop(name, None)

    def _plugin_points(self) -> dict[str, EntryPoint]:
        if self._plugins is None:
            from importlib.metadata import entry_points

            found = entry_points(group=self.group) if self.group else ()
            self._plugins = {ep.name: ep for ep in found}
        return self._plugins

    def refresh(self) -> None:
        """Forget what was imported and read the entry points again on the next miss, as a
        fresh process would (after installing a plug-in)."""
        self._plugins = None
        self._loaded.clear()

    def names(self, *, plugins: bool = True) -> list[str]:
        """Return every name: registrations in order, then entry points (sorted) if `plugins`."""
        shown = [n + FAMILY_SEPARATOR + self._families[n] if n in self._families else n
                 for n in self._order]
        if not plugins:
            return shown
        more = sorted(set(self._plugin_points()) - set(self._order))
        suffix = FAMILY_SEPARATOR + self._plugin_family if self._plugin_family else ""
        return shown + [n + suffix for n in more]

    def entry_name(self, name: str) -> str | None:
        """Return the name registered in this process that provides `name` (its family for
        `fam:x`), or None; entry points are not read."""
        if name in self._order and name not in self._families:  # a family needs `fam:x`
            return name
        family, sep, _ = name.partition(FAMILY_SEPARATOR)
        if sep and family in self._families:
            return family
        return None

    def _plugin_key(self, name: str) -> str | None:
        if self._plugin_family is None:
            return name
        family, sep, _ = name.partition(FAMILY_SEPARATOR)
        return family if sep else None

    def _key(self, name: str) -> str | None:
        """Return the registered or entry-point name providing `name` (entry points read on a
        miss), or None."""
        entry = self.entry_name(name)
        if entry is not None:
            return entry
        key = self._plugin_key(name)
        if key is None or key in self._order or key not in self._plugin_points():
            return None
        return key

    def __contains__(self, name: object) -> bool:
        """Whether `get(name)` finds an object, entry points included."""
        return isinstance(name, str) and self._key(name) is not None

    def unknown(self, name: str) -> UnknownNameError:
        """Return the one-line error for an unknown `name`, listing the known names."""
        return self._error(f"unknown {self.kind} {name!r}; known: "
                           f"{', '.join(self.names())}{self._hint}")

    def get(self, name: str) -> T:
        """Return the object registered as `name` (or its family), or raise naming them all."""
        key = self._key(name)
        if key is None:
            raise self.unknown(name)
        if key in self._entries:
            return self._entries[key]
        if key not in self._loaded:
            self._loaded[key] = self._checked(key, self._load(key))
        return self._loaded[key]

    def target(self, name: str) -> str | None:
        """Return the "module:attr" imported for `name` (a lazy built-in or an entry point),
        None for an object registered as such or an unknown name."""
        key = self._key(name)
        if key is None or key in self._entries:
            return None
        return self._lazy[key] if key in self._lazy else self._plugin_points()[key].value

    def _load(self, key: str) -> object:
        try:
            if key in self._lazy:
                return _import_target(self._lazy[key])
            return self._from_entry_point(self._plugin_points()[key])
        except (ImportError, AttributeError) as exc:
            raise self._bad(f"{self.kind} {key!r} ({self.target(key)}) cannot be loaded: "
                            f"{type(exc).__name__}: {exc}") from None

    def _checked(self, name: str, obj: object) -> T:
        return self._check(name, obj) if self._check is not None else obj  # type: ignore

    def family_argument(self, name: str) -> str | None:
        """Return what follows the colon when `name` belongs to a family, else None."""
        key = self._key(name)
        if key is None or key == name:
            return None
        plugin_family = key not in self._order and self._plugin_family is not None
        return name[len(key) + 1:] if key in self._families or plugin_family else None

    def create(self: Registry[Callable[..., R]], name: str, /, **args: Any) -> R:
        """Return the object the factory registered as `name` makes from `args`."""
        factory = self.get(name)
        rest = self.family_argument(name)
        return factory(rest, **args) if rest is not None else factory(**args)

    def build(self: Registry[Callable[..., R]], recipe: Recipe) -> R:
        """Return the object `recipe` describes, made again by its registered factory."""
        if recipe.kind != self.kind:
            raise ValueError(f"a {recipe.kind} recipe given to the {self.kind} registry")
        return self.create(recipe.name, **recipe.args)

    def recipe(self, name: str, /, **args: Any) -> Recipe:
        """Return the recipe of `name` with `args`, checking that the name is known."""
        self.get(name)
        return Recipe(self.kind, name, dict(args))
