"""`tf.random`: random tensors and seeds (TF1 names and their TF2-style aliases)."""
from trainflow.random import experimental  # noqa: F401
from trainflow._src.framework.random_seed import get_seed, set_random_seed  # noqa: F401
from trainflow._src.ops.random.random_ops import (  # noqa: F401
    categorical,
    multinomial,
    random_gamma as gamma,
    random_normal as normal,
    random_poisson as poisson,
    random_shuffle as shuffle,
    random_uniform as uniform,
    truncated_normal,
)
from trainflow._src.ops.nn.sampling import (  # noqa: F401
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from trainflow._src.ops.random.stateless import (  # noqa: F401
    Algorithm,
    fold_in,
    split,
    stateless_categorical,
    stateless_multinomial,
    stateless_random_normal as stateless_normal,
    stateless_random_uniform as stateless_uniform,
    stateless_truncated_normal,
)
from trainflow._src.ops.random.stateful_random import (  # noqa: F401
    Generator, create_rng_state, get_global_generator, set_global_generator)
