"""`tf.losses`: TF1's weighted losses, the `Reduction` keys and the LOSSES /
REGULARIZATION_LOSSES collection helpers."""
from trainflow._src.losses.losses_impl import *  # noqa: F401,F403
from trainflow._src.losses.util import *  # noqa: F401,F403
from trainflow._src.losses import losses_impl, util

__all__ = sorted(losses_impl.__all__ + util.__all__)
del losses_impl, util
