"""`trainflow.regularizers`: weight regularizers for `tf.layers` (`kernel_regularizer=`)
and `tf.get_variable` (`regularizer=`): Keras-style `l1`, `l2`, `l1_l2` / `L1L2` and
contrib-style `l1_regularizer`, `l2_regularizer`, `l1_l2_regularizer`,
`sum_regularizer`, `apply_regularization`."""
from trainflow._src.ops.state.regularizers import *  # noqa: F401,F403
from trainflow._src.ops.state.regularizers import __all__  # noqa: F401
