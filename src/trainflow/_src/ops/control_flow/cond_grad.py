"""Gradients of TF1 conditionals: Switch, RefSwitch, Merge and RefMerge.

A cond routes every outside tensor into a branch through a Switch keyed on the
predicate and joins the branch results with a Merge (ops/control_flow/cond.py). The gradient
graph mirrors that, as TensorFlow's control-flow gradients do:

* Merge: the incoming gradient goes through a Switch on the same predicate, so
  only the taken branch's gradient ops get a live value. The untaken branch's
  gradient ops see DEAD inputs and the executor skips them.
* Switch: the gradient of the branch side is DEAD when that branch was not
  taken, so it is merged with zeros that are live exactly then (a ZerosLike of
  the Switch's other output, live in that case). The Merge forwards whichever
  one is live, so the tensor that entered the cond always gets a gradient.

Switches and Merges outside a cond context (built with `switch` / `merge`
directly, or imported from a GraphDef) get context-free gradients: each Switch
output's gradient is gated on the predicate before the Merge, and a Merge's
gradient goes to the input that its `value_index` output names.

IndexedSlices gradients are switched and merged component by component.
"""
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.control_flow.cond import CondContext
from trainflow._src.ops.control_flow.switch import merge, switch, switch_ref_or_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.math import arith


def _cond_context(op):
    """The CondContext `op` was built in, or None."""
    ctx = op._cond_context
    return ctx if isinstance(ctx, CondContext) else None


def switch_gradient(grad, pred, name="cond_grad"):
    """Switches a gradient (a Tensor or IndexedSlices) on `pred`.

    Returns:
      (false side, true side), of the same kind as `grad`.
    """
    if not isinstance(grad, IndexedSlices):
        return switch_ref_or_tensor(grad, pred, name=name)
    with name_scope(name, "Switch", [grad.values, pred]) as scope:
        values_f, values_t = switch(grad.values, pred, name=scope)
        indices_f, indices_t = switch(grad.indices, pred, name="indices")
        if grad.dense_shape is None:
            shape_f = shape_t = None
        else:
            shape_f, shape_t = switch(grad.dense_shape, pred, name="dense_shape")
    return (IndexedSlices(values_f, indices_f, shape_f),
            IndexedSlices(values_t, indices_t, shape_t))


def _as_slices(grad):
    """`grad` as IndexedSlices (a dense gradient becomes one slice per row)."""
    if isinstance(grad, IndexedSlices):
        return grad
    shape = shape_lib.shape_internal(grad, optimize=False)
    rows = create.range(gather.gather(shape, 0))
    return IndexedSlices(grad, rows, shape)


def merge_gradients(grads, name="cond_grad"):
    """Merges gradients (Tensors or IndexedSlices) of which at most one is live.

    Returns:
      the live gradient: a Tensor, or IndexedSlices if any input is one.
    """
    if all(isinstance(g, Tensor) for g in grads):
        return merge(grads, name=name)[0]
    with name_scope(name, "Merge", [g.values if isinstance(g, IndexedSlices) else g
                                    for g in grads]) as scope:
        slices = [_as_slices(g) for g in grads]
        values = merge([s.values for s in slices], name=scope)[0]
        indices = merge([s.indices for s in slices], name="indices")[0]
        if any(s.dense_shape is None for s in slices):
            dense_shape = None
        else:
            dense_shape = merge([s.dense_shape for s in slices], name="dense_shape")[0]
    return IndexedSlices(values, indices, dense_shape)


def _gated_zeros(tensor):
    """Zeros shaped like `tensor` that are live exactly when `tensor` is."""
    return create.zeros_like(tensor, optimize=False)


@RegisterGradient("Switch")
def _switch_grad(op, *grads):
    """Joins the gradients of both Switch outputs; no gradient for the predicate."""
    ctx = _cond_context(op)
    if ctx is not None and not op.outputs[1 - ctx.branch]._consumers:
        # A cond built this Switch and uses only the branch side: the other side's
        # gradient (filled with zeros by tf.gradients, live in every case) is
        # replaced by zeros that are live only when the branch is not taken.
        branch_grad = grads[ctx.branch]
        if branch_grad is None:
            return None, None
        pair = [None, None]
        pair[ctx.branch] = branch_grad
        pair[1 - ctx.branch] = _gated_zeros(op.outputs[1 - ctx.branch])
        return merge_gradients(pair), None
    pred = op.inputs[1]
    gated = []
    for side, grad in enumerate(grads):
        if grad is None:
            grad = _gated_zeros(op.outputs[side])
        gated.append(switch_gradient(grad, pred)[side])
    return merge_gradients(gated), None


@RegisterGradient("RefSwitch")
def _ref_switch_grad(op, *grads):
    """As Switch: the gradient reaches the variable behind the ref."""
    return _switch_grad(op, *grads)


def _merge_predicate(op):
    """The predicate of the cond whose branches `op` joins, or None."""
    ctx = _cond_context(op.inputs[0].op)
    if ctx is None or len(op.inputs) != 2:
        return None
    # The branch outputs sit in the branch contexts; walk up to the context whose
    # Merge this is (its parent is the Merge's own context).
    while ctx.outer_context is not op._cond_context:
        ctx = ctx.outer_context
        if ctx is None:
            return None
    return ctx.pred


@RegisterGradient("Merge")
def _merge_grad(op, grad, _):
    """Sends the gradient down the input that was live (the taken branch)."""
    pred = _merge_predicate(op)
    if pred is not None:
        return list(switch_gradient(grad, pred))
    out = []
    for i in range(len(op.inputs)):
        taken = arith.equal(op.outputs[1], i)
        out.append(switch_gradient(grad, taken)[1])
    return out


@RegisterGradient("RefMerge")
def _ref_merge_grad(op, grad, _):
    """As Merge."""
    return _merge_grad(op, grad, _)
