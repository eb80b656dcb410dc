"""The `tf.linalg` family: the graph functions of `linalg_impl`, with their gradients
registered (`linalg_grad`). The faces import from here."""
from trainflow._src.ops.linalg import linalg_grad  # noqa: F401 - registers the gradients
from trainflow._src.ops.linalg.linalg_impl import *  # noqa: F401,F403
from trainflow._src.ops.linalg.linalg_impl import (  # noqa: F401
    __all__, band_part, diag, diag_part, set_diag)
