"""`tf.cond` in TF1 graph form: Switch and Merge ops around two branch contexts.

`cond(pred, true_fn, false_fn)` builds, under a `cond` name scope:

  cond/Switch (pred, pred) -> cond/switch_t, cond/switch_f (the branch pivots)
  cond/pred_id             -> the predicate every branch Switch keys on
  true_fn's ops            (in a CondContext, branch 1)
  false_fn's ops           (in a CondContext, branch 0)
  cond/Merge, cond/Merge_1 ... one per output (inputs: false value, true value)

While a branch function runs, the graph's `_state.cond_context` is the branch's
CondContext; the graph calls its `add_op` for every new op. `add_op` routes each
input that comes from outside the branch through a Switch on `pred_id` (so the
op is dead, and skipped, when the other branch is taken) and gives ops without
inputs a control input on the pivot. Ops inside a branch cannot be fetched, as
in TensorFlow.
"""
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework import nest
from trainflow._src.ops.control_flow.switch import merge, switch, switch_ref_or_tensor
from trainflow._src.framework.kernel_context import DEAD
from trainflow._src.ops.control_flow.grouping import identity_like, no_op, with_dependencies

_MERGE_READS_DEAD_REFS = hasattr(DEAD, "get")


def op_in_context(op, ctx):
    """True if `op` was built in `ctx` or in a context nested inside it."""
    c = op._cond_context
    while c is not None:
        if c is ctx:
            return True
        c = c.outer_context
    return False


class CondContext:
    """The context of one branch of a cond.

    Attributes:
      pred: the `pred_id` tensor the branch Switches key on.
      pivot: `switch_t` or `switch_f`; ops without inputs depend on it.
      branch: 1 for the true branch, 0 for the false branch.
      outer_context: the enclosing CondContext, or None.
    """

    def __init__(self, pred, pivot, branch, outer_context=None):
        self.pred = pred
        self.pivot = pivot
        self.branch = branch
        self.outer_context = outer_context
        self._graph = pred.graph
        self._values = {pred, pivot}
        self._external_values = {pred: pred}
        self._saved = None
        pivot.op._cond_context = self

    # -- entering and leaving ----------------------------------------------------
    def __enter__(self):
        state = self._graph._state
        self._saved = state.cond_context
        state.cond_context = self
        return self

    def __exit__(self, *exc):
        self._graph._state.cond_context = self._saved
        return False

    def _mark_seen(self, tensor):
        ctx = self
        while ctx is not None:
            ctx._values.add(tensor)
            ctx = ctx.outer_context

    # -- the hooks used by the graph ------------------------------------------------
    def add_value(self, val):
        """The tensor to use inside this branch for `val` (a Switch output when `val`
        comes from outside the branch)."""
        if val in self._values:
            result = self._external_values.get(val)
            return val if result is None else result
        result = val
        self._values.add(val)
        if self.outer_context is not None:
            result = self.outer_context.add_value(val)
            self._values.add(result)
            self._external_values[result] = result
        # As in TF, control_dependencies(None) also leaves every control-flow
        # context while the Switch is made, so no context rewires its inputs.
        state = self._graph._state
        saved, state.cond_context = state.cond_context, None
        try:
            with self._graph.control_dependencies(None):
                result = switch_ref_or_tensor(result, self.pred)[self.branch]
        finally:
            state.cond_context = saved
        self._graph.prevent_fetching(result.op)
        result.op._cond_context = self
        self._mark_seen(result)
        self._external_values[val] = result
        return result

    def add_op(self, op):
        """Called by the graph for each op created in this branch."""
        if not op._inputs:
            if not any(op_in_context(c, self) for c in op._control_inputs):
                op._add_control_input(self.pivot.op)
        else:
            for index, x in enumerate(op._inputs):
                real_x = self.add_value(x)
                if real_x is not x:
                    op._update_input(index, real_x)
        for t in op._outputs:
            self._mark_seen(t)
        self._graph.prevent_fetching(op)

    # -- building a branch ----------------------------------------------------------
    def _process_output_tensor(self, val):
        real_val = val
        if val not in self._values:
            self._values.add(val)
            if self.outer_context is not None:
                real_val = self.outer_context.add_value(val)
                self._values.add(real_val)
                self._external_values[real_val] = real_val
            real_val = switch_ref_or_tensor(real_val, self.pred)[self.branch]
            self._external_values[val] = real_val
        else:
            external = self._external_values.get(val)
            if external is not None:
                real_val = external
        return real_val

    def _build_cond_tensor(self, v):
        if isinstance(v, Operation):
            return with_dependencies([v], self.pivot)
        parts = _components(v)
        if parts is not None:
            return _rebuild(v, [None if p is None else self._build_cond_tensor(p)
                                for p in parts])
        t = convert_to_tensor(v)
        if t.dtype._is_ref_dtype and not _MERGE_READS_DEAD_REFS:
            # The executor reads ref inputs of Merge with `.get()`, which a dead
            # value lacks; read the ref inside the branch instead.
            t = apply_op("Identity", input=t).outputs[0]
        return self._process_output_tensor(t)

    def build_branch(self, fn):
        """Calls `fn` inside this context.

        Returns:
          (original result, list of branch output tensors), or (None, None).
        """
        graph = self._graph
        pre = graph.get_collection(GraphKeys._SUMMARY_COLLECTION)
        original = fn()
        post = graph.get_collection(GraphKeys._SUMMARY_COLLECTION)
        if len(post) > len(pre):
            graph.get_collection_ref(GraphKeys._SUMMARY_COLLECTION)[:] = pre
            with graph.control_dependencies(post[len(pre):]):
                if original is None:
                    return no_op(), None
                if not isinstance(original, Operation):
                    original = nest.map_structure(identity_like, original)
        if original is None:
            return None, None
        result = nest.map_structure(self._build_cond_tensor, original)
        if not isinstance(result, (list, tuple)):
            result = [result]
        return original, result


