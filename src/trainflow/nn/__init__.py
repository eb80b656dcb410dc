"""`tf.nn`: activations, softmax and cross entropies, normalisation, dropout, top-k,
embeddings, candidate sampling and sampled losses (`trainflow._src.ops.nn.nn_ops`), the
convolution and pooling ops (`ops.nn.conv`, `ops.nn.conv_composite`, `ops.nn.pool`), and
the sigmoid/tanh aliases of the math ops.
"""
import importlib as _importlib

from trainflow._src.ops.nn import nn_ops as _nn_ops
from trainflow._src.ops.math.math_ops import sigmoid, tanh  # noqa: F401
from trainflow._src.ops.nn.nn_ops import *  # noqa: F401,F403
from trainflow._src.ops.array.depth_space import depth_to_space, space_to_depth  # noqa: F401

__all__ = sorted(set(_nn_ops.__all__) | {"sigmoid", "tanh", "depth_to_space",
                                         "space_to_depth"})

# The convolution and pooling modules are written separately; export whichever exist.
_CONV_POOL_MODULES = ("trainflow._src.ops.nn.conv", "trainflow._src.ops.nn.conv_composite",
                      "trainflow._src.ops.nn.pool", "trainflow._src.ops.nn.conv3d")


def _export(module_name):
    try:
        module = _importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name != module_name:
            raise
        return []
    names = list(getattr(module, "__all__", ()))
    for n in names:
        globals()[n] = getattr(module, n)
    return names


for _module_name in _CONV_POOL_MODULES:
    __all__ = sorted(set(__all__) | set(_export(_module_name)))
del _module_name
