"""Python functions as graph ops: `tf.py_func` and `tf.numpy_function` (PyFunc), and
`tf.py_function` (EagerPyFunc: the function gets tensor values with `.numpy()`).

The function is kept in a process-wide registry under a token ("pyfunc_<n>")
that the op stores as its `token` attr; the graph holds a reference so the
function lives as long as the graph. When the op runs, the function gets NumPy
values (scalars as NumPy scalars, string scalars as bytes) and its results are
checked against `Tout`. Python exceptions map to TensorFlow errors as TF maps
them: ValueError/TypeError -> InvalidArgumentError, StopIteration ->
OutOfRangeError, MemoryError -> ResourceExhaustedError, NotImplementedError ->
UnimplementedError, anything else -> UnknownError.
"""
__all__ = ["py_func", "numpy_function", "py_function"]

import itertools
import threading
import traceback
import weakref

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.shape_inference import unknown_shapes

_ERROR_CLASSES = ((ValueError, errors.InvalidArgumentError),
                  (TypeError, errors.InvalidArgumentError),
                  (StopIteration, errors.OutOfRangeError),
                  (MemoryError, errors.ResourceExhaustedError),
                  (NotImplementedError, errors.UnimplementedError))
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


class _Entry:
    """Holds a registered function (a weak-referenceable box for any callable)."""

    __slots__ = ("func", "__weakref__")

    def __init__(self, func):
        self.func = func


class FuncRegistry:
    """Token -> Python function; entries vanish when no graph references them."""

    def __init__(self):
        self._lock = threading.Lock()
        self._entries = weakref.WeakValueDictionary()
        self._ids = itertools.count()

    def insert(self, func):
        """Registers `func`; returns (token, entry). Keep `entry` alive while needed."""
        entry = _Entry(func)
        with self._lock:
            token = f"pyfunc_{next(self._ids)}"
            self._entries[token] = entry
        return token, entry

    def get(self, token):
        """The function registered as `token`, or None."""
        entry = self._entries.get(token)
        return None if entry is None else entry.func

    def size(self):
        return len(self._entries)


_py_funcs = FuncRegistry()


