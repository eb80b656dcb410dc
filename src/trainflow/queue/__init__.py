"""The `tf.queue` namespace."""
from trainflow._src.ops.data_flow.queues import (  # noqa: F401
    FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue)
