"""`tf.map_fn`, `tf.scan`, `tf.foldl` and `tf.foldr`: a Python function applied along
the first dimension of tensors, built (as TensorFlow builds them) from one
`tf.while_loop` whose loop variables include TensorArrays, so they differentiate
through the loop like any other graph.

`elems` may be a (nested) structure of tensors sharing their first dimension;
each call of `fn` sees one slice of each.
"""
from trainflow._src.framework import dtypes, nest
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array import shape
from trainflow._src.ops.control_flow.while_loop import while_loop
from trainflow._src.ops.data_flow.tensor_array import TensorArray

__all__ = ["foldl", "foldr", "map_fn", "scan"]


def _elems(elems):
    flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or a (possibly nested) sequence of Tensors. "
                         "Got an empty structure.")
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars: "
                             f"{e}")
    return flat


def _length(flat):
    static = flat[0].shape[0] if flat[0].shape.rank else None
    static = getattr(static, "value", static)
    n = static if static is not None else shape.shape(flat[0])[0]
    return n, static


def _unstacked(flat, n):
    return [TensorArray(e.dtype, size=n, element_shape=e.shape[1:] if e.shape.rank else None,
                        infer_shape=True).unstack(e) for e in flat]


def _as_dtype_list(dtype):
    return [dtypes.as_dtype(d) for d in nest.flatten(dtype)]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None):
    """Stacks fn(x) for every slice x of `elems` along its first dimension (`tf.map_fn`).

    Args:
      fn: callable taking one slice (the structure of `elems`) and returning a
        tensor or a structure of tensors; `dtype` gives that structure's dtypes
        when it differs from `elems`'.
      elems: a tensor or (nested) structure of tensors, all with the same first dim.
      parallel_iterations, swap_memory: passed to the while loop.
      back_prop: False stops gradients.
      infer_shape: require one static shape for all of fn's results.
      name: the name scope (default "map").

    Raises:
      TypeError: if `fn` is not callable.
      ValueError: for scalar or empty elems.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with get_default_graph().name_scope(name or "map"):
        flat = _elems(elems)
        out_dtypes = _as_dtype_list(dtype) if dtype is not None else [e.dtype for e in flat]
        out_structure = dtype if dtype is not None else elems
        n, static = _length(flat)
        inputs = _unstacked(flat, n)
        results = [TensorArray(dt, size=n, infer_shape=infer_shape) for dt in out_dtypes]

        def body(i, *acc):
            slices = nest.pack_sequence_as(elems, [ta.read(i) for ta in inputs])
            out = fn(slices)
            if dtype is not None:
                nest.assert_same_structure(out_structure, out, check_types=False)
            flat_out = [convert_to_tensor(o) for o in nest.flatten(out)]
            if len(flat_out) != len(acc):
                raise ValueError(f"The result of fn has {len(flat_out)} tensors but dtype "
                                 f"says {len(acc)}")
            return (i + 1,) + tuple(ta.write(i, o) for ta, o in zip(acc, flat_out))

        loop = while_loop(lambda i, *_: i < n, body, [0] + results,
                          parallel_iterations=parallel_iterations or 10,
                          back_prop=back_prop, swap_memory=swap_memory)
        stacked = [ta.stack() for ta in loop[1:]]
        for t in stacked:
            if static is not None and t.shape.rank is not None:
                t.set_shape(TensorShape([static]).concatenate(t.shape[1:]))
        return nest.pack_sequence_as(out_structure, stacked)


def _accumulation(elems, initializer, reverse):
    """What scan and fold start from: (elems' slices as TensorArrays, their count, its
    static value or None, the last index, the accumulator's structure, its flat start
    tensors, the first step): without an initializer the first slice (the last when
    `reverse`) starts it and step 0 is skipped."""
    flat = _elems(elems)
    n, static = _length(flat)
    inputs = _unstacked(flat, n)
    last = n - 1
    if initializer is None:
        start = [ta.read(last if reverse else 0) for ta in inputs]
        return inputs, n, static, last, elems, start, 1
    start = [convert_to_tensor(a) for a in nest.flatten(initializer)]
    return inputs, n, static, last, initializer, start, 0


def _step(fn, elems, inputs, acc_structure, acc, pos):
    """`fn` applied to the accumulator (`acc`, flat) and slice `pos` of `inputs`: the
    new accumulator's flat values (not yet tensors), checked to keep its structure."""
    x = nest.pack_sequence_as(elems, [ta.read(pos) for ta in inputs])
    new = fn(nest.pack_sequence_as(acc_structure, acc), x)
    nest.assert_same_structure(acc_structure, new, check_types=False)
    return nest.flatten(new)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The running accumulations a_k = fn(a_{k-1}, x_k) over the slices of `elems`,
    stacked (`tf.scan`); without an initializer a_0 is the first slice.

    Args:
      fn: callable (accumulator, slice) -> new accumulator (the initializer's
        structure, or elems' without one).
      elems: a tensor or (nested) structure of tensors with one first dimension.
      initializer: the starting accumulator.
      reverse: scan from the last slice to the first (results stay in elems' order).
      parallel_iterations, back_prop, swap_memory, infer_shape, name: as for map_fn
        (default scope "scan").
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with get_default_graph().name_scope(name or "scan"):
        inputs, n, static, last, acc_structure, start, i0 = _accumulation(
            elems, initializer, reverse)
        results = [TensorArray(a.dtype, size=n, infer_shape=infer_shape,
                               element_shape=a.shape) for a in start]
        if initializer is None:
            results = [ta.write(last if reverse else 0, a) for ta, a in zip(results, start)]
        k = len(start)

        def body(i, *state):
            acc, tas = list(state[:k]), list(state[k:])
            pos = last - i if reverse else i
            new = [convert_to_tensor(v) for v in _step(fn, elems, inputs, acc_structure, acc,
                                                       pos)]
            return (i + 1,) + tuple(new) + tuple(ta.write(pos, v) for ta, v in zip(tas, new))

        loop = while_loop(lambda i, *_: i < n, body, [i0] + start + results,
                          parallel_iterations=parallel_iterations, back_prop=back_prop,
                          swap_memory=swap_memory)
        stacked = [ta.stack() for ta in loop[1 + k:]]
        for t in stacked:
            if static is not None and t.shape.rank is not None:
                t.set_shape(TensorShape([static]).concatenate(t.shape[1:]))
        return nest.pack_sequence_as(acc_structure, stacked)


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
          reverse):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with get_default_graph().name_scope(name or ("foldr" if reverse else "foldl")):
        inputs, n, _, last, acc_structure, start, i0 = _accumulation(
            elems, initializer, reverse)

        def body(i, *acc):
            pos = last - i if reverse else i
            new = _step(fn, elems, inputs, acc_structure, list(acc), pos)
            return (i + 1,) + tuple(convert_to_tensor(v) for v in new)

        loop = while_loop(lambda i, *_: i < n, body, [i0] + start,
                          parallel_iterations=parallel_iterations, back_prop=back_prop,
                          swap_memory=swap_memory)
        return nest.pack_sequence_as(acc_structure, list(loop[1:]))


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """fn applied from the first slice of `elems` to the last, carrying an accumulator;
    returns the final accumulator (`tf.foldl`)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 reverse=False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """fn applied from the last slice of `elems` to the first, carrying an accumulator;
    returns the final accumulator (`tf.foldr`)."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 reverse=True)
