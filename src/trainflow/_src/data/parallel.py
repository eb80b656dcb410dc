"""Dataset methods that run functions over many elements at once (parallel map,
interleave) and sources from Python (from_generator); mixed into DatasetV1."""


class ParallelMethods:
    """Mixed into DatasetV1: its methods build ops with `self._apply` and `self._traced`."""
