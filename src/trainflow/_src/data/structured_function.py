"""Tracing a user's function over dataset elements into a function graph.

The function is called with the element as tf.data passes it: a tuple is spread over
the arguments, anything else (a dict, a namedtuple, one tensor) is one argument. Its
result is normalized (lists and Python values become tensors, a returned Dataset its
variant) and becomes the graph's outputs. Tensors of the outer graph it uses are
captured: they are passed to the dataset op as `other_arguments`, in `external_order`.
"""
import itertools
import re

from trainflow._src.data import element_codec
from trainflow._src.data import structure as st
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.tensor_conversion import convert_to_tensor

_ids = itertools.count(1)


def function_name(transformation, fn):
    """A unique, valid function name such as "Dataset_map_parse_3"."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", getattr(fn, "__name__", "fn"))
    return f"Dataset_{transformation}_{base}_{next(_ids)}"


def call_with_element(fn, element):
    """`fn` called as tf.data calls a user function on `element`."""
    if type(element) is tuple:
        return fn(*element)
    return fn(element)


class TracedFunction:
    """A traced function: `graph` (set as the op's func attr), `captured` (the outer
    tensors to pass as other_arguments), `output` (the Structure of its results)."""

    def __init__(self, graph, captured, output):
        self.graph = graph
        self.captured = captured
        self.output = output


def trace(fn, element_structure, transformation, graph, arg_structure=None):
    """Traces `fn` over elements of `element_structure` built in `graph`.

    `arg_structure` overrides what the function is called with (e.g. scan's
    (state, element)); it must flatten to the same components.
    """
    template = arg_structure if arg_structure is not None else element_structure
    fg = FuncGraph(function_name(transformation, fn), graph)
    with fg.as_default():
        args = [fg.add_input(dtype, shape, f"args_{i}")
                for i, (dtype, shape) in enumerate(zip(template.flat_types,
                                                       template.flat_shapes))]
        element = element_codec.decode(template, args)
        result = call_with_element(fn, element)
        if isinstance(result, list):  # as TF 1.x: a returned list (py_func's) is a tuple
            result = tuple(result)
        tensors, output = st.normalize(result, convert_to_tensor)
        fg.outputs = element_codec.encode(tensors)
    captured = []
    for c in fg.captures:
        if c.outer not in captured:
            captured.append(c.outer)
    fg.external_order = captured
    fg.external_index = {t: i for i, t in enumerate(captured)}
    return TracedFunction(fg, captured, output)
