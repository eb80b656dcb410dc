"""Dataset methods that run functions over many elements at once (parallel map,
interleave) and sources from Python (from_generator); mixed into DatasetV1."""
import threading

import numpy as np

from trainflow._src.data import structure as st
from trainflow._src.data import structured_function
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.ops.dataset import (generator_ops, interleave_ops,  # noqa: F401
                                        parallel_map_ops)
from trainflow._src.ops.script import script_ops

AUTOTUNE = -1


def int64(value, name):
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


def element_attrs(structure):
    return {"output_types": structure.flat_types, "output_shapes": structure.flat_shapes}


class _GeneratorState:
    """The Python iterators of one from_generator dataset, one per iterator id (TF's
    DatasetV2._GeneratorState): each initialization of an iterator calls the generator
    afresh."""

    def __init__(self, generator):
        self._generator = generator
        self._lock = threading.Lock()
        self._next_id = 0
        self._args = {}
        self._iterators = {}

    def get_next_id(self, *args):
        with self._lock:
            ret = self._next_id
            self._next_id += 1
            self._args[ret] = args
        return np.array(ret, dtype=np.int64)

    def get_iterator(self, iterator_id):
        with self._lock:
            iterator = self._iterators.get(iterator_id)
            if iterator is None:
                args = self._args.pop(iterator_id)
        if iterator is None:
            iterator = iter(self._generator(*args))
            with self._lock:
                self._iterators[iterator_id] = iterator
        return iterator

    def iterator_completed(self, iterator_id):
        with self._lock:
            self._iterators.pop(iterator_id, None)


def flatten_up_to(template, value):
    """The parts of `value` at the leaves of nest `template` (TF's nest.flatten_up_to).

    Raises:
      TypeError, ValueError: if `value` is not nested as `template` is.
    """
    if isinstance(template, dict):
        if not isinstance(value, dict) or sorted(value) != sorted(template):
            raise TypeError(f"{value!r} is not a dict with keys {sorted(template)}")
        return [leaf for k in sorted(template) for leaf in flatten_up_to(template[k], value[k])]
    if isinstance(template, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(template):
            raise ValueError(f"{value!r} is not a sequence of length {len(template)}")
        return [leaf for t, v in zip(template, value) for leaf in flatten_up_to(t, v)]
    return [value]


def _convert(value, dtype):
    """`value` as an array of `dtype` (TF's FuncRegistry._convert)."""
    if dtype == dtypes.string:
        arr = np.asarray(value, dtype=object)
        if arr.dtype == object:
            arr = np.vectorize(lambda s: s.encode("utf-8") if isinstance(s, str) else s,
                               otypes=[object])(arr) if arr.size else arr
            if not all(isinstance(s, bytes) for s in arr.reshape(-1)):
                raise TypeError("not a string")
        return arr
    return np.asarray(value, dtype=dtype.as_numpy_dtype)


def _generator_next(state, output_types, flat_types, flat_shapes):
    """The py_func body of from_generator's next_func: the generator's next element,
    checked against the declared structure, types and shapes as TF checks it."""

    def generator_py_func(iterator_id):
        values = next(state.get_iterator(int(iterator_id)))
        try:
            flat = flatten_up_to(output_types, values)
        except (TypeError, ValueError) as e:
            raise TypeError(
                "`generator` yielded an element that did not match the expected structure. "
                f"The expected structure was {output_types}, but the yielded element was "
                f"{values}.") from e
        arrays = []
        for ret, dtype in zip(flat, flat_types):
            try:
                arrays.append(_convert(ret, dtype))
            except (TypeError, ValueError) as e:
                raise TypeError(
                    "`generator` yielded an element that could not be converted to the "
                    f"expected type. The expected type was {dtype.name}, but the yielded "
                    f"element was {ret}.") from e
        for arr, shape in zip(arrays, flat_shapes):
            if not shape.is_compatible_with(TensorShape(arr.shape)):
                raise ValueError(
                    f"`generator` yielded an element of shape {arr.shape} where an element "
                    f"of shape {shape} was expected.")
        return arrays

    return generator_py_func


class ParallelMethods:
    """Mixed into DatasetV1: its methods build ops with `self._apply` and `self._traced`."""

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1,
                   num_parallel_calls=None):
        """The datasets `map_func` makes of each element, `cycle_length` read in turn,
        `block_length` elements at a time (in parallel with `num_parallel_calls`)."""
        fn, structure = self._dataset_function(map_func, "interleave")
        inputs = {"input_dataset": self._variant_tensor, "other_arguments": fn.captured,
                  "cycle_length": int64(cycle_length, "cycle_length"),
                  "block_length": int64(block_length, "block_length")}
        if num_parallel_calls is None:
            return self._apply("InterleaveDataset", structure, inputs, f=fn.graph)
        inputs["num_parallel_calls"] = int64(num_parallel_calls, "num_parallel_calls")
        return self._apply("ParallelInterleaveDatasetV2", structure, inputs, f=fn.graph)

    @classmethod
    def from_generator(cls, generator, output_types, output_shapes=None, args=None):
        """A dataset of the elements `generator(*args)` yields (called afresh for each
        initialization of an iterator)."""
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        if output_shapes is None:
            output_shapes = st.map_leaves(lambda _: TensorShape(None), output_types)
        else:
            output_shapes = st.pack(output_types, [as_shape(s) for s in
                                                   flatten_up_to(output_types,
                                                                    output_shapes)])
        args = () if args is None else tuple(
            convert_to_tensor(a, name="args") for a in args)
        structure = st.Structure.of(output_types, output_shapes)
        flat_types, flat_shapes = structure.flat_types, structure.flat_shapes
        state = _GeneratorState(generator)
        next_py = _generator_next(state, output_types, flat_types, flat_shapes)

        def init_fn(_):
            return script_ops.py_func(state.get_next_id, list(args), dtypes.int64)

        def next_fn(iterator_id):
            values = script_ops.py_func(next_py, [iterator_id], flat_types)
            for t, shape in zip(values, flat_shapes):
                t.set_shape(shape)
            return st.pack(structure.template, values)

        def finalize_fn(iterator_id):
            def finalize_py_func(iterator_id):
                state.iterator_completed(int(iterator_id))
                return np.array(0, dtype=np.int64)
            return script_ops.py_func(finalize_py_func, [iterator_id], dtypes.int64)

        def flat_map_fn(dummy):
            return cls._generator_dataset(dummy, init_fn, next_fn, finalize_fn, structure)

        return cls.from_tensors(0).flat_map(flat_map_fn)

    @classmethod
    def _generator_dataset(cls, init_args, init_fn, next_fn, finalize_fn, structure):
        """A GeneratorDataset (TF's _GeneratorDataset) over functions of its state."""
        graph = get_default_graph()
        arg = st.Structure.of(dtypes.int32, TensorShape([]))
        init = structured_function.trace(init_fn, arg, "from_generator", graph)
        step = structured_function.trace(next_fn, init.output, "from_generator", graph)
        fin = structured_function.trace(finalize_fn, init.output, "from_generator", graph)
        op = apply_op("GeneratorDataset", init_func_other_args=[init_args] + init.captured,
                      next_func_other_args=step.captured,
                      finalize_func_other_args=fin.captured, init_func=init.graph,
                      next_func=step.graph, finalize_func=fin.graph,
                      **element_attrs(structure))
        return cls(op.outputs[0], structure)
