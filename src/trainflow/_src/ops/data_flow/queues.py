"""TF1's queue classes: QueueBase, FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue and
PriorityQueue, building the V2 queue ops of `queue_ops`."""
import hashlib

from trainflow._src.ops.array.gather import gather
from trainflow._src.ops.array.join import stack
from trainflow._src.framework import dtypes as dtypes_mod
from trainflow._src.framework import random_seed
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.data_flow import queue_ops  # noqa: F401  (registers the ops)

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue",
           "PriorityQueue"]


def _as_type_list(dtypes):
    if isinstance(dtypes, (list, tuple)):
        return [dtypes_mod.as_dtype(d) for d in dtypes]
    return [dtypes_mod.as_dtype(dtypes)]


def _as_shape_list(shapes, dtypes, unknown_dim_allowed=False, unknown_rank_allowed=False):
    if shapes is None:
        return None
    # An empty list or tuple is one scalar shape, as in TF (`shapes=()`).
    if isinstance(shapes, TensorShape) or not isinstance(shapes, (list, tuple)) or \
            not shapes or (shapes and not isinstance(shapes[0], (list, tuple, TensorShape)) and
             shapes[0] is not None):
        shapes = [shapes]
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if not unknown_rank_allowed and any(s.rank is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _shared_name(shared_name):
    return shared_name or ""


class QueueBase:
    """Base class for queue implementations: a queue holds tuples of tensors.

    Args:
      dtypes: the component types.
      shapes: the component shapes (TensorShapes) or None.
      names: the component names (dequeue then returns dicts) or None.
      queue_ref: the queue's resource handle tensor.
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = list(dtypes)
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [as_shape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
            self._names = list(names)
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue that routes to `queues[index]` (all queues share one signature).

        Raises:
          TypeError / ValueError: for an empty list or mismatched signatures.
        """
        if not queues or not isinstance(queues, (list, tuple)) or \
                not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [TensorShape(None) if any(q.shapes[i].rank is None for q in queues)
                  else _common_shape([q.shapes[i] for q in queues])
                  for i in range(len(dtypes))]
        refs = [q.queue_ref for q in queues]
        # TF gathers the handle from the packed handles.
        selected = gather(stack(refs), index)
        return QueueBase(dtypes=dtypes, shapes=shapes, names=names, queue_ref=selected)

    @property
    def queue_ref(self):
        """The underlying queue handle."""
        return self._queue_ref

    @property
    def name(self):
        """The name of the underlying queue op."""
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        """The tensors to enqueue, in component order, converted to the queue's dtypes."""
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue.  "
                                 f"Dictionary: {sorted(vals.keys())}, Queue: "
                                 f"{sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Expected {len(self._dtypes)} components to enqueue, got "
                             f"{len(vals)}")
        return [convert_to_tensor(v, dtype=dt, name=f"component_{i}")
                for i, (v, dt) in enumerate(zip(vals, self._dtypes))]

    def _scope_vals(self, vals):
        if isinstance(vals, (list, tuple)):
            return vals
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """Enqueues one element (a tensor, a tuple/list, or a dict when names are set).

        Returns:
          the enqueue Operation; when run it blocks while the queue is full.
        """
        with name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.get_shape().assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", handle=self._queue_ref, components=vals,
                            name=scope)

    def enqueue_many(self, vals, name=None):
        """Enqueues each slice along the 0th dimension of `vals` as an element."""
        with name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = TensorShape([None])
            for val in vals:
                s = val.get_shape().with_rank_at_least(1)
                batch_dim = batch_dim.merge_with(s[:1])
            for val, shape in zip(vals, self._shapes):
                val.get_shape().with_rank_at_least(1)[1:].assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueManyV2", handle=self._queue_ref, components=vals,
                            name=scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name=None):
        """Dequeues one element; OutOfRangeError when the queue is closed and empty."""
        if name is None:
            name = f"{self._name}_Dequeue"
        op = apply_op("QueueDequeueV2", handle=self._queue_ref,
                      component_types=self._dtypes, name=name)
        for out, shape in zip(op.outputs, self._shapes):
            out.set_shape(shape)
        return self._dequeue_return_value(list(op.outputs))

    def dequeue_many(self, n, name=None):
        """Dequeues and concatenates `n` elements along a new 0th dimension."""
        if name is None:
            name = f"{self._name}_DequeueMany"
        op = apply_op("QueueDequeueManyV2", handle=self._queue_ref, n=n,
                      component_types=self._dtypes, name=name)
        batch = constant_value(op.inputs[1])
        batch_dim = TensorShape([None if batch is None else int(batch)])
        for out, shape in zip(op.outputs, self._shapes):
            out.set_shape(batch_dim.concatenate(shape))
        return self._dequeue_return_value(list(op.outputs))

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but after close() returns fewer than `n` elements if that's
        all there is (OutOfRangeError only when none remain)."""
        if name is None:
            name = f"{self._name}_DequeueUpTo"
        op = apply_op("QueueDequeueUpToV2", handle=self._queue_ref, n=n,
                      component_types=self._dtypes, name=name)
        for out, shape in zip(op.outputs, self._shapes):
            out.set_shape(TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(list(op.outputs))

    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the queue: later enqueues fail; dequeues drain what is left."""
        if name is None:
            name = f"{self._name}_Close"
        return apply_op("QueueCloseV2", handle=self._queue_ref,
                        cancel_pending_enqueues=cancel_pending_enqueues, name=name)

    def is_closed(self, name=None):
        """A bool tensor: whether the queue is closed."""
        if name is None:
            name = f"{self._name}_IsClosed"
        return apply_op("QueueIsClosedV2", handle=self._queue_ref, name=name).outputs[0]

    def size(self, name=None):
        """An int32 tensor: the number of elements in the queue."""
        if name is None:
            name = f"{self._name}_Size"
        return apply_op("QueueSizeV2", handle=self._queue_ref, name=name).outputs[0]


