"""Every registered op type is complete: a shape function, a NumPy kernel, and a gradient
or an explicit statement that it has none (TensorFlow's own list), so no op lands
half-registered. A new op type without a gradient must either be marked
`NotDifferentiable` where TensorFlow marks it, or be added to a table below with the
reason TensorFlow gives it no gradient."""
import json
import os
import re
import subprocess
import sys

import pytest

import trainflow
from trainflow._src.framework import registry
from trainflow._src.tools import support
from tf_interop import needs_tf, run_json

# Op types whose work the executor does itself, without a NumPy kernel: none today.
EXECUTOR_HANDLED = {}

# Op types TensorFlow registers no gradient for (neither a function nor a
# NotDifferentiable mark): tf.gradients raises LookupError if a gradient must flow
# through one, here as in TF. Most only have outputs no gradient flows into.
NO_GRADIENT_IN_TF = {
    "All": "bool output",
    "Any": "bool output",
    "IsFinite": "bool output",
    "IsInf": "bool output",
    "IsNan": "bool output",
    "IsVariableInitialized": "bool output",
    "Where": "int64 output",
    "BroadcastArgs": "integer shape output",
    "ListDiff": "set difference: TF defines no gradient",
    "Unique": "TF defines no gradient",
    "UniqueWithCounts": "TF defines no gradient",
    "UnravelIndex": "TF defines no gradient",
    "LowerBound": "tf.searchsorted: TF defines no gradient",
    "UpperBound": "tf.searchsorted: TF defines no gradient",
    "HistogramFixedWidth": "TF defines no gradient",
    "RFFT3D": "tf.signal.rfft3d: TF defines no gradient (only for the 1D and 2D forms)",
    "IRFFT3D": "tf.signal.irfft3d: TF defines no gradient (only for the 1D and 2D forms)",
    "NonMaxSuppressionV3": "int32 output",
    "NonMaxSuppressionV4": "int32 outputs",
    "NonMaxSuppressionV5": "tf.image.non_max_suppression_with_scores: TF defines no gradient",
    "QuantizeV2": "tf.quantization.quantize: TF defines no gradient",
    "Dequantize": "tf.quantization.dequantize: TF defines no gradient",
    "QuantizedConcat": "tf.quantization.quantized_concat: TF defines no gradient",
    "ExtractGlimpseV2": "TF defines no gradient",
    "QuantizedConv2D": "tf.nn.quantized_conv2d: TF defines no gradient",
    "QuantizedAvgPool": "tf.nn.quantized_avg_pool: TF defines no gradient",
    "QuantizedMaxPool": "tf.nn.quantized_max_pool: TF defines no gradient",
    "CombinedNonMaxSuppression": "tf.image.combined_non_max_suppression: TF defines no gradient",
    "StatelessRandomGetKeyCounter": "uint64 outputs",
    "DrawBoundingBoxesV2": "tf.image.draw_bounding_boxes with colors: TF defines no gradient",
    "FFTND": "tf.signal.fftnd: TF defines no gradient",
    "Lu": "tf.linalg.lu: TF defines no gradient",
    "MatrixLogarithm": "tf.linalg.logm: TF defines no gradient",
    "IFFTND": "tf.signal.ifftnd: TF defines no gradient",
    "RFFTND": "tf.signal.rfftnd: TF defines no gradient",
    "IRFFTND": "tf.signal.irfftnd: TF defines no gradient",
    "Conv": "tf.conv: TF defines no gradient",
    "Conv2DBackpropFilterV2": "tf.conv2d_backprop_filter_v2: TF defines no gradient",
    "Conv2DBackpropInputV2": "tf.conv2d_backprop_input_v2: TF defines no gradient",
    "Dilation2DBackpropFilter": "tf.nn.dilation2d's gradient op: TF defines no gradient",
    "Dilation2DBackpropInput": "tf.nn.dilation2d's gradient op: TF defines no gradient",
    "DenseBincount": "tf.bincount: TF defines no gradient",
    "SparseReduceMax": "TF defines no gradient",
    "Bitcast": "TF defines no gradient",
    "StringStrip": "strings: TF defines no gradient",
    "SparseReshape": "indices only (the values pass through): TF defines no gradient",
    "GuaranteeConst": "TF defines no gradient",
    "SparseReduceMaxSparse": "TF defines no gradient",
    "SparseReduceSumSparse": "TF defines no gradient",
    "SparseSplit": "tf.sparse.split: TF defines no gradient (LookupError)",
    "SparseSliceGrad": "SparseSlice's gradient: TF defines no gradient of it",
    "DecodeWav": "tf.audio.decode_wav: TF defines no gradient",
    "EncodeWav": "tf.audio.encode_wav: TF defines no gradient",
    "DenseCountSparseOutput": "tf.sparse.bincount: TF defines no gradient",
    "SparseCountSparseOutput": "tf.sparse.bincount: TF defines no gradient",
    "StringFormat": "string output",
    "PrintV2": "no outputs",
    "NoOp": "no outputs",
    "Placeholder": "no inputs",
    "VariableV2": "no inputs",
    "VarHandleOp": "no inputs (gradients stop at the handle)",
    "AssignVariableOp": "no outputs",
    "DisableCopyOnRead": "no outputs",
    "AssignAddVariableOp": "no outputs",
    "AssignSubVariableOp": "no outputs",
    "ResourceScatterAdd": "no outputs",
    "ResourceScatterSub": "no outputs",
    "ResourceScatterUpdate": "no outputs",
    "ResourceScatterMul": "no outputs",
    "ResourceScatterDiv": "no outputs",
    "ResourceScatterMin": "no outputs",
    "ResourceScatterMax": "no outputs",
    "ResourceCountUpTo": "integer output of a state update",
    "CountUpTo": "integer output of a state update",
    "ScatterUpdate": "state update",
    "ScatterMax": "state update",
    "ScatterMin": "state update",
    "RandomUniformInt": "integer samples",
    "RandomPoissonV2": "samples; TF defines no gradient",
    "Mod": "TF defines no gradient (tf.math.mod builds FloorMod, which has one)",
    "TruncateMod": "TF defines no gradient",
    "AdjustContrastv2": "TF defines no gradient",
    "AdjustHue": "TF defines no gradient",
    "AdjustSaturation": "TF defines no gradient",
    "ResizeArea": "TF defines no gradient",
    "ResizeBicubicGrad": "a gradient op: TF defines no second derivative",
    "ResizeNearestNeighborGrad": "a gradient op: TF defines no second derivative",
    "LRNGrad": "a gradient op: TF defines no second derivative",
    "CropAndResizeGradImage": "a gradient op: TF defines no second derivative",
    "CropAndResizeGradBoxes": "a gradient op: TF defines no second derivative",
    "ParallelConcat": "TF defines no gradient (tf.parallel_stack builds it)",
}
# TensorFlow's training ops (ApplyAdam, SparseApplyMomentum, ResourceApplyAdam ...) all
# update a variable in place and have no gradient in TF.
TRAINING_OP = re.compile(r"(Resource)?(Sparse)?Apply[A-Z]\w*")

