"""Dataset methods that reorder, group and cache elements (shuffle, padded_batch,
unbatch, window, shard, cache, reduce); mixed into DatasetV1."""


class ReorderingMethods:
    """Mixed into DatasetV1: its methods build ops with `self._apply` and `self._traced`."""