def _as_argument(value):
    """What the Python function receives for one input value."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return value[()]
        if not value.flags.writeable:
            return value.copy()
    return value


def _type_name(dtype):
    return _C_TYPE_NAMES.get(dtype.name, dtype.name)


def _convert_result(value, index, token, dtype):
    if isinstance(value, np.ndarray) and value.dtype.kind == "U":
        value = np.vectorize(lambda s: s.encode("utf-8"), otypes=[object])(value)
    elif isinstance(value, str):
        value = value.encode("utf-8")
    arr = np.asarray(value, order="C")
    if arr.dtype.kind == "S":
        arr = arr.astype(object)
    want = dtype.as_numpy_dtype
    if want is np.object_:
        if arr.dtype != np.object_ or not all(isinstance(v, bytes) for v in arr.reshape(-1)):
            got = "string" if arr.dtype == np.object_ else _type_name(dtypes.as_dtype(arr.dtype))
            raise errors.InvalidArgumentError(
                None, None, f"{index}-th value returned by {token} is {got}, but expects string")
        return arr
    if arr.dtype != want:
        try:
            got = _type_name(dtypes.as_dtype(arr.dtype))
        except TypeError:
            got = str(arr.dtype)
        raise errors.InvalidArgumentError(
            None, None, f"{index}-th value returned by {token} is {got}, but expects "
                        f"{_type_name(dtype)}")
    return arr


def _error_for(exc):
    text = "".join(traceback.format_exception_only(type(exc), exc))
    text += "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    for py_cls, tf_cls in _ERROR_CLASSES:
        if isinstance(exc, py_cls):
            return tf_cls(None, None, text)
    return errors.UnknownError(None, None, text)


class EagerValue(np.ndarray):
    """An input value of a `py_function`: an array that also answers TF's eager-tensor
    calls (`.numpy()`, `.shape`, `.dtype` as a TF dtype is left to NumPy)."""

    def numpy(self):
        """The value as NumPy gives it (a NumPy scalar for rank 0)."""
        value = np.asarray(self)
        return value[()] if value.ndim == 0 else value


def _eager_argument(value):
    return np.array(value).view(EagerValue)


def _eager_py_func_kernel(input, *, token, Tout, is_async=False):  # noqa: A002,N803,ARG001
    return _call_py_func(input, token, Tout, _eager_argument, _eager_result)


def _eager_result(value, dtype):
    """A Python number or list becomes a value of `dtype`, as convert_to_tensor makes it."""
    if isinstance(value, (bool, int, float, list, tuple)) and dtype != dtypes.string:
        try:
            return np.asarray(value, dtype=dtype.as_numpy_dtype)
        except (TypeError, ValueError, OverflowError):
            return value
    return value


def _py_func_kernel(input, *, token, Tout):  # noqa: A002,N803 - TF's names
    return _call_py_func(input, token, Tout, _as_argument)


def _call_py_func(input, token, Tout, as_argument,  # noqa: A002,N803 - TF's names
                  as_result=lambda value, dtype: value):
    token = token.decode()
    func = _py_funcs.get(token)
    if func is None:
        raise errors.InvalidArgumentError(
            None, None, f"Could not find callback with key={token} in the registry.")
    try:
        result = func(*[as_argument(v) for v in input])
    except Exception as exc:  # noqa: BLE001 - every Python error maps to a TF error
        raise _error_for(exc) from exc
    if result is None:
        results = []
    elif isinstance(result, (list, tuple)):
        results = list(result)
    else:
        results = [result]
    if len(results) != len(Tout):
        raise errors.InvalidArgumentError(
            None, None, f"{token} returns {len(results)} values, but expects to see "
                        f"{len(Tout)} values.")
    out = [_convert_result(as_result(v, dt), i, token, dt)
           for i, (v, dt) in enumerate(zip(results, Tout))]
    if not out:
        return None
    return out[0] if len(out) == 1 else tuple(out)


for _type, _stateful in (("PyFunc", True), ("PyFuncStateless", False)):
    register_op(_type, inputs=["input: Tin"], outputs=["output: Tout"],
                attrs=["token: string", "Tin: list(type) >= 0", "Tout: list(type) >= 0"],
                shape_fn=unknown_shapes, kernel=_py_func_kernel, stateful=_stateful,
                host_only=True, output_aliases_input=True)
    # As in TensorFlow: a Python function is opaque, its inputs get no gradient.
    NotDifferentiable(_type)


register_op("EagerPyFunc", inputs=["input: Tin"], outputs=["output: Tout"],
            attrs=["token: string", "is_async: bool = false", "Tin: list(type) >= 0",
                   "Tout: list(type) >= 0"],
            shape_fn=unknown_shapes, kernel=_eager_py_func_kernel, stateful=True,
            host_only=True)
# TensorFlow differentiates EagerPyFunc by replaying the function under a GradientTape,
# which needs eager execution: no gradient is registered (tools/support.GRADIENT_MISSING),
# so tf.gradients through one raises LookupError.


def _outermost_graph(graph):
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's name
    """Wraps the Python function `func` as an op (`tf.py_func`).

    Args:
      func: a callable taking NumPy values (one per tensor of `inp`) and returning
        a NumPy value or a list/tuple of them, one per entry of `Tout`.
      inp: list of tensors (or values convertible to tensors).
      Tout: a DType, or a list/tuple of DTypes (the result is then a list).
      stateful: False lets TensorFlow treat the op as pure (PyFuncStateless).
      name: op name.

    Returns:
      a Tensor, a list of Tensors (when Tout is a list/tuple), or the Operation
      when there are no outputs.

    Raises:
      ValueError: if `func` is not callable.
    """
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type "
                         f"{type(func)}.")
    return _py_func_op("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout, name)


def _py_func_op(op_type, func, inp, Tout, name):  # noqa: N803 - TF's name
    is_list = isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t).base_dtype for t in (Tout if is_list else [Tout])]
    inp = [x.value() if _is_variable(x) else x for x in inp]
    token, entry = _py_funcs.insert(func)
    op = apply_op(op_type, input=list(inp), token=token, Tout=tout, name=name)
    # The graph keeps the function alive; the registry only refers to it weakly.
    graph = _outermost_graph(op.graph)
    if not hasattr(graph, "_py_funcs_used_in_graph"):
        graph._py_funcs_used_in_graph = []
    graph._py_funcs_used_in_graph.append(entry)
    if not op.outputs:
        return op
    return list(op.outputs) if is_list else op.outputs[0]


def _is_variable(x):
    return hasattr(x, "_as_graph_element") and callable(getattr(x, "value", None)) and \
        hasattr(x, "initializer")


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's name
    """`tf.numpy_function`: the same op as py_func (NumPy values in and out)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803 - TF's name
    """`tf.py_function`: wraps `func` as an op (`EagerPyFunc`) that gets its inputs as
    tensor values (arrays with TF's `.numpy()`) and returns values convertible to `Tout`
    (a DType gives a Tensor, a list of DTypes a list). With `func` left out it is a
    decorator.

    Raises:
      ValueError: if `func` is not callable.
    """
    if func is None:
        return lambda f: py_function(f, inp=inp, Tout=Tout, name=name)
    if not callable(func):
        raise ValueError(f"Expected func to be callable. Received func={func} of type "
                         f"{type(func)}.")
    if Tout is None:
        Tout = []
    return _py_func_op("EagerPyFunc", func, list(inp or []), Tout, name)
