"""Count the numpy operations of one kernel call, by kind, with the elements each touches.

Method: the kernel's array arguments are passed as views of :class:`_Census`, an ``ndarray``
subclass whose ``__array_ufunc__`` and ``__array_function__`` (numpy's dispatch protocols,
NEP 13 and NEP 18) record each operation before handing it on, and whose ``__getitem__``
records each index.  Results of operations on census arrays are census arrays, so everything
the kernel derives from its inputs is seen; arrays it creates with ``numpy.zeros``,
``empty``, ``ones``, ``full`` and their ``*_like`` forms are made census arrays too (those
names of the ``numpy`` module are wrapped for the call).  Operations on numpy *scalars* only
(``np.float64 * np.float64``) dispatch no protocol and are left to the bytecode counter
(``numpy_scalars``).  The count is of one call at one size; ``counting.phase`` counts at four
sizes and extrapolates.

Kinds (:data:`KINDS`, what the ``numpy_call`` probe measures one of each of):

* ``elementwise``: a ufunc called with a new output (``x * y``): elements = output size.
* ``elementwise_out``: a ufunc writing into an existing array (``c += x``, ``out=``).
* ``outer``: ``ufunc.outer`` (output size).
* ``broadcast``: a ufunc call with an array operand stretched along an axis (``col * M``):
  numpy runs its inner loop once per row (output size).
* ``reduce``: ``ufunc.reduce`` and the methods built on it (``x.sum()``; input size);
  ``reduce_outer`` when the reduced axis is not the last (``M.sum(axis=0)``: rows added up).
* ``einsum``: ``numpy.einsum``: elements = multiply-adds (the product of every label's size).
* ``create``: a new array from a creation function (output size).
* ``view``: an index that returns an array (``b[k]``; no elements touched).
* ``scalar_index``: an index that returns one element (``a[i, k]``); ``scalar_store`` one
  that writes one (``c[i, j] = s``); writing a slice (``c[i] = row``) is an
  ``elementwise_out`` ``setitem`` of its elements.
* ``scalar_operand``: a ufunc call with a scalar operand (``a[i, k] * b[k]``), counted besides
  its ``elementwise`` kind: numpy converts the scalar to an array first.
* ``dot``: a product of two vectors (``np.dot(x, y)``, ``x @ y``): n multiply-adds.
* ``gemv``: a product of a vector and a matrix (``x @ M``): the matrix's size.
* ``blas``: ``matmul``/``dot``/``@`` of matrices, priced at the dense kernel (multiply-adds).
* ``inner_loops``: each time a ufunc call or reduction starts its inner loop again beyond
  the first (``np.nditer``'s external loop: a broadcast over rows of n restarts it every n
  elements), counted as that many "calls" of no elements.
* ``other``: anything else (``ufunc.at``, ``accumulate``, other functions): counted, not priced.
  A numpy function of no kind of its own is looked into first (its Python implementation runs
  on the census arrays: ``np.sum`` is the reduction it makes); one that made no operation on
  them (it took plain copies, as ``np.outer`` does) is ``other`` over its result's elements.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable
from types import FrameType
from typing import Any

import numpy as np

from overhead_tui.summary.vocabulary import NUMPY_KINDS
from overhead_tui.worker.counting.instructions import instruction_at
from overhead_tui.worker.counting.sites import LIBRARY_ROOTS

KINDS = NUMPY_KINDS
"""The operation kinds of :func:`census` (module docstring)."""

CREATORS = ("zeros", "empty", "ones", "full", "zeros_like", "empty_like", "ones_like", "full_like")
"""``numpy`` functions wrapped during a census so the arrays they make are census arrays."""

BLAS_FUNCTIONS = ("dot", "vdot", "inner", "matmul", "tensordot")

Key = tuple[str, str, float]
"""(kind, operation, float64-equivalent elements per call)."""


class _Recorder:
    """The calls seen: {(kind, operation, elements): calls}, and where in the user's code each
    operation of a priced kind was made."""

    def __init__(self, kernel_file: str = "") -> None:
        self.calls: Counter[Key] = Counter()
        self.active = 0
        self.where: set[tuple[str, int]] = set()
        self.kernel_file = kernel_file

    def add(self, kind: str, operation: str, elements: float, count: int = 1) -> None:
        self.calls[(kind, operation, float(elements))] += count
        if kind != "other" and (site := self._user_instruction()) is not None:
            self.where.add(site)

    def _user_instruction(self) -> tuple[str, int] | None:
        """(code's qualified name, instruction offset) of the innermost frame of the user's
        code (the kernel's own file, or any file outside the installed libraries and this
        package): the instruction whose numpy work is being recorded, a site's key
        (``counting.sites``)."""
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            code = frame.f_code
            name = code.co_filename
            own = name.startswith(LIBRARY_ROOTS) or _ours(frame)
            if name == self.kernel_file or not own:
                return code.co_qualname, instruction_at(code, frame.f_lasti)
            frame = frame.f_back
        return None


def _ours(frame: FrameType) -> bool:
    """A frame of this package's code (the census's own wrappers): no user code."""
    return str(frame.f_globals.get("__name__", "")).startswith("overhead_tui.")


_RECORDER: _Recorder | None = None


def _itemsize(*arrays: object) -> float:
    """Bytes per element over 8: elements are counted as float64-equivalent."""
    sizes = [a.dtype.itemsize for a in arrays if isinstance(a, np.ndarray | np.generic)]
    return max(sizes, default=8) / 8


def _size(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def _shape(value: object) -> tuple[int, ...]:
    """The shape of an array, scalar or nested sequence (without numpy's dispatch: a census
    array's ``np.shape`` would be recorded)."""
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):
        return shape
    return np.asarray(_plain(value)).shape


