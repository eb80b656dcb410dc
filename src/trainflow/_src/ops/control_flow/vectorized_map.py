"""`tf.vectorized_map`: TensorFlow vectorizes `fn` with pfor when it can and otherwise
falls back to a while loop; trainflow always takes that fallback (`map_fn`), which
gives the same values, shapes and gradients."""
from trainflow._src.framework import nest
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow.functional_ops import map_fn


def _output_dtypes(fn, elems):
    """The structure of dtypes fn returns, found by calling it once on placeholders in
    a scratch function body (which captures the outer tensors it reads)."""
    graph = get_default_graph()
    probe = FuncGraph("vectorized_map_probe", graph)
    flat = nest.flatten(elems)
    with probe.as_default():
        args = [probe.add_input(e.dtype, e.shape[1:] if e.shape.rank else None, f"elem_{i}")
                for i, e in enumerate(flat)]
        out = fn(nest.pack_sequence_as(elems, args))
        return nest.map_structure(lambda o: convert_to_tensor(o).dtype.base_dtype, out)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """Stacks fn(x) for every slice x of `elems` along its first dimension, like
    `map_fn` with the result's dtypes found from `fn` itself."""
    elems = nest.map_structure(lambda e: convert_to_tensor(e, name="elem"), elems)
    dtype = _output_dtypes(fn, elems)
    return map_fn(fn, elems, dtype=dtype, name="loop_body")
