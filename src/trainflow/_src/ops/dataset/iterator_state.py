"""Iterator state as a value: SerializeIterator (the position of an iterator resource, a
variant holding `IteratorState`) and DeserializeIterator (puts the resource there).

The state carries the element types and shapes and the kinds of the datasets it was
taken from, so restoring it into an iterator over another pipeline is
InvalidArgumentError, not a wrong element. SerializeTensor / ParseTensor carry it as a
string (`variant_codec`, type name "tensorflow::Iterator"); `state_codec` is the format.
"""
from trainflow._src import tf_logging as logging
from trainflow._src.framework import dtypes, errors, registry, variant_codec
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.ops.dataset.dataset_function import DatasetFunction
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset import state_codec
from trainflow._src.ops.dataset.dataset_op import scalar_shape
from trainflow._src.ops.dataset.iterator_ops import resource_of

TYPE_NAME = "tensorflow::Iterator"


class IteratorState:
    """The serialized position of one iterator (bytes in `state_codec`'s format)."""

    __slots__ = ("data",)

    def __init__(self, data):
        self.data = bytes(data)

    def variant_encode(self):
        return TYPE_NAME, self.data

    def __repr__(self):
        return f"IteratorState({len(self.data)} bytes)"


variant_codec.register(TYPE_NAME, IteratorState)


def dataset_kinds(dataset):
    """The kinds of `dataset` and of the datasets it reads, as a nested list."""
    return [type(dataset).__name__] + [dataset_kinds(d) for d in dataset.inputs()]


# SerializeIterator's external_state_policy: what a pipeline with state outside it
# (stateful ops or captured variables in its functions) does on save.
POLICY_WARN, POLICY_IGNORE, POLICY_FAIL = 0, 1, 2
_NOT_STATE = {"Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "Const", "NoOp"}


def _function_graphs(dataset):
    """The function graphs the datasets of `dataset`'s tree call."""
    stack, seen = [dataset], set()
    while stack:
        d = stack.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        stack.extend(d.inputs())
        for value in getattr(d, "__dict__", {}).values():
            if isinstance(value, DatasetFunction):
                yield from (a for a in value.op._attrs.values() if isinstance(a, FuncGraph))


def external_state(dataset):
    """What makes `dataset`'s functions depend on state outside the pipeline: the types of
    their stateful ops and the variables they capture (nested functions included)."""
    found, graphs, seen = [], list(_function_graphs(dataset)), set()
    while graphs:
        fg = graphs.pop()
        if id(fg) in seen:
            continue
        seen.add(id(fg))
        for c in fg.captures:
            if c.outer.dtype._is_ref_dtype or c.outer.dtype.base_dtype == dtypes.resource:
                found.append(f"{c.outer.op.name} (a captured variable)")
        for op in fg.get_operations():
            graphs.extend(a for a in op._attrs.values() if isinstance(a, FuncGraph))
            if op.type in _NOT_STATE or any(t.dtype == dtypes.variant for t in op.outputs):
                continue
            info = registry.get(op.type)
            if info.stateful:
                found.append(op.type)
    return found


def _element_spec(resource):
    return {"types": [t.name for t in resource.output_types],
            "shapes": [None if s.rank is None else s.as_list()
                       for s in resource.output_shapes]}


def serialize(resource, external_state_policy=POLICY_WARN):
    """The state of `resource`'s current pass as bytes."""
    with resource.lock:
        dataset = resource.dataset
    if dataset is None:
        raise errors.FailedPreconditionError(
            None, None, "Cannot serialize an iterator that has not been initialized: run its "
                        "initializer (or one get_next of a one-shot iterator) first.")
    if external_state_policy != POLICY_IGNORE:
        state = external_state(dataset)
        if state and external_state_policy == POLICY_FAIL:
            raise errors.FailedPreconditionError(None, None, f"{state[0]} is stateful.")
        if state:
            logging.warning("The iterator state does not hold the state of %s: a restored "
                            "pipeline reads on from its position with that state as it is "
                            "then.", ", ".join(sorted(set(state))))
    return state_codec.encode({"element": _element_spec(resource),
                               "dataset": dataset_kinds(dataset),
                               "position": resource.save()})


def _check_compatible(resource, saved):
    element = saved.get("element") if isinstance(saved, dict) else None
    if not isinstance(element, dict) or not {"dataset", "position"} <= set(saved):
        raise errors.InvalidArgumentError(None, None, "Invalid iterator state: missing "
                                                      "its element spec or position")
    want = _element_spec(resource)
    if element.get("types") != want["types"]:
        raise errors.InvalidArgumentError(
            None, None, f"Iterator state holds elements of types {element.get('types')!r:.200}"
                        f" but the iterator has types {want['types']}")
    if element != want:
        raise errors.InvalidArgumentError(
            None, None, f"Iterator state holds elements of shapes "
                        f"{element.get('shapes')!r:.200} but the iterator has shapes "
                        f"{want['shapes']}")
    with resource.lock:
        dataset = resource.dataset
    if dataset is None:
        raise errors.FailedPreconditionError(
            None, None, "Cannot restore an iterator that has not been initialized: run its "
                        "initializer first (the state holds a position, not the dataset).")
    if saved["dataset"] != dataset_kinds(dataset):
        raise errors.InvalidArgumentError(
            None, None, f"Iterator state was taken from a pipeline {saved['dataset']!r:.300} but "
                        f"the iterator reads {dataset_kinds(dataset)}")


def deserialize(resource, blob):
    """Puts `resource` at the position `blob` holds."""
    saved = state_codec.decode(blob)
    _check_compatible(resource, saved)
    try:
        resource.restore(saved["position"])
    except errors.OpError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid iterator state: it does not fit the pipeline "
                        f"({type(e).__name__}: {e})") from None


def _state_of(value, op):
    value = value[()] if getattr(value, "ndim", None) == 0 else value
    if not isinstance(value, IteratorState):
        raise errors.InvalidArgumentError(
            None, op, f"DeserializeIterator expects an iterator state variant, got "
                      f"{type(value).__name__}")
    return value


def _serialize_kernel(resource_handle, *, external_state_policy, ctx):
    return dv.variant(IteratorState(serialize(resource_of(resource_handle, ctx.op),
                                              external_state_policy)))


def _deserialize_kernel(resource_handle, serialized, *, ctx):
    deserialize(resource_of(resource_handle, ctx.op), _state_of(serialized, ctx.op).data)


register_op("SerializeIterator", inputs=["resource_handle: resource"],
            outputs=["serialized: variant"], attrs=["external_state_policy: int = 0"],
            shape_fn=scalar_shape, kernel=_serialize_kernel, stateful=True, host_only=True)
register_op("DeserializeIterator", inputs=["resource_handle: resource",
                                           "serialized: variant"],
            shape_fn=scalar_shape, kernel=_deserialize_kernel, stateful=True,
            host_only=True)
for _name in ("SerializeIterator", "DeserializeIterator"):
    NotDifferentiable(_name)
