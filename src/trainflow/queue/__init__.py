"""The `tf.queue` namespace."""
from trainflow.ops.data_flow.queues import (  # noqa: F401
    FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue)
