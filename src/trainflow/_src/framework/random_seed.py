"""Graph-level and op-level random seeds, with TF1's rules (`tf.set_random_seed`).

A random op gets two seeds, ``seed`` and ``seed2`` attrs. `get_seed` derives
them from the graph seed and the op's own seed the way TensorFlow 1.x does, so
graphs built here carry the same attr values as TF's graphs.
"""
from trainflow._src.framework.graph import get_default_graph

__all__ = ["DEFAULT_GRAPH_SEED", "get_seed", "set_random_seed"]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def _truncate_seed(seed):
    return seed % _MAXINT32


def get_seed(op_seed):
    """The (seed, seed2) pair a random op should use, from the graph and op seeds.

    Rules (TF1): with a graph seed and no op seed, the op seed is the id of the
    graph's last created op, so each op draws a different stream; with only an op
    seed, the graph seed is `DEFAULT_GRAPH_SEED`; with neither, both are None and
    the op is nondeterministic. (0, 0) would mean "nondeterministic" to the
    kernels, so it is turned into (0, 2**31 - 1).

    Args:
      op_seed: the op-level seed (an int) or None.

    Returns:
      a tuple (graph_seed, op_seed) of ints or Nones.
    """
    graph = get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = graph._last_id
        seeds = _truncate_seed(int(global_seed)), _truncate_seed(int(op_seed))
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(int(op_seed))
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def set_random_seed(seed):
    """Sets the graph-level random seed of the default graph (`tf.set_random_seed`).

    Args:
      seed: an int, or None to clear it.
    """
    get_default_graph().seed = seed
