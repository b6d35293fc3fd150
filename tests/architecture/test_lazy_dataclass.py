"""``aw_action.lazy_dataclass``: the standard decorator's class, its ``__repr__``, ``__eq__`` and
``__hash__`` written at their first use.

Each behaviour is checked against the standard decorator on a twin class; the last tests keep
every dataclass of the package on this decorator and write every one's methods (an error there
would otherwise show only where an instance is first compared or printed).
"""

from __future__ import annotations

import abc
import ast
import collections.abc
import dataclasses
import importlib
import inspect
import pkgutil
import re
import threading
from pathlib import Path
from typing import Any

import pydantic
import pytest

import aw_action
from aw_action.lazy_dataclass import dataclass, write_methods

PACKAGE = Path(aw_action.__file__).resolve().parent
LATER = ("__repr__", "__eq__", "__hash__")


def _twins(**options: Any) -> tuple[type, type]:
    """The same class body under the standard decorator and under the lazy one."""

    def body(decorator: Any) -> type:
        @decorator(**options)
        class Point:
            """A point."""

            x: int
            y: int = 0
            label: str = dataclasses.field(default="", repr=False, compare=False)
            tags: list[str] = dataclasses.field(default_factory=list, hash=False)

        return Point

    return body(dataclasses.dataclass), body(dataclass)


def _waiting(cls: type) -> list[str]:
    return [name for name in LATER if isinstance(getattr(cls.__dict__.get(name), "_aw_written_later", None), dict)]


def _is_twin_of(cls: type, lazy: type) -> bool:
    return cls is not lazy and cls.__qualname__ == lazy.__qualname__


def _behaviour(cls: type) -> tuple[object, ...]:
    """What a person or a program sees of a class's instances: text, equality, hashing."""
    a, b, c = cls(1, 2, "a"), cls(1, 2, "b"), cls(1, 3)
    hashes: object
    try:
        hashes = (hash(a) == hash(b), hash(a) == hash(c))
    except TypeError as error:
        hashes = str(error)
    text = re.sub(r" at 0x[0-9a-f]+", "", repr(a))  # object's own repr, where the class asks for none
    return text, a == b, a == c, a != c, a == "x", hashes, isinstance(a, collections.abc.Hashable)


@pytest.mark.parametrize(
    "options", [{}, {"frozen": True}, {"eq": False}, {"repr": False}, {"frozen": True, "eq": False}]
)
def test_instances_behave_as_the_standard_decorators_and_the_methods_wait_for_their_first_use(
    options: dict[str, Any],
) -> None:
    standard, lazy = _twins(**options)
    assert _waiting(lazy) == [name for name in LATER if inspect.isfunction(standard.__dict__.get(name))]
    assert repr(lazy.__dataclass_params__) == repr(standard.__dataclass_params__)
    assert _behaviour(lazy) == _behaviour(standard)
    assert _waiting(lazy) == []
    assert sorted(vars(lazy)) == sorted(vars(standard))
    for name in LATER:
        written, theirs = lazy.__dict__.get(name), standard.__dict__.get(name)
        assert (written is None) == (theirs is None), name
        if written is not None:
            assert written.__qualname__ == theirs.__qualname__, name