# Op types TensorFlow differentiates that have no gradient here yet (LookupError): kept
# beside the support matrix, which shows them as missing.
GRADIENT_MISSING = support.GRADIENT_MISSING


# The registry as the package alone fills it (tests register op types of their own), read
# in a fresh interpreter: op type -> [has shape fn, has kernel, gradient kind].
_READ_REGISTRY = r"""
import importlib, json, pkgutil
import trainflow, trainflow._src.ops
from trainflow._src.framework import registry
from trainflow._src.tools import support
for mod in pkgutil.walk_packages(trainflow._src.ops.__path__, "trainflow._src.ops."):
    importlib.import_module(mod.name)
from trainflow._src.framework import op_index
registry.load_all_op_modules()
assert all(name in registry._REGISTRY for name in op_index.OP_MODULES)
out = {}
for name in registry.registered_names():
    info = registry.get(name)
    grad = None if not info.has_gradient else (
        "gradient" if info.gradient is not None else "not_differentiable")
    out[name] = [info.shape_fn is not None, info.kernel is not None, grad]
print(json.dumps(out))
"""
_SRC = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))
REGISTRY = json.loads(subprocess.run(
    [sys.executable, "-c", _READ_REGISTRY], capture_output=True, text=True, check=True,
    timeout=120, env=dict(os.environ, PYTHONPATH=_SRC)).stdout.strip().splitlines()[-1])
