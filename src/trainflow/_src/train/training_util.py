"""Global-step utilities of tf.train."""
from trainflow._src import tf_logging
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.state import init_ops, state_ops, variable_scope, variables

GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def global_step(sess, global_step_tensor):
    """The value of the global step in `sess` as a Python int."""
    return int(sess.run(global_step_tensor))


def get_global_step(graph=None):
    """The global-step variable of `graph` (collection GLOBAL_STEP, else `global_step:0`),
    or None (also when the collection holds several, which is logged as an error).

    Raises:
      TypeError: if it is not an integer scalar.
    """
    graph = graph or get_default_graph()
    candidates = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(candidates) == 1:
        step = candidates[0]
    elif not candidates:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
    else:
        tf_logging.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(step)
    return step


def create_global_step(graph=None):
    """Creates the int64 scalar `global_step` variable (zeros, not trainable).

    Raises:
      ValueError: if the graph already has one.
    """
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return variable_scope.get_variable(
            GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
            initializer=init_ops.zeros_initializer(), trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The global-step variable, created if absent."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def assert_global_step(global_step_tensor):
    """Raises TypeError unless `global_step_tensor` is an integer scalar Variable/Tensor."""
    if not isinstance(global_step_tensor, (Tensor, variables.Variable)):
        raise TypeError(f"Existing \"global_step\" must be a Variable or Tensor: "
                        f"{global_step_tensor}.")
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f"Existing \"global_step\" does not have integer type: "
                        f"{global_step_tensor.dtype}")
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f"Existing \"global_step\" is not scalar: {shape}")


def _get_global_step_read(graph=None):
    """The cached `global_step + 0` read of the graph, or None."""
    graph = graph or get_default_graph()
    reads = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(reads) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}. "
                           "There should be only one.")
    return reads[0] if reads else None


def _get_or_create_global_step_read(graph=None):
    """A read of the global step (`global_step/add`) made once per graph, or None
    without a global step; it reads the initial value while the step is uninitialized."""
    graph = graph or get_default_graph()
    read = _get_global_step_read(graph)
    if read is not None:
        return read
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default(), graph.name_scope(None), \
            graph.name_scope(step.op.name + "/"):
        if isinstance(step, variables.Variable):
            value = cond(state_ops.is_variable_initialized(step._ref()), step.read_value,
                         lambda: step.initial_value)
        else:
            value = step
        graph.add_to_collection(GLOBAL_STEP_READ_KEY, value + 0)
    return _get_global_step_read(graph)


def global_step_read_or_raise(hook_name):
    """The global step the hooks fetch. (TF's hooks fetch the shared read
    `_get_or_create_global_step_read()`; under the XLA backend its cond does not yet cross
    tasks, so the hooks read the variable.)

    Raises:
      RuntimeError: the graph has no global step.
    """
    read = get_global_step()
    if read is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return read


def _increment_global_step(increment, graph=None):
    """assign_add(global_step, increment) after the cached read (used by hooks).

    Raises:
      ValueError: if the graph has no global step.
    """
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        raise ValueError("Global step tensor should be created by "
                         "tf.train.get_or_create_global_step before calling increment.")
    read = _get_or_create_global_step_read(graph)
    with graph.as_default(), graph.name_scope(None), \
            graph.name_scope(step.op.name + "/"), graph.control_dependencies([read]):
        return state_ops.assign_add(step, increment)
