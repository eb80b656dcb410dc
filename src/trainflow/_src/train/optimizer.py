"""`tf.train.Optimizer`: the base class of the TF1 optimizers.

Subclasses supply `_create_slots`, `_prepare`, `_apply_dense`, `_apply_sparse` (and
optionally `_finish`); the base class computes gradients, converts and checks them,
creates slots, sums duplicate sparse indices, names and colocates the update ops
as TensorFlow does, and increments `global_step` after the update.
"""
import contextlib

from trainflow._src.framework import dtypes, graph_walk
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.nest_util import flatten_plain
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import (
    convert_to_tensor, convert_to_tensor_or_indexed_slices)
from trainflow._src.gradients.gradients_impl import gradients, is_trainable
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import init_ops, resource_variable_ops, state_ops, variables
from trainflow._src.train import slot_creator


def _var_key(var):
    return (var.op.graph, var.op.name)


def _is_indexed_slices(g):
    return isinstance(g, IndexedSlices)


def deduplicate_indexed_slices(values, indices):
    """Sums `values` rows that share an index. Returns (summed_values, unique_indices)."""
    unique_indices, new_positions = array_ops.unique(indices)
    summed = math_ops.unsorted_segment_sum(values, new_positions,
                                           array_ops.shape(unique_indices)[0])
    return summed, unique_indices


def check_positive_initial_value(value, arg_name):
    """Raises ValueError unless a slot's starting `value` (argument `arg_name`) is positive."""
    if value <= 0.0:
        raise ValueError("%s must be positive: %s" % (arg_name, value))