OP_TYPES = sorted(REGISTRY)


def _without_gradient():
    return sorted(n for n in OP_TYPES if REGISTRY[n][2] is None)


def test_the_registry_holds_the_op_modules_ops():
    assert len(OP_TYPES) > 250
    assert "MatMul" in OP_TYPES and "ApplyAdam" in OP_TYPES


def test_every_op_has_a_shape_function_and_a_kernel():
    no_shape = [n for n in OP_TYPES if not REGISTRY[n][0]]
    no_kernel = [n for n in OP_TYPES if not REGISTRY[n][1] and n not in EXECUTOR_HANDLED]
    assert not no_shape, f"op types without a shape function: {no_shape}"
    assert not no_kernel, f"op types without a NumPy kernel: {no_kernel}"


def test_every_op_has_a_gradient_or_a_stated_reason_for_none():
    unexplained = [n for n in _without_gradient()
                   if n not in NO_GRADIENT_IN_TF and n not in GRADIENT_MISSING
                   and not TRAINING_OP.fullmatch(n)]
    assert not unexplained, (
        f"op types with neither a gradient nor a NotDifferentiable mark: {unexplained}; "
        "register one as TensorFlow does, or list it here with TF's reason")


@pytest.mark.parametrize("table", [NO_GRADIENT_IN_TF, GRADIENT_MISSING, EXECUTOR_HANDLED])
def test_tables_name_only_registered_ops_that_still_need_the_entry(table):
    for op_type in table:
        assert op_type in REGISTRY, op_type
    for op_type in set(table) - set(EXECUTOR_HANDLED):
        assert REGISTRY[op_type][2] is None, f"{op_type} has a gradient now"
    for op_type in EXECUTOR_HANDLED:
        assert not REGISTRY[op_type][1], f"{op_type} has a kernel now"


def test_not_differentiable_ops_give_none():
    found, fn = registry.get_gradient("RandomUniform")
    assert found and fn is None
    import trainflow.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4])
        y = tf.reduce_sum(tf.random_shuffle(x))
        assert tf.gradients(y, x) == [None]


_TF_GRADIENTS = r"""
import json, sys
from tensorflow.python.framework import ops
import tensorflow  # noqa: F401 - registers TF's gradients
reg = ops._gradient_registry._registry
out = {}
for name in json.loads(sys.stdin.read()):
    out[name] = "none" if name not in reg else (
        "not_differentiable" if reg[name]["type"] is None else "gradient")
print(json.dumps(out))
"""


@needs_tf
def test_tables_agree_with_tensorflow():
    ours = {n: REGISTRY[n][2] for n in OP_TYPES}
    theirs = run_json(_TF_GRADIENTS, spec=OP_TYPES)
    for op_type in NO_GRADIENT_IN_TF:
        assert theirs[op_type] == "none", op_type
    for op_type in GRADIENT_MISSING:
        assert theirs[op_type] == "gradient", op_type
    # Where TF has a gradient function, so do we; where TF marks an op, we mark it too.
    for op_type, kind in theirs.items():
        if kind == "gradient" and op_type not in GRADIENT_MISSING:
            assert ours.get(op_type) == "gradient", op_type
        if kind == "not_differentiable":
            assert ours.get(op_type) == "not_differentiable", op_type
