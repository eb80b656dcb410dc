"""`tf.nn`: activations, softmax and cross entropies, normalisation, dropout, top-k,
embeddings, candidate sampling and sampled losses, the CTC loss and decoders, the
convolution and pooling ops, and the sigmoid/tanh aliases of the math ops.

Each implementation module's `__all__` is the part of `tf.nn` it holds: the imports
below are the whole mapping from name to module.
"""
from trainflow._src.ops.array.depth_space import depth_to_space, space_to_depth  # noqa: F401
from trainflow._src.ops.array.space_batch import space_to_batch  # noqa: F401
from trainflow._src.ops.math.math_ops import sigmoid, tanh  # noqa: F401
from trainflow._src.ops.nn.activation import *  # noqa: F401,F403
from trainflow._src.ops.nn.batch_norm import *  # noqa: F401,F403
from trainflow._src.ops.nn.embedding import *  # noqa: F401,F403
from trainflow._src.ops.nn.safe_embedding import *  # noqa: F401,F403
from trainflow._src.ops.nn.norm import *  # noqa: F401,F403
from trainflow._src.ops.nn.sampled_loss import *  # noqa: F401,F403
from trainflow._src.ops.nn.sampling import *  # noqa: F401,F403
from trainflow._src.ops.nn.softmax import *  # noqa: F401,F403
from trainflow._src.ops.nn.xent import *  # noqa: F401,F403
from trainflow._src.ops.nn.approx_top_k import approx_max_k, approx_min_k  # noqa: F401
from trainflow._src.ops.nn.nn_ops import dropout, in_top_k, top_k, zero_fraction  # noqa: F401
from trainflow._src.ops.nn.conv import *  # noqa: F401,F403
from trainflow._src.ops.nn.ctc import *  # noqa: F401,F403
from trainflow._src.ops.nn.conv_composite import *  # noqa: F401,F403
from trainflow._src.ops.nn.conv3d import *  # noqa: F401,F403
from trainflow._src.ops.nn.pool import *  # noqa: F401,F403
from trainflow._src.ops.nn.quantized_conv import *  # noqa: F401,F403
from trainflow._src.ops.nn.quantized_pool import *  # noqa: F401,F403
from trainflow._src.ops.nn.conv_transpose import *  # noqa: F401,F403
from trainflow._src.ops.nn.loss_scaling import *  # noqa: F401,F403
from trainflow._src.ops.nn.morphology import *  # noqa: F401,F403
from trainflow._src.ops.nn.space_batch_conv import *  # noqa: F401,F403
from trainflow._src.nn.bidirectional import (  # noqa: F401
    bidirectional_dynamic_rnn, static_bidirectional_rnn)
from trainflow._src.nn.rnn import (  # noqa: F401
    dynamic_rnn, static_rnn, static_state_saving_rnn)
from trainflow._src.nn.rnn_raw import raw_rnn  # noqa: F401
from trainflow.nn import rnn_cell  # noqa: F401

__all__ = sorted(n for n in dir() if not n.startswith("_"))