def _plain(value: object) -> Any:
    """Census arrays (in tuples, lists, dicts too) as plain ndarrays."""
    if isinstance(value, _Census):
        return value.view(np.ndarray)
    if isinstance(value, tuple | list):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _traced(value: object) -> Any:
    """ndarrays (in tuples and lists too) as census arrays."""
    if isinstance(value, np.ndarray) and not isinstance(value, _Census):
        return value.view(_Census)
    if isinstance(value, tuple | list):
        return type(value)(_traced(v) for v in value)
    return value


def _einsum_work(subscripts: object, operands: tuple[object, ...]) -> float:
    """Multiply-adds of an einsum: the product of the sizes of every label (explicit form)."""
    if not isinstance(subscripts, str):
        return float(sum(_size(_shape(o)) for o in operands))
    inputs = subscripts.split("->")[0].replace(" ", "").split(",")
    sizes: dict[str, int] = {}
    for labels, operand in zip(inputs, operands, strict=False):
        for label, extent in zip(labels, _shape(operand), strict=False):
            sizes[label] = extent
    return float(math.prod(sizes.values()))


def _has_out(kwargs: dict[str, object]) -> bool:
    """A ufunc call given an output array (``out=``, or an in-place operator)."""
    out = kwargs.get("out")
    if isinstance(out, tuple):
        return any(o is not None for o in out)
    return out is not None