def _common_shape(shapes):
    out = shapes[0]
    for s in shapes[1:]:
        if s.rank != out.rank:
            return TensorShape(None)
        out = TensorShape([a if a == b else None
                           for a, b in zip(out.as_list(), s.as_list())])
    return out


def _shape_attr(shapes):
    return [] if shapes is None else shapes


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        ref = apply_op("FIFOQueueV2", component_types=dtypes, shapes=_shape_attr(shapes),
                       capacity=capacity, shared_name=_shared_name(shared_name),
                       name=name).outputs[0]
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose dequeue_many pads variable-size components with zeros."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(f"Shapes must be provided for all components, but received "
                             f"{len(dtypes)} dtypes and {len(shapes)} shapes.")
        ref = apply_op("PaddingFIFOQueueV2", component_types=dtypes, shapes=shapes,
                       capacity=capacity, shared_name=_shared_name(shared_name),
                       name=name).outputs[0]
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in random order, keeping `min_after_dequeue`
    elements back (until it is closed) so the mix stays good."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None,
                 seed=None, shared_name=None, name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = random_seed.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # Shared queues must get the same seed in every graph that builds them.
            text = (str(seed1) + shared_name).encode("utf-8")
            seed2 = int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF  # noqa: S324
        ref = apply_op("RandomShuffleQueueV2", component_types=dtypes,
                       shapes=_shape_attr(shapes), capacity=capacity,
                       min_after_dequeue=min_after_dequeue, seed=seed1, seed2=seed2,
                       shared_name=_shared_name(shared_name), name=name).outputs[0]
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue whose elements carry an int64 priority as first component; dequeue
    returns the smallest priority first."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        ref = apply_op("PriorityQueueV2", component_types=types,
                       shapes=_shape_attr(shapes), capacity=capacity,
                       shared_name=_shared_name(shared_name), name=name).outputs[0]
        priority_dtypes = [dtypes_mod.int64] + types
        priority_shapes = [TensorShape(())] + shapes if shapes else shapes
        super().__init__(priority_dtypes, priority_shapes, names, ref)