def _components(value):
    """The component tensors of an IndexedSlices or SparseTensor, else None."""
    kind = type(value).__name__
    if kind == "IndexedSlices":
        return [value.values, value.indices, value.dense_shape]
    if kind == "SparseTensor":
        return [value.indices, value.values, value.dense_shape]
    return None


def _rebuild(like, parts):
    """A composite like `like` made of `parts` (in `_components` order)."""
    return type(like)(*parts)


def _merge_pair(f, t):
    """Merges one output of the two branches (composites component-wise)."""
    parts_f, parts_t = _components(f), _components(t)
    if parts_f is None and parts_t is None:
        return merge([f, t])[0]
    if (parts_f[2] is None) != (parts_t[2] is None):
        raise TypeError("Incompatible return types of 'true_fn' and 'false_fn': one "
                        f"{type(t).__name__} has a dense_shape and the other has none")
    return _rebuild(t, [None if a is None else merge([a, b])[0]
                        for a, b in zip(parts_f, parts_t)])


def _unpack_if_singleton(res):
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """Returns `true_fn()` if `pred` is true else `false_fn()` (TF1 `tf.cond`).

    Both branches are built; when the graph runs only the taken branch's ops run.

    Args:
      pred: a scalar bool Tensor (a Python bool is rejected, as in TensorFlow).
      true_fn, false_fn: callables returning the same structure of tensors
        (or an Operation).
      strict: keep singleton lists/tuples instead of unpacking them.
      name: name scope (default "cond").
      fn1, fn2: deprecated spellings of true_fn and false_fn.

    Returns:
      the merged outputs, in the structure `true_fn` returned.

    Raises:
      TypeError: for a Python bool or non-bool pred, non-callable branches, or
        branch results of different sequence types.
      ValueError: if a branch returns None, the structures or dtypes differ.
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): 'true_fn' and 'fn1' may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): 'false_fn' and 'fn2' may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")

    with name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        p_2, p_1 = switch(pred, pred)
        graph = p_1.graph
        pivot_1 = apply_op("Identity", input=p_1, name="switch_t").outputs[0]
        pivot_2 = apply_op("Identity", input=p_2, name="switch_f").outputs[0]
        pred = apply_op("Identity", input=pred, name="pred_id").outputs[0]
        for t in (p_1, pivot_1, pivot_2, pred):
            graph.prevent_fetching(t.op)

        outer = graph._state.cond_context
        context_t = CondContext(pred, pivot_1, 1, outer)
        with context_t:
            orig_res_t, res_t = context_t.build_branch(true_fn)
        if orig_res_t is None:
            raise ValueError("'true_fn' must have a return value.")
        context_f = CondContext(pred, pivot_2, 0, outer)
        with context_f:
            orig_res_f, res_f = context_f.build_branch(false_fn)
        if orig_res_f is None:
            raise ValueError("'false_fn' must have a return value.")

        if not strict:
            orig_res_t = _unpack_if_singleton(orig_res_t)
            orig_res_f = _unpack_if_singleton(orig_res_f)
        nest.assert_same_structure(orig_res_t, orig_res_f)
        if not res_t:
            raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
        res_t_flat = nest.flatten(res_t)
        res_f_flat = nest.flatten(res_f)
        for x, y in zip(res_t_flat, res_f_flat):
            if (_components(x) is not None or _components(y) is not None) and \
                    type(x) is not type(y):
                raise TypeError("Incompatible return types of 'true_fn' and 'false_fn': "
                                f"{type(x).__name__} and {type(y).__name__}")
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError(
                    "Outputs of 'true_fn' and 'false_fn' must have the same type(s). "
                    f"Received {x.dtype.base_dtype.name} from 'true_fn' and "
                    f"{y.dtype.base_dtype.name} from 'false_fn'.")
        merges = [_merge_pair(f, t) for f, t in zip(res_f_flat, res_t_flat)]
        merges = nest.pack_sequence_as(orig_res_t, merges)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges
