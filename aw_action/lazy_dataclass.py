"""``dataclass`` whose ``__repr__``, ``__eq__`` and ``__hash__`` are written at their first use
(issue 36, bench/PROFILE.md).

On Python 3.11, ``dataclasses.dataclass`` compiles each method it writes with an ``exec`` of its
own: ~0.45 ms a frozen class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``), and a run's start defines ~130 of the harness's record
classes. Of those, a whole run compares or hashes instances of five and prints none: ``__repr__``,
``__eq__`` and ``__hash__`` are ~45 % of the work, almost all of it never used.

``dataclass`` here takes the standard decorator's arguments and makes the class with it at once,
as a dataclass in every respect (``__init__``, fields, ``fields()``, ``replace``, pydantic, frozen
``__setattr__``, ``__match_args__``, the docstring, ``__dataclass_params__``), except that the
three comparison and printing methods it would write stand as descriptors until one of them is
first looked up (``repr(x)``, ``x == y``, ``hash(x)``, ``cls.__eq__``): then the standard decorator
writes all three, for a subclass that adds nothing, and they replace the descriptors on the class.
The methods it writes depend on an instance's class, never on the class they were written for
(``other.__class__ is self.__class__``, ``self.__class__.__qualname__``), so they are the
standard decorator's methods for this class. A thread that looks one up while another writes them
waits for the lock; a descriptor is replaced, never removed, so no lookup misses.

What stays the standard decorator's at once: a class that defines its own ``__repr__``, ``__eq__``
or ``__hash__`` (the decorator keeps or replaces them by rules read off the class's own body),
``order=True`` or ``unsafe_hash=True``, ``slots=True`` or ``weakref_slot=True`` (a new class), and
a class that defines ``__init_subclass__`` or whose bases do (the subclass the methods are
written for would run it). ``tests/architecture/test_lazy_dataclass.py`` checks each against the standard decorator
and keeps every dataclass of ``aw_action`` on this one. mypy reads it as the standard decorator.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any

_WRITTEN_LATER = ("__repr__", "__eq__", "__hash__")
_lock = threading.RLock()


class _Later:
    """Stands in one of the class's methods until first looked up; then writes them all."""

    __slots__ = ("_cls", "_name", "_options")

    def __init__(self, cls: type, name: str, options: dict[str, Any]) -> None:
        self._cls, self._name, self._options = cls, name, options

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        method = _write(self._cls, self._options)[self._name]
        return method.__get__(instance, owner)


def _write(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """The methods the standard decorator writes for ``cls`` with ``options``, put on ``cls`` in
    place of their stand-ins (once; later calls return what is there)."""
    with _lock:
        present = {name: cls.__dict__.get(name) for name in _WRITTEN_LATER}
        if not any(isinstance(value, _Later) for value in present.values()):
            return present
        subclass = type(
            cls.__name__,
            (cls,),
            {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__},
        )
        dataclasses.dataclass(subclass, init=False, match_args=False, **options)
        for name, value in present.items():
            if isinstance(value, _Later):
                setattr(cls, name, subclass.__dict__[name])
        return {name: cls.__dict__.get(name) for name in _WRITTEN_LATER}


def _at_once(cls: type, options: dict[str, Any]) -> bool:
    own = any(name in cls.__dict__ for name in _WRITTEN_LATER)
    flags = any(options.get(name) for name in ("order", "unsafe_hash", "slots", "weakref_slot"))
    subclass_hook = any("__init_subclass__" in vars(base) for base in cls.__mro__[:-1])  # the class's own too
    return own or flags or subclass_hook


def _define(cls: type, options: dict[str, Any]) -> type:
    if _at_once(cls, options):
        return dataclasses.dataclass(cls, **options)
    wants_repr, wants_eq, frozen = options.get("repr", True), options.get("eq", True), options.get("frozen", False)
    dataclasses.dataclass(cls, **{**options, "repr": False, "eq": False})
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.repr, params.eq = wants_repr, wants_eq  # what was asked for, as the standard decorator records it
    later = {"repr": wants_repr, "eq": wants_eq, "frozen": frozen}
    if wants_repr:
        cls.__repr__ = _Later(cls, "__repr__", later)  # type: ignore[assignment,method-assign]
    if wants_eq:
        cls.__eq__ = _Later(cls, "__eq__", later)  # type: ignore[assignment,method-assign]
        # the standard decorator's hash: written from the fields when frozen, else none (unhashable)
        cls.__hash__ = _Later(cls, "__hash__", later) if frozen else None  # type: ignore[assignment,method-assign]
    return cls


if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:

    def dataclass(cls=None, /, **options):
        """``dataclasses.dataclass``, its ``__repr__``, ``__eq__`` and ``__hash__`` written at first
        use (the module's docstring)."""
        if cls is None:
            return lambda cls: _define(cls, options)
        return _define(cls, options)