def test_the_class_is_a_dataclass_from_its_definition() -> None:
    standard, lazy = _twins(frozen=True)
    assert _waiting(lazy) == list(LATER)
    assert [f.name for f in dataclasses.fields(lazy)] == ["x", "y", "label", "tags"]
    assert inspect.signature(lazy) == inspect.signature(standard) and lazy.__doc__ == standard.__doc__
    assert lazy.__match_args__ == standard.__match_args__
    point = lazy(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 5  # type: ignore[misc]
    assert dataclasses.asdict(dataclasses.replace(point, y=4)) == {"x": 1, "y": 4, "label": "", "tags": []}
    assert _waiting(lazy) == list(LATER)  # none of it compared or printed anything


def test_a_class_without_a_docstring_gets_the_standard_one() -> None:
    def bare(decorator: Any) -> type:
        @decorator(frozen=True)
        class Bare:
            a: int
            b: str = "x"

        return Bare

    assert bare(dataclass).__doc__ == bare(dataclasses.dataclass).__doc__ == "Bare(a: 'int', b: 'str' = 'x')"


def test_subclasses_compare_and_print_as_the_standard_decorators_do() -> None:
    def family(decorator: Any) -> tuple[type, type, type, type]:
        @decorator(frozen=True)
        class Base:
            a: int

        @decorator(frozen=True)
        class Child(Base):
            b: str = "b"

        @dataclasses.dataclass(frozen=True)
        class Standard(Base):
            c: int = 0

        class Plain(Base):
            pass

        return Base, Child, Standard, Plain

    def seen(classes: tuple[type, type, type, type]) -> tuple[object, ...]:
        base, child, standard, plain = classes
        return (
            repr(child(1)),
            repr(standard(1)),
            repr(plain(1)),
            child(1) == child(1),
            child(1) == base(1),
            plain(1) == base(1),
            plain(1) == plain(1),
            hash(child(1)) == hash(child(1)),
            hash(plain(2)) == hash(base(2)),
        )

    assert seen(family(dataclass)) == seen(family(dataclasses.dataclass))


@pytest.mark.parametrize(
    "options", [{"order": True}, {"unsafe_hash": True}, {"slots": True}], ids=["order", "unsafe_hash", "slots"]
)
def test_what_the_standard_decorator_decides_from_more_than_the_fields_is_written_at_once(
    options: dict[str, Any],
) -> None:
    standard, lazy = _twins(**options)
    assert _waiting(lazy) == [] and _behaviour(lazy) == _behaviour(standard)


def test_a_class_with_its_own_comparison_or_an_abstract_one_is_written_at_once() -> None:
    @dataclass(frozen=True)
    class Own:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

    class Printable(abc.ABC):
        @abc.abstractmethod
        def __repr__(self) -> str: ...

    @dataclass
    class Printed(Printable):
        a: int

    assert _waiting(Own) == [] and Own(1) == Own(2) and hash(Own(1)) != hash(Own(2))  # the standard's own rules
    assert _waiting(Printed) == [] and repr(Printed(1)).endswith("Printed(a=1)")


def test_writing_the_methods_runs_no_hook_of_the_class_and_leaves_no_subclass() -> None:
    seen: list[str] = []

    class Hooked:
        def __init_subclass__(cls, **kwargs: Any) -> None:
            super().__init_subclass__(**kwargs)
            seen.append(cls.__name__)

    class Meta(type):
        def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any], *, kind: str) -> Meta:
            seen.append(f"{kind}:{name}")
            return super().__new__(mcs, name, bases, ns)

        def __init__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kwargs: Any) -> None:
            super().__init__(name, bases, ns)

    @dataclass(frozen=True)
    class Registered(Hooked):
        a: int

    @dataclass
    class Kinded(metaclass=Meta, kind="k"):
        a: int

    assert (repr(Registered(1)), Registered(1) == Registered(1), repr(Kinded(2)), Kinded(2) == Kinded(2)) == (
        repr(Registered(1)),
        True,
        repr(Kinded(2)),
        True,
    )
    assert repr(Kinded(2)).endswith("Kinded(a=2)") and _waiting(Registered) == _waiting(Kinded) == []
    assert seen == ["Registered", "k:Kinded"]
    assert Registered.__subclasses__() == [] and Kinded.__subclasses__() == []


