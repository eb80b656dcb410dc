"""tf.data's seeds (TF's `python/data/util/random_seed.get_seed`): the (seed, seed2)
int64 tensors a shuffling dataset op takes, from the graph seed and an op seed that may
be a Python int or a tensor. (0, 0) means "draw fresh seeds" to the kernels, so a seeded
pair that would be (0, 0) becomes (0, 2**31 - 1)."""
from trainflow._src.framework import dtypes
from trainflow._src.framework import random_seed
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import get_default_graph, name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.gather import where
from trainflow._src.ops.math.arith import equal, floormod, logical_and

_MAXINT32 = 2**31 - 1


def _framework_seeds(seed):
    """framework.random_seed.get_seed, also for a tensor op seed (taken modulo 2**31 - 1)."""
    if not isinstance(seed, Tensor):
        return random_seed.get_seed(seed)
    global_seed = get_default_graph().seed
    graph_seed = random_seed.DEFAULT_GRAPH_SEED if global_seed is None \
        else int(global_seed) % _MAXINT32
    return graph_seed, floormod(convert_to_tensor(seed, dtypes.int64), _MAXINT32)


def get_seed(seed):
    """(seed, seed2) int64 scalar tensors for op seed `seed` (None, an int or a tensor)."""
    seed, seed2 = _framework_seeds(seed)
    if seed is None:
        seed = constant(0, dtype=dtypes.int64, name="seed")
    else:
        seed = convert_to_tensor(seed, dtype=dtypes.int64, name="seed")
    if seed2 is None:
        seed2 = constant(0, dtype=dtypes.int64, name="seed2")
    else:
        with name_scope("seed2") as scope:
            seed2 = convert_to_tensor(seed2, dtype=dtypes.int64)
            seed2 = where(logical_and(equal(seed, 0), equal(seed2, 0)),
                          constant(_MAXINT32, dtype=dtypes.int64), seed2, name=scope)
    return seed, seed2
