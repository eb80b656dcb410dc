"""`tf.random.experimental`: the Generator API and the stateless seed helpers."""
from trainflow._src.ops.random.stateful_random import (  # noqa: F401
    Generator, create_rng_state, get_global_generator, set_global_generator)
from trainflow._src.ops.random.stateless import (  # noqa: F401
    Algorithm, fold_in as stateless_fold_in, split as stateless_split)
