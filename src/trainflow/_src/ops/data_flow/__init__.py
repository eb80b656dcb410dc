"""Data-flow ops: dynamic partition/stitch; queues and accumulators."""
