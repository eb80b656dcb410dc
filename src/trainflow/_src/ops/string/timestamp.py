"""Timestamp (`tf.timestamp`): the wall-clock time in seconds, a float64 scalar read when
the op runs (stateful, not differentiable)."""
import time

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape

__all__ = ["timestamp"]

register_op("Timestamp", outputs=["ts: float64"], shape_fn=lambda op: [TensorShape([])],
            kernel=lambda: np.float64(time.time()), stateful=True)
NotDifferentiable("Timestamp")


def timestamp(name=None):
    """The time the op runs, in seconds since the epoch (float64, microsecond resolution)."""
    return apply_op("Timestamp", name=name).outputs[0]