def _product_kind(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[str, int]:
    """The kind and multiply-adds of a product of arrays of these shapes: two vectors a
    ``dot`` (n), a vector and a matrix a ``gemv`` (the matrix's size), else ``blas``."""
    if len(a) == 1 and len(b) == 1:
        return "dot", a[0]
    if min(len(a), len(b)) == 1 and max(len(a), len(b)) == 2:
        return "gemv", _size(a if len(a) == 2 else b)
    if not a or not b:
        return "blas", 0
    return "blas", _size(a) * (b[-1] if len(b) > 1 else 1)


def _ufunc_kind(
    ufunc: np.ufunc, method: str, inputs: tuple[object, ...], kwargs: dict[str, object]
) -> tuple[str, int]:
    shapes = [_shape(x) for x in inputs]
    if ufunc.__name__ == "matmul":
        return _product_kind(shapes[0], shapes[1]) if len(shapes) == 2 else ("blas", 0)
    if method == "__call__":
        elements = _size(np.broadcast_shapes(*shapes)) if shapes else 0
        arrays = [s for x, s in zip(inputs, shapes, strict=True) if isinstance(x, np.ndarray)]
        if len(shapes) > 1 and any(s and _size(s) < elements for s in arrays):
            return "broadcast", elements  # an array stretched along an axis: a row loop
        return ("elementwise_out" if _has_out(kwargs) else "elementwise"), elements
    if method == "outer":
        return "outer", math.prod(_size(s) for s in shapes)
    if method == "reduce":
        size = _size(shapes[0]) if shapes else 0
        axis = kwargs.get("axis", 0)
        ndim = len(shapes[0]) if shapes else 0
        if ndim > 1 and isinstance(axis, int) and axis % ndim != ndim - 1:
            return "reduce_outer", size  # over an outer axis: rows added into the result
        return "reduce", size
    return "other", _size(shapes[0]) if shapes else 0


def _inner_loops(ufunc_method: str, inputs: tuple[object, ...], kwargs: dict[str, object]) -> int:
    """How many times numpy starts its inner loop in one ufunc call: the elements over the
    length of the loop its iterator runs innermost (``np.nditer``'s external loop over the
    array operands: a broadcast ``A[:, :, None] * B[None]`` runs rows of n, a contiguous
    product one loop); for a reduction, one loop per run of the axes after the reduced one.
    1 where it cannot tell."""
    arrays = [x.view(np.ndarray) for x in inputs if isinstance(x, np.ndarray)]
    if not arrays:
        return 1
    try:
        if ufunc_method == "reduce":
            shape = arrays[0].shape
            axis = kwargs.get("axis", 0)
            if not shape or not isinstance(axis, int):
                return 1
            run = math.prod(shape[axis % len(shape) + 1 :]) or shape[-1]
            return max(1, _size(shape) // max(1, run))
        it = np.nditer(arrays, flags=["external_loop", "refs_ok", "zerosize_ok"],
                       op_flags=[["readonly"]] * len(arrays))  # fmt: skip
        first = next(iter(it))
        inner = (first[0] if isinstance(first, tuple) else first).shape[0]
        return max(1, _size(it.shape) // max(1, inner))
    except (ValueError, TypeError, StopIteration):
        return 1


class _Census(np.ndarray):
    """An ndarray view that records the numpy operations made on it (module docstring)."""

    def __array_ufunc__(
        self, ufunc: np.ufunc, method: str, *inputs: object, **kwargs: object
    ) -> object:
        recorder = _RECORDER
        if recorder is not None:
            recorder.active += 1  # numpy calls made here are not the kernel's
        try:
            if recorder is not None and recorder.active == 1:
                kind, elements = _ufunc_kind(ufunc, method, inputs, kwargs)
                name = ufunc.__name__ + ("" if method == "__call__" else f".{method}")
                recorder.add(kind, name, float(elements) * _itemsize(*inputs))
                if method == "__call__" and not all(isinstance(x, np.ndarray) for x in inputs):
                    recorder.add("scalar_operand", name, 0.0)
                if method in ("__call__", "reduce") and kind != "blas":
                    restarts = _inner_loops(method, inputs, kwargs) - 1
                    if restarts > 0:  # each beyond the first: counted as one "call"
                        recorder.add("inner_loops", name, 0.0, restarts)
            result = getattr(ufunc, method)(*_plain(inputs), **_plain(kwargs))
        finally:
            if recorder is not None:
                recorder.active -= 1
        if _has_out(kwargs):
            out = kwargs["out"]
            return out[0] if isinstance(out, tuple) and len(out) == 1 else out
        return _traced(result)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        recorder = _RECORDER
        inner: Callable[..., object] | None = getattr(func, "_implementation", None)
        if recorder is not None and recorder.active == 0 and inner and _looked_through(func):
            # a numpy function of no kind of its own (np.sum, np.outer): its own code runs on
            # the census arrays, and the operations it makes are counted; where it made none
            # on them (it took plain copies: np.outer's asarray), it is one element loop over
            # its result
            before = sum(recorder.calls.values())
            result = inner(*args, **kwargs)
            if sum(recorder.calls.values()) == before:
                elements = float(getattr(result, "size", 0) or 0) * _itemsize(result)
                recorder.add("other", getattr(func, "__name__", "?"), elements)
            return _traced(result)
        if recorder is not None:
            recorder.active += 1
        try:
            if recorder is not None and recorder.active == 1:
                self._record_function(recorder, func.__name__, args)
            result = func(*_plain(args), **_plain(kwargs))
        finally:
            if recorder is not None:
                recorder.active -= 1
        return _traced(result)

    @staticmethod
    def _record_function(recorder: _Recorder, name: str, args: tuple[Any, ...]) -> None:
        if name == "einsum":
            recorder.add("einsum", name, _einsum_work(args[0], args[1:]) * _itemsize(*args))
        elif name in BLAS_FUNCTIONS:
            kind, work = _product_kind(_shape(args[0]), _shape(args[1]))
            recorder.add(kind, name, work * _itemsize(*args[:2]))
        elif name in CREATORS:
            recorder.add("create", name, _size(_shape(args[0])) * _itemsize(args[0]))
        else:  # without a Python implementation to look into: its arrays' elements
            arrays = [a for a in args if isinstance(a, np.ndarray)]
            recorder.add("other", name, sum(a.size for a in arrays) * _itemsize(*arrays))

    def __setitem__(self, index: Any, value: Any) -> None:
        recorder = _RECORDER
        if recorder is not None and not recorder.active:
            target = np.ndarray.__getitem__(self.view(np.ndarray), index)
            if isinstance(target, np.ndarray):  # a slice: its elements copied in
                size = float(target.size) * _itemsize(target)
                recorder.add("elementwise_out", "setitem", size)
            else:
                recorder.add("scalar_store", "index", 1.0)
        super().__setitem__(index, _plain(value))

    def __getitem__(self, index: Any) -> Any:
        result = super().__getitem__(index)
        recorder = _RECORDER
        if recorder is not None and not recorder.active:
            if isinstance(result, np.ndarray):
                recorder.add("view", "index", 0.0)
            else:
                recorder.add("scalar_index", "index", 1.0)
        return result


def _looked_through(func: object) -> bool:
    """A numpy function the census looks into (its Python implementation, NEP 18's
    ``_implementation``) rather than counting it as ``other``: one of no kind of its own (not
    einsum, a product or a creator)."""
    name = getattr(func, "__name__", "")
    return not (name == "einsum" or name in BLAS_FUNCTIONS or name in CREATORS)


def _creator(name: str, original: Callable[..., object]) -> Callable[..., object]:
    def create(*args: object, **kwargs: object) -> object:
        recorder = _RECORDER
        if recorder is not None:
            recorder.active += 1
        try:
            result = original(*_plain(args), **_plain(kwargs))
            if recorder is not None and recorder.active == 1 and isinstance(result, np.ndarray):
                recorder.add("create", name, result.size * _itemsize(result))
        finally:
            if recorder is not None:
                recorder.active -= 1
        return _traced(result)

    return create


def census(
    fn: Callable[..., object], args: tuple[object, ...], where: set[tuple[str, int]] | None = None
) -> dict[Key, int]:
    """{(kind, operation, float64-equivalent elements per call): calls} of ``fn(*args)``;
    ``where``, when given, gets the (code's qualified name, offset) of each instruction of the
    user's code that made an operation of a priced kind (not ``other``): the sites whose
    numpy work the census's rows price.

    The arguments' arrays are passed as census views (the kernel may write into them).
    """
    global _RECORDER
    originals = {name: getattr(np, name) for name in CREATORS}
    code = getattr(fn, "__code__", None)
    recorder = _Recorder(code.co_filename if code is not None else "")
    _RECORDER = recorder
    for name, original in originals.items():
        setattr(np, name, _creator(name, original))
    try:
        fn(*_traced(args))
    finally:
        for name, original in originals.items():
            setattr(np, name, original)
        _RECORDER = None
    if where is not None:
        where |= recorder.where
    return dict(recorder.calls)
