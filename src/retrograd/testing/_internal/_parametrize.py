"""Test parametrization: ``@parametrize``, ``subtest`` and ``instantiate_parametrized_tests``.

A parametrizer decorator attaches a ``parametrize_fn`` to the test function; instantiation (here for
device-agnostic classes, or ``instantiate_device_type_tests``) calls it and adds one concrete method
per parameter set, named as PyTorch names them (``test_foo_x_1``, ``test_bar_x_1_y_foo``, a
``subtest``'s explicit name, ``float32`` for a dtype value ...).

>>> import unittest
>>> from retrograd.testing._internal.common_utils import parametrize, instantiate_parametrized_tests
>>> @instantiate_parametrized_tests
... class T(unittest.TestCase):
...     @parametrize("x", [1, 2])
...     def test_foo(self, x):
...         pass
>>> sorted(n for n in dir(T) if n.startswith("test"))
['test_foo_x_1', 'test_foo_x_2']
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

import retrograd

__all__ = ["subtest", "parametrize", "instantiate_parametrized_tests", "compose_parametrize_fns", "dtype_name",
           "decorateIf"]


def dtype_name(dtype) -> str:
    """``float32`` for ``torch.float32``: a dtype as it appears in test names."""
    return str(dtype).split(".")[-1]


class _TestParametrizer:
    """Base of parametrizing decorators: subclasses yield ``(test, name_suffix, kwargs, decorator_fn)``."""

    def _parametrize_test(self, test, generic_cls, device_cls):
        raise NotImplementedError

    def __call__(self, fn):
        if hasattr(fn, "parametrize_fn"):
            fn.parametrize_fn = compose_parametrize_fns(fn.parametrize_fn, self._parametrize_test)
        else:
            fn.parametrize_fn = self._parametrize_test
        return fn


def compose_parametrize_fns(old_parametrize_fn: Callable, new_parametrize_fn: Callable) -> Callable:
    """The product of two parametrizations; names read top decorator first (``<new>_<old>``)."""

    def composite_fn(test, generic_cls, device_cls):
        for old_test, old_name, old_kwargs, old_dec in list(old_parametrize_fn(test, generic_cls, device_cls)):
            for new_test, new_name, new_kwargs, new_dec in new_parametrize_fn(old_test, generic_cls, device_cls):
                twice = set(old_kwargs).intersection(new_kwargs)
                if twice:
                    raise RuntimeError("Parametrization over the same parameter by multiple parametrization "
                                       f'decorators is not supported. For test "{test.__name__}", the following '
                                       f"parameters are handled multiple times: {twice}")
                name = "_".join(n for n in (new_name, old_name) if n)

                def decorators(kwargs, old_dec=old_dec, new_dec=new_dec):
                    return list(old_dec(kwargs)) + list(new_dec(kwargs))

                yield new_test, name, {**old_kwargs, **new_kwargs}, decorators

    return composite_fn


def instantiate_parametrized_tests(generic_cls: type) -> type:
    """Replace each parametrized test of ``generic_cls`` by its concrete variants (usable as a class decorator)."""
    for attr_name in tuple(dir(generic_cls)):
        attr = getattr(generic_cls, attr_name)
        if not hasattr(attr, "parametrize_fn"):
            continue
        delattr(generic_cls, attr_name)
        for test, suffix, kwargs, decorator_fn in attr.parametrize_fn(attr, generic_cls=generic_cls, device_cls=None):
            full_name = f"{test.__name__}_{suffix}"
            for decorator in decorator_fn(kwargs):
                test = decorator(test)
            _add_test(generic_cls, full_name, test, kwargs)
    return generic_cls


def _add_test(cls: type, name: str, test: Callable, param_kwargs: dict) -> None:
    @functools.wraps(test)
    def instantiated_test(self, param_kwargs=param_kwargs):
        return test(self, **param_kwargs)

    if hasattr(cls, name):
        raise AssertionError(f"Redefinition of test {name}")
    instantiated_test.__name__ = name
    instantiated_test.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, instantiated_test)


class subtest:
    """One explicit parameter set for ``@parametrize``, with an optional name and decorators.

    >>> from retrograd.testing._internal.common_utils import subtest
    >>> subtest((1, 2), name="double").name
    'double'
    """

    __slots__ = ["arg_values", "name", "decorators"]

    def __init__(self, arg_values: Any, name: str | None = None, decorators: Iterable | None = None) -> None:
        self.arg_values = arg_values
        self.name = name
        self.decorators = list(decorators) if decorators else []


class parametrize(_TestParametrizer):
    """``@parametrize("x,y", [(1, 'a'), (2, 'b')], name_fn=None)``: one test per value set.

    >>> from retrograd.testing._internal.common_utils import parametrize
    >>> parametrize("x", [1.5])._default_subtest_name(0, [1.5])
    'x_1_5'
    """

    def __init__(self, arg_str: str, arg_values: Iterable, name_fn: Callable | None = None) -> None:
        self.arg_names: list[str] = [s.strip() for s in arg_str.split(",") if s != ""]
        self.arg_values = arg_values
        self.name_fn = name_fn

    def _formatted_str_repr(self, idx: int, name: str, value: Any) -> str:
        if isinstance(value, retrograd.dtype):
            return dtype_name(value)
        if isinstance(value, retrograd.device):
            return str(value)
        if type(value).__name__ in {"OpInfo", "ModuleInfo"}:
            return value.formatted_name
        if isinstance(value, (int, float, str)):
            return f"{name}_{str(value).replace('.', '_')}"
        return f"{name}{idx}"

    def _default_subtest_name(self, idx: int, values) -> str:
        return "_".join(self._formatted_str_repr(idx, a, v) for a, v in zip(self.arg_names, values, strict=True))

    def _get_subtest_name(self, idx: int, values, explicit_name: str | None = None) -> str:
        if explicit_name:
            return explicit_name
        if self.name_fn:
            return self.name_fn(*values)
        return self._default_subtest_name(idx, values)

    def _parametrize_test(self, test, generic_cls, device_cls):
        if not self.arg_names:
            yield test, "", {}, lambda _: []
            return
        seen = False
        for idx, values in enumerate(self.arg_values):
            seen = True
            explicit_name, decorators, gen_test = None, [], test
            if isinstance(values, subtest):
                explicit_name, decorators = values.name, values.decorators
                values = values.arg_values

                # A fresh function per subtest so its decorators do not touch the shared test.
                @functools.wraps(test)
                def gen_test(*args, **kwargs):
                    return test(*args, **kwargs)
            values = list(values) if len(self.arg_names) > 1 else [values]
            if len(values) != len(self.arg_names):
                raise RuntimeError(f"Expected # values == # arg names, but got: {len(values)} values and "
                                   f'{len(self.arg_names)} names for test "{test.__name__}"')
            kwargs = dict(zip(self.arg_names, values, strict=True))
            name = self._get_subtest_name(idx, values, explicit_name=explicit_name)
            yield gen_test, name, kwargs, (lambda _, decorators=decorators: decorators)
        if not seen:
            raise ValueError(f"{test}: An empty arg_values was passed to @parametrize. "
                             "Note that this may result from reuse of a generator.")


class decorateIf(_TestParametrizer):
    """Apply ``decorator`` to the parametrized variants whose kwargs satisfy ``predicate_fn``.

    >>> import unittest
    >>> from retrograd.testing._internal.common_utils import decorateIf
    >>> d = decorateIf(unittest.expectedFailure, lambda params: params["x"] == 2)
    """

    def __init__(self, decorator: Callable, predicate_fn: Callable[[dict], bool]) -> None:
        self.decorator = decorator
        self.predicate_fn = predicate_fn

    def _parametrize_test(self, test, generic_cls, device_cls):
        def decorator_fn(params, decorator=self.decorator, predicate=self.predicate_fn):
            return [decorator] if predicate(params) else []

        @functools.wraps(test)
        def wrapped(*args, **kwargs):
            return test(*args, **kwargs)

        yield wrapped, "", {}, decorator_fn
