"""``dataclass`` whose ``__repr__``, ``__eq__`` and ``__hash__`` are written at their first use
(issue 36, bench/PROFILE.md).

On Python 3.11, ``dataclasses.dataclass`` compiles each method it writes with an ``exec`` of its
own: ~0.45 ms a frozen class (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``), and a run's start defines ~130 of the harness's record
classes. Of those, a whole run compares or hashes instances of four and prints none: ``__repr__``,
``__eq__`` and ``__hash__`` are ~45 % of the work, almost all of it never used.

``dataclass`` here takes the standard decorator's arguments and makes the class with it at once,
as a dataclass in every respect (``__init__``, fields, ``fields()``, ``replace``, pydantic, frozen
``__setattr__``, ``__match_args__``, the docstring, ``__dataclass_params__``), except that the
three comparison and printing methods it would write are stand-ins until one of them is first
called (``repr(x)``, ``x == y``, ``hash(x)``): then the standard decorator writes all three for a
throwaway class with the same fields, and they replace the stand-ins. The methods it writes depend
on the fields (name, ``repr``, ``compare``, ``hash``) and on an instance's class, never on the
class they were written for (``other.__class__ is self.__class__``,
``self.__class__.__qualname__``), so they are the standard decorator's methods for this class. A
thread calling one while another writes them waits for the lock; a stand-in is replaced, never
removed, so no lookup misses; an error while writing is raised by the call that asked.

What stays the standard decorator's at once: a class that defines its own ``__repr__``, ``__eq__``
or ``__hash__`` (the decorator keeps or replaces them by rules read off the class's own body),
``order=True`` or ``unsafe_hash=True``, ``slots=True`` or ``weakref_slot=True`` (a new class), and
a class with an abstract ``__repr__``, ``__eq__`` or ``__hash__`` (its abstract methods are
counted when it is made). ``tests/architecture/test_lazy_dataclass.py`` checks each against the
standard decorator and keeps every dataclass of ``aw_action`` on this one. mypy reads it as the
standard decorator.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any

_WRITTEN_LATER = ("__repr__", "__eq__", "__hash__")
_lock = threading.RLock()


def _stand_in(cls: type, name: str, options: dict[str, Any]) -> Any:
    """A plain function in the method's place: its first call writes the methods, then calls the
    real one. A function, not a descriptor: an error while writing (a recursion limit, a signal's
    exception) is raised by the call, where the interpreter's ``repr()``, ``==`` and ``hash()``
    pass it on; they would swallow one raised while the method is looked up."""

    def stand_in(self: Any, *args: Any) -> Any:
        return _write(cls, options)[name](self, *args)

    stand_in.__qualname__ = f"{cls.__qualname__}.{name}"
    stand_in.__name__ = name
    stand_in._aw_written_later = options  # type: ignore[attr-defined]
    return stand_in


def _waiting(value: object) -> bool:
    return isinstance(getattr(value, "_aw_written_later", None), dict)


def write_methods(cls: type) -> None:
    """Write ``cls``'s waiting methods now (nothing if none waits). A test writes every class's."""
    for name in _WRITTEN_LATER:
        value = cls.__dict__.get(name)
        if _waiting(value):
            _write(cls, value._aw_written_later)  # type: ignore[union-attr]
            return


def _write(cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """The methods the standard decorator writes for ``cls`` with ``options``, put on ``cls`` in
    place of their stand-ins (once; later calls return what is there). They are written for a
    throwaway class with the same fields (name, ``repr``, ``compare``, ``hash``): what the decorator
    writes depends on those and on an instance's class, never on the class it writes for."""
    with _lock:
        present = {name: cls.__dict__.get(name) for name in _WRITTEN_LATER}
        if not any(_waiting(value) for value in present.values()):
            return present
        namespace: dict[str, Any] = {
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "__doc__": cls.__doc__ or cls.__name__,  # a docstring: the decorator would sign one
            "__annotations__": {},
        }
        for f in dataclasses.fields(cls):
            namespace["__annotations__"][f.name] = object
            namespace[f.name] = dataclasses.field(repr=f.repr, compare=f.compare, hash=f.hash)
        twin = type(cls.__name__, (), namespace)
        repr_, eq, frozen = options["repr"], options["eq"], options["frozen"]
        # a frozen class's hash is the one the decorator writes when asked for it (its unsafe_hash)
        dataclasses.dataclass(twin, init=False, repr=repr_, eq=eq, unsafe_hash=eq and frozen, match_args=False)
        for name, value in present.items():
            if _waiting(value):
                setattr(cls, name, twin.__dict__[name])
        return {name: cls.__dict__.get(name) for name in _WRITTEN_LATER}


def _at_once(cls: type, options: dict[str, Any]) -> bool:
    """Whether the standard decorator decides from more than the fields: then it runs at once."""
    own = any(name in cls.__dict__ for name in _WRITTEN_LATER)
    flags = any(options.get(name) for name in ("order", "unsafe_hash", "slots", "weakref_slot"))
    abstract = bool(set(_WRITTEN_LATER) & getattr(cls, "__abstractmethods__", frozenset()))
    return own or flags or abstract


def _define(cls: type, options: dict[str, Any]) -> type:
    if _at_once(cls, options):
        return dataclasses.dataclass(cls, **options)
    wants_repr, wants_eq, frozen = options.get("repr", True), options.get("eq", True), options.get("frozen", False)
    dataclasses.dataclass(cls, **{**options, "repr": False, "eq": False})
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    params.repr, params.eq = wants_repr, wants_eq  # what was asked for, as the standard decorator records it
    later = {"repr": wants_repr, "eq": wants_eq, "frozen": frozen}
    if wants_repr:
        cls.__repr__ = _stand_in(cls, "__repr__", later)  # type: ignore[method-assign]
    if wants_eq:
        cls.__eq__ = _stand_in(cls, "__eq__", later)  # type: ignore[method-assign]
        # the standard decorator's hash: written from the fields when frozen, else none (unhashable)
        cls.__hash__ = _stand_in(cls, "__hash__", later) if frozen else None  # type: ignore[assignment,method-assign]
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
