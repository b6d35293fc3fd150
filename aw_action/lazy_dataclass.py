"""``dataclass`` made when a class is first used, not when it is defined (issue 36, bench/PROFILE.md).

On Python 3.11, ``dataclasses.dataclass`` compiles each method it writes (``__init__``,
``__repr__``, ``__eq__``, and for a frozen class ``__hash__``, ``__setattr__`` and
``__delattr__``) with an ``exec`` of its own: ~0.4 ms a frozen class. A run's start imports about
130 of the harness's record classes; half of them have no instance before the first request.

``dataclass`` here takes the standard decorator's arguments and leaves the class exactly as the
standard decorator makes it, only later: the standard decorator runs on the class (the same class
object; its dataclass bases first) the first time any of these happens:

- the class is instantiated (its ``__init__`` until then is a stand-in that does the work, then
  calls the real one; a plain subclass inherits the stand-in);
- its dataclass fields are asked for: ``dataclasses.fields``, ``is_dataclass``, ``replace``,
  ``asdict``, a subclass being made a dataclass, pydantic building a schema of it (each reads
  ``__dataclass_fields__``, a stand-in descriptor until then).

What stays the standard decorator's at once: ``slots=True`` and ``weakref_slot=True`` (it returns
a new class) and a class that defines its own ``__init__``. Until a class is made, reading a
``field(default=...)`` off the class itself gives the ``Field``, and ``inspect.signature(cls)``
shows ``(*args, **kwargs)``; an error in a definition (a field without a default after one with)
is raised where the class is first used: ``tests/test_lazy_dataclass.py`` makes every class of
the package. Two threads using a class for the first time make it once (a lock).

mypy reads ``dataclass`` as the standard decorator. Every dataclass of ``aw_action`` is declared
with this one (a test keeps it so).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any

_FIELDS = "__dataclass_fields__"
_OPTIONS = "__aw_dataclass_options__"
_EAGER = ("slots", "weakref_slot")

_lock = threading.RLock()


class _Fields:
    """Stands in ``__dataclass_fields__`` of a class not yet made: reading it makes the class."""

    __slots__ = ("_cls",)

    def __init__(self, cls: type) -> None:
        self._cls = cls

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        make(self._cls)
        return getattr(self._cls, _FIELDS)


def _stand_in_init(cls: type) -> Any:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        make(cls)
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]  # the real one now

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def make(cls: type) -> None:
    """Run the standard decorator on ``cls`` now if it waits for its first use (else nothing)."""
    with _lock:
        options = cls.__dict__.get(_OPTIONS)
        if options is None:
            return
        stand_ins = {name: cls.__dict__[name] for name in ("__init__", _FIELDS, _OPTIONS)}
        for name in stand_ins:
            delattr(cls, name)
        try:
            dataclasses.dataclass(cls, **options)
        except BaseException:
            for name, value in stand_ins.items():
                setattr(cls, name, value)
            raise


def pending(cls: type) -> bool:
    """Whether ``cls`` (itself, not a base) still waits for its first use."""
    return _OPTIONS in cls.__dict__


def _defer(cls: type, options: dict[str, Any]) -> type:
    if any(options.get(name) for name in _EAGER) or "__init__" in cls.__dict__:
        return dataclasses.dataclass(cls, **options)
    setattr(cls, _OPTIONS, options)
    setattr(cls, _FIELDS, _Fields(cls))
    cls.__init__ = _stand_in_init(cls)  # type: ignore[misc]
    return cls


if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
else:

    def dataclass(cls=None, /, **options):
        """``dataclasses.dataclass``, run on the class at its first use (the module's docstring)."""
        if cls is None:
            return lambda cls: _defer(cls, options)
        return _defer(cls, options)
