"""``aw_action.lazy_dataclass``: the standard decorator's class, made at the class's first use.

Each behaviour is checked against the standard decorator on a twin class; the last tests keep
every dataclass of the package on this decorator and make every one of them (a definition error
would otherwise surface only where the class is first used).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import threading
from pathlib import Path
from typing import Any

import pydantic
import pytest

import aw_action
from aw_action.lazy_dataclass import dataclass, make, pending

PACKAGE = Path(aw_action.__file__).resolve().parent


def _twins(**options: Any) -> tuple[type, type]:
    """The same class body under the standard decorator and under the lazy one."""

    def body(decorator: Any) -> type:
        @decorator(**options)
        class Point:
            """A point."""

            x: int
            y: int = 0
            tags: list[str] = dataclasses.field(default_factory=list, hash=False)

        return Point

    return body(dataclasses.dataclass), body(dataclass)


def test_a_class_waits_for_its_first_instance_then_is_the_standard_decorators() -> None:
    standard, lazy = _twins(frozen=True)
    assert pending(lazy) and "__dataclass_params__" not in lazy.__dict__
    point = lazy(1, y=2)
    assert not pending(lazy)
    assert repr(point) == repr(standard(1, y=2)) == "_twins.<locals>.body.<locals>.Point(x=1, y=2, tags=[])"
    assert point == lazy(1, 2) and hash(point) == hash(lazy(1, 2)) and point != lazy(1, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 5  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(lazy)] == [f.name for f in dataclasses.fields(standard)]
    assert inspect.signature(lazy) == inspect.signature(standard)
    assert lazy.__match_args__ == standard.__match_args__ == ("x", "y", "tags")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        lazy()


def test_asking_for_its_fields_makes_a_class() -> None:
    for ask in (dataclasses.fields, dataclasses.is_dataclass):
        _, lazy = _twins()
        assert pending(lazy)
        assert ask(lazy)
        assert not pending(lazy)


def test_a_field_default_factory_gives_each_instance_its_own_value() -> None:
    _, lazy = _twins()
    first, second = lazy(1), lazy(2)
    first.tags.append("a")
    assert (first.tags, second.tags) == (["a"], [])
    assert dataclasses.replace(first, x=3) == lazy(3, 0, ["a"])
    assert dataclasses.asdict(second) == {"x": 2, "y": 0, "tags": []}


def test_a_subclass_is_made_with_its_bases_fields_in_order() -> None:
    @dataclass(frozen=True)
    class Base:
        a: int

    @dataclass(frozen=True)
    class Child(Base):
        b: str = "b"

    assert pending(Base) and pending(Child)
    child = Child(1)
    assert (child.a, child.b, [f.name for f in dataclasses.fields(Child)]) == (1, "b", ["a", "b"])
    assert not pending(Base)
    assert Base(2) == Base(2) and Base(2) != Child(2)


def test_a_plain_subclass_and_a_standard_subclass_of_a_waiting_class() -> None:
    @dataclass
    class Base:
        a: int

    class Plain(Base):
        def twice(self) -> int:
            return 2 * self.a

    assert Plain(4).twice() == 8
    assert not pending(Base)

    @dataclass
    class Base2:
        a: int

    @dataclasses.dataclass
    class Standard(Base2):
        b: int = 1

    assert (Standard(3).a, Standard(3).b) == (3, 1)


def test_a_definition_error_is_raised_at_each_first_use_as_the_standard_decorator_raises_it() -> None:
    @dataclass(frozen=True)
    class Frozen:
        a: int

    @dataclass
    class Thawed(Frozen):
        b: int = 0

    for _ in range(2):
        with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):
            Thawed(1)
        assert pending(Thawed)


def test_slots_and_an_own_init_are_made_at_once() -> None:
    @dataclass(slots=True)
    class Slotted:
        a: int

    class Own:
        a: int

        def __init__(self, a: int) -> None:
            self.a = a * 2

    made = dataclass(Own)
    assert Slotted.__slots__ == ("a",) and not pending(Slotted)
    assert not pending(made) and made(2).a == 4 and repr(made(1)).endswith("Own(a=2)")


def test_pydantic_validates_into_a_waiting_class() -> None:
    _, lazy = _twins(frozen=True)
    model = pydantic.create_model("Holder", point=(lazy, ...))
    assert model.model_validate({"point": {"x": 1, "y": 2}}).point == lazy(1, 2)  # type: ignore[attr-defined]


def test_threads_making_a_class_at_once_make_it_once() -> None:
    made: list[int] = []
    real_dataclass = dataclasses.dataclass

    def counting(cls: type, **options: Any) -> type:
        made.append(1)
        return real_dataclass(cls, **options)

    _, lazy = _twins(frozen=True)
    barrier = threading.Barrier(8)
    results: list[object] = []

    def first_use() -> None:
        barrier.wait()
        results.append(lazy(7))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dataclasses, "dataclass", counting)
        threads = [threading.Thread(target=first_use) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert made == [1] and results == [lazy(7)] * 8


def _names(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _package_sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_dataclass_of_the_package_is_declared_with_the_lazy_decorator() -> None:
    standard = []
    for path in _package_sources():
        if path.name == "lazy_dataclass.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
                standard += [f"{path.relative_to(PACKAGE)}: {a.name}" for a in node.names if a.name == "dataclass"]
            elif isinstance(node, ast.Attribute) and node.attr == "dataclass" and _names(node.value, "dataclasses"):
                standard.append(f"{path.relative_to(PACKAGE)}: dataclasses.dataclass")
    assert standard == []


def _declared(cls: type) -> bool:
    return pending(cls) or "__dataclass_fields__" in cls.__dict__


def test_every_class_of_the_package_is_made_without_error() -> None:
    declared: list[type] = []
    for module in pkgutil.walk_packages([str(PACKAGE)], prefix="aw_action."):
        if module.name.endswith("__main__"):
            continue
        for value in vars(importlib.import_module(module.name)).values():
            if not (isinstance(value, type) and value.__module__ == module.name):
                continue
            inner = [cls for cls in vars(value).values() if isinstance(cls, type) and _declared(cls)]
            declared += [value] * _declared(value) + inner
    assert len(declared) > 150  # the walk sees the package's dataclasses
    for cls in declared:
        make(cls)
        assert dataclasses.fields(cls) is not None and not pending(cls), cls
