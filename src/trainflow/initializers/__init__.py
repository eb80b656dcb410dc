"""`tf.initializers`: TF1's initializer namespace (short names of `init_ops`) and the
variable-initializer ops."""
from trainflow._src.ops.state.init_ops import (  # noqa: F401
    Constant as constant,
    GlorotNormal as glorot_normal,
    GlorotUniform as glorot_uniform,
    Identity as identity,
    Ones as ones,
    Orthogonal as orthogonal,
    RandomNormal as random_normal,
    RandomUniform as random_uniform,
    TruncatedNormal as truncated_normal,
    UniformUnitScaling as uniform_unit_scaling,
    VarianceScaling as variance_scaling,
    Zeros as zeros,
    he_normal,
    he_uniform,
    lecun_normal,
    lecun_uniform,
)
from trainflow._src.ops.state.tables import tables_initializer  # noqa: F401
from trainflow._src.ops.state.variable_helpers import (  # noqa: F401
    global_variables_initializer as global_variables,
    local_variables_initializer as local_variables,
    variables_initializer as variables,
)
