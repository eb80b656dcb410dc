"""An iterator's position as a DT_STRING tensor and back, for the Saver's saveable
(`iterator_checkpoint`) and object-based checkpoints (`tf.train.Checkpoint`): the
SerializeIterator variant written out by SerializeTensor, and ParseTensor of a restored
string into DeserializeIterator."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_walk import reachable
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import colocate_with, control_dependencies
from trainflow._src.ops.dataset import iterator_state  # noqa: F401 - registers the ops
from trainflow._src.ops.string import string_codec

# An iterator's attribute in an object-based checkpoint, as TF names it: the attribute
# `ITERATOR` (checkpoint_key `<path>/.ATTRIBUTES/ITERATOR`), its tensor saved under that
# key + `_STATE`.
ITERATOR_ATTRIBUTE = "ITERATOR"
STATE_SUFFIX = "_STATE"
_FED = ("Placeholder", "PlaceholderV2")


def feedless_initializer(iterator_resource):
    """The one MakeIterator op that initializes the resource, when its dataset needs no
    feed; else None. A restore runs it first, so that a state (a position, not a
    dataset) restores into an iterator not initialized yet, as TF's does."""
    makers = [op for op in iterator_resource.consumers() if op.type == "MakeIterator"]
    if len(makers) != 1:
        return None
    behind = reachable([makers[0].inputs[0].op],
                       lambda op: [t.op for t in op.inputs] + list(op.control_inputs))
    return None if any(op.type in _FED for op in behind) else makers[0]


def state_tensor(iterator_resource, external_state_policy=0):
    """A scalar string tensor: the serialized position of the iterator resource."""
    with colocate_with(iterator_resource.op):
        state = apply_op("SerializeIterator", resource_handle=iterator_resource,
                         external_state_policy=int(external_state_policy)).outputs[0]
        return string_codec.serialize_tensor(state)


def restore_op(iterator_resource, serialized, initializer=None):
    """The op putting the iterator at the position string tensor `serialized` holds
    (after running `initializer`, if given: the state holds a position, not a dataset)."""
    with colocate_with(iterator_resource.op):
        with control_dependencies([initializer] if initializer is not None else []):
            state = string_codec.parse_tensor(serialized, dtypes.variant)
            return apply_op("DeserializeIterator", resource_handle=iterator_resource,
                            serialized=state)