def test_an_error_while_writing_is_raised_by_the_call_that_asked() -> None:
    """``repr()``, ``==`` and ``hash()`` swallow an error raised while a method is looked up; the
    stand-ins are functions, so the error comes out of the call (a recursion limit, a signal)."""
    _, lazy = _twins(frozen=True)
    real_dataclass = dataclasses.dataclass

    def failing(cls: type, **options: Any) -> type:
        if _is_twin_of(cls, lazy):
            raise KeyboardInterrupt("a signal's exception while writing")
        return real_dataclass(cls, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dataclasses, "dataclass", failing)
        for use in (repr, lambda x: x == lazy(1), hash):
            with pytest.raises(KeyboardInterrupt, match="while writing"):
                use(lazy(1))
    assert _waiting(lazy) == list(LATER)  # nothing half written: the next call writes them
    assert lazy(1) == lazy(1) and repr(lazy(1)).endswith("Point(x=1, y=0, tags=[])") and _waiting(lazy) == []


def test_pydantic_validates_into_the_class() -> None:
    _, lazy = _twins(frozen=True)
    model = pydantic.create_model("Holder", point=(lazy, ...))
    assert model.model_validate({"point": {"x": 1, "y": 2}}).point == lazy(1, 2)  # type: ignore[attr-defined]


def test_a_comparison_while_another_thread_writes_the_methods_waits_for_them() -> None:
    """The stand-ins are replaced, never removed: a thread comparing instances while another writes
    the methods waits for the lock and gets the standard answer."""
    _, lazy = _twins(frozen=True)
    entered, release = threading.Event(), threading.Event()
    real_dataclass = dataclasses.dataclass

    def slow(cls: type, **options: Any) -> type:
        if _is_twin_of(cls, lazy):
            entered.set()
            release.wait(10)
        return real_dataclass(cls, **options)

    answers: list[object] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dataclasses, "dataclass", slow)
        writer = threading.Thread(target=lambda: repr(lazy(1)))
        writer.start()
        assert entered.wait(10)
        comparer = threading.Thread(target=lambda: answers.append((lazy(1) == lazy(1), hash(lazy(2)) == hash(lazy(2)))))
        comparer.start()
        comparer.join(0.3)
        assert comparer.is_alive() and answers == []  # waiting for the lock, not failed
        release.set()
        writer.join(10)
        comparer.join(10)
    assert answers == [(True, True)] and _waiting(lazy) == []


def test_threads_writing_the_methods_at_once_write_them_once() -> None:
    _, lazy = _twins(frozen=True)
    written: list[int] = []
    real_dataclass = dataclasses.dataclass

    def counting(cls: type, **options: Any) -> type:
        written.extend([1] if _is_twin_of(cls, lazy) else [])
        return real_dataclass(cls, **options)

    barrier = threading.Barrier(8)
    results: list[object] = []

    def first_use() -> None:
        barrier.wait()
        results.append(repr(lazy(7)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dataclasses, "dataclass", counting)
        threads = [threading.Thread(target=first_use) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert written == [1] and len(results) == 8 and len(set(results)) == 1


def _names(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def test_every_dataclass_of_the_package_is_declared_with_the_lazy_decorator() -> None:
    standard = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "lazy_dataclass.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
                standard += [f"{path.relative_to(PACKAGE)}: {a.name}" for a in node.names if a.name == "dataclass"]
            elif isinstance(node, ast.Attribute) and node.attr == "dataclass" and _names(node.value, "dataclasses"):
                standard.append(f"{path.relative_to(PACKAGE)}: dataclasses.dataclass")
    assert standard == []


def test_every_dataclass_of_the_package_gets_its_methods_written() -> None:
    declared: list[type] = []
    for module in pkgutil.walk_packages([str(PACKAGE)], prefix="aw_action."):
        if module.name.endswith("__main__"):
            continue
        for value in vars(importlib.import_module(module.name)).values():
            if not (isinstance(value, type) and value.__module__ == module.name):
                continue
            inner = [cls for cls in vars(value).values() if isinstance(cls, type) and dataclasses.is_dataclass(cls)]
            declared += [value] * dataclasses.is_dataclass(value) + inner
    assert len(declared) > 150  # the walk sees the package's dataclasses
    for cls in declared:
        write_methods(cls)
        assert _waiting(cls) == [], cls