class Optimizer:
    """Base class for optimizers (`tf.compat.v1.train.Optimizer`).

    Args:
      use_locking: use locks for the update operations.
      name: the optimizer's name, used for slot names and the update scope.

    Raises:
      ValueError: if `name` is empty.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}
        self._non_slot_dict = {}

    def get_name(self):
        """The optimizer's name."""
        return self._name

    # -- the public contract ---------------------------------------------------------
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """compute_gradients + apply_gradients in one call.

        Returns:
          the training Operation (it also increments `global_step` if given).

        Raises:
          ValueError: if no variable gets a gradient; the message says, per variable,
            why (not connected to the loss).
        """
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[str(v) for _, v in grads_and_vars]} "
                f"and loss {loss}." + (_why_no_gradients(loss, [v for _, v in grads_and_vars])
                                       if isinstance(loss, Tensor) else ""))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """Gradients of `loss` for the variables in `var_list`.

        `loss` may be a callable returning the loss (TF's eager-style form); with no
        `var_list` it then differentiates for the trainable variables the loss reads,
        and the gradients run after the loss (control dependency). `var_list` may hold
        Tensors as well as Variables: their gradients are returned too (applying one
        is an error, as in TF).

        Returns:
          a list of (gradient or None, variable) pairs.

        Raises:
          ValueError: for an invalid gate_gradients, no variables, or bad dtypes.
        """
        loss_fn = None
        if callable(loss) and not isinstance(loss, Tensor):
            loss_fn, loss = loss, loss()
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             "Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not %s" % gate_gradients)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = variables.trainable_variables() + get_default_graph().get_collection(
                GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
            if loss_fn is not None:
                var_list = _variables_read_by(loss, var_list)
        else:
            var_list = flatten_plain(var_list)
        var_list = list(var_list) + get_default_graph().get_collection(
            GraphKeys._STREAMING_MODEL_PORTS)
        if not var_list:
            raise ValueError("No variables to optimize.")
        for v in var_list:
            if not isinstance(v, (variables.Variable, Tensor)):
                raise TypeError(f"Trying to optimize unsupported type {v}")
        var_refs = [v if isinstance(v, Tensor) else v._ref() for v in var_list]
        after_loss = (get_default_graph().control_dependencies([loss]) if loss_fn
                      else contextlib.nullcontext())
        with after_loss:
            grads = gradients(loss, var_refs, grad_ys=grad_loss,
                              gate_gradients=(gate_gradients == Optimizer.GATE_OP),
                              aggregation_method=aggregation_method,
                              colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Applies (gradient, variable) pairs; then increments `global_step` if given.

        Returns:
          the training Operation.

        Raises:
          TypeError: if a gradient is neither a Tensor, IndexedSlices nor None, or a
            pair is malformed.
          ValueError: if there are no pairs or no gradient is given.
        """
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for pair in grads_and_vars:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"grads_and_vars must be (gradient, variable) pairs, got {pair!r}")
            g, v = pair
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except TypeError:
                    raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, "
                                    f"or None: {g}") from None
                if not isinstance(g, Tensor) and not _is_indexed_slices(g):
                    raise TypeError(f"Gradient must be a Tensor, IndexedSlices, or None: {g}")
            if not isinstance(v, variables.Variable):
                raise TypeError(f"Trying to update unsupported type {v!r} (not a tf.Variable)")
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: "
                             f"{[str(v) for _, v in converted]}.")
        graph = get_default_graph()
        # Slots are made outside any control dependencies or cond branch (TF's init_scope),
        # so an apply_gradients inside a cond (loss scaling) still initializes them.
        with variables.init_scope(graph):
            self._create_slots(var_list)
        update_ops = []
        with graph.name_scope(name or self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with graph.name_scope("update_" + var.op.name), graph.colocate_with(var.op):
                    update_ops.append(self._update_op(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]):
                    with graph.colocate_with(global_step.op):
                        apply_updates = _increment(global_step, scope)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_ops:
                train_ops.append(apply_updates)
            return apply_updates

    def _update_op(self, grad, var):
        update = self._update(grad, var)
        # Ref Apply ops give their ref tensor, resource ones an Operation.
        return update.op if isinstance(update, Tensor) else update

    def _update(self, grad, var):
        if isinstance(grad, Tensor):
            update = self._apply_dense(grad, var)
            if getattr(var, "constraint", None) is not None:
                with get_default_graph().control_dependencies([update]):
                    return var.assign(var.constraint(var))
            return update
        if getattr(var, "constraint", None) is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        return self._apply_sparse_duplicate_indices(grad, var)

    # -- slots ---------------------------------------------------------------------------
    def get_slot(self, var, name):
        """The slot variable `name` created for `var`, or None."""
        named = self._slots.get(name)
        if not named:
            return None
        return named.get(_var_key(var))

    def get_slot_names(self):
        """Sorted names of the slots this optimizer created."""
        return sorted(self._slots)

    def variables(self):
        """The optimizer's variables in the current graph: non-slot variables then slots,
        sorted by name."""
        graph = get_default_graph()
        current = [v for (n, g), v in self._non_slot_dict.items() if g is graph]
        for named in self._slots.values():
            current.extend(v for (g, _), v in named.items() if g is graph)
        return sorted(current, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slot_creator.create_slot(var, val, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name,
                                           op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name)
        return named[_var_key(var)]

    def _zeros_slot(self, var, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slot_creator.create_zeros_slot(var, op_name)
        return named[_var_key(var)]

    def _constant_slot(self, var, value, slot_name, ones=False):
        """A slot starting at `value` everywhere, from an initializer (as Adagrad and
        RMSProp make theirs); a filled tensor when the shape is not fully known."""
        dtype = var.dtype.base_dtype
        shape = var.get_shape()
        if not shape.is_fully_defined():
            return self._filled_slot(var, value, slot_name)
        init = init_ops.ones_initializer(dtype=dtype) if ones else \
            init_ops.constant_initializer(value, dtype=dtype)
        return self._get_or_make_slot_with_initializer(var, init, shape, dtype, slot_name,
                                                       self._name)

    def _filled_slot(self, var, value, slot_name):
        """A slot initialized from a tensor of `value`s shaped like `var`, made next to it."""
        graph = get_default_graph()
        dtype = var.dtype.base_dtype
        with graph.colocate_with(var.op):
            if var.get_shape().is_fully_defined():
                val = constant(value, shape=var.get_shape().as_list(), dtype=dtype)
            else:
                val = math_ops.cast(array_ops.fill(array_ops.shape(var.initialized_value()),
                                                   value), dtype)
        return self._get_or_make_slot(var, val, slot_name, self._name)

    def _hyper_tensor(self, value, name):
        """The hyperparameter `value` (a float, Tensor or callable) as a Tensor."""
        return convert_to_tensor(self._call_if_callable(value), name=name)

    @staticmethod
    def _cast_to(value, var):
        """`value` cast to `var`'s dtype (TF's optimizers cast every hyperparameter)."""
        return math_ops.cast(value, var.dtype.base_dtype)

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        graph = colocate_with.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            with graph.colocate_with(colocate_with.op):
                v = variables.Variable(
                    initial_value, name=name, trainable=False,
                    use_resource=getattr(colocate_with, "_is_resource_variable", False))
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph or get_default_graph()))

    def _non_slot_variables(self):
        return self._non_slot_dict.values()

    # -- hooks for subclasses --------------------------------------------------------------
    def _create_slots(self, var_list):
        """Creates the slots the optimizer needs for `var_list`."""

    def _prepare(self):
        """Creates the hyperparameter tensors; called inside the update name scope."""

    def _apply_dense(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_dense")

    def _apply_sparse(self, grad, var):
        raise NotImplementedError(f"{type(self).__name__} does not implement _apply_sparse")

    def _apply_sparse_duplicate_indices(self, grad, var):
        """Sums duplicate indices of `grad`, then calls `_apply_sparse`."""
        summed, unique = deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed, unique, grad.dense_shape), var)

    def _finish(self, update_ops, name_scope):
        return control_flow_ops.group(*update_ops, name=name_scope)

    def _call_if_callable(self, param):
        return param() if callable(param) else param

    _valid_dtypes_set = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)

    def _valid_dtypes(self):
        return set(self._valid_dtypes_set)

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError(f"Invalid type {dtype!r} for {t.name}, expected: "
                                 f"{[v for v in sorted(valid, key=lambda d: d.name)]}.")


def _variables_read_by(loss, var_list):
    """The variables of `var_list` that `loss` depends on (what a tape would watch)."""
    wanted = {v.op: v for v in var_list}
    found = set()
    seen = set()
    stack = [loss.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op in wanted:
            found.add(op)
        stack.extend(t._op for t in op._inputs)
        stack.extend(op._control_inputs)
    return [v for v in var_list if v.op in found]


def _increment(global_step, name):
    if getattr(global_step, "_is_resource_variable", False):
        return resource_variable_ops.assign_add_variable_op(
            global_step.handle, convert_to_tensor(1, dtype=global_step.dtype), name=name)
    return state_ops.assign_add(global_step, 1, name=name)


def _why_no_gradients(loss, var_list):
    """One line per variable saying why no gradient reaches it from `loss`."""
    lines = []
    # For each op the loss depends on: (the consumer it was reached from, the tensor).
    ancestors = graph_walk.reachable_with_links(
        [loss.op], lambda op: [(t._op, t) for t in op._inputs])
    for v in var_list:
        op = v.op
        if op not in ancestors:
            lines.append(f"  {v.name}: not connected to the loss")
            continue
        blocker = None
        cur = op
        while ancestors.get(cur) is not None:
            consumer, t = ancestors[cur]
            if not is_trainable(t):
                blocker = (consumer, f"integer/bool tensor {t.name}")
            cur = consumer
        if blocker is not None:
            lines.append(f"  {v.name}: blocked at op {blocker[0].name} of type "
                         f"{blocker[0].type} ({blocker[1]})")
        else:
            lines.append(f"  {v.name}: the path to the loss has no differentiable route "
                         "(a gradient function returned None)")
    return "\n" + "\n".join(lines) if lines else ""
