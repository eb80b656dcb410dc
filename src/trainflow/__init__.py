"""trainflow: TensorFlow 1.x's graph-mode core and `tf.train`, in Python on NumPy.

`import trainflow as tf` (or `import trainflow.compat.v1 as tf`) gives the TF1
namespace. Heavy parts (train, summary, io, protos) load on first use.
"""
import builtins as _builtins
import importlib as _importlib

from trainflow._src.framework.dtypes import (  # noqa: F401
    DType, QUANTIZED_DTYPES, as_dtype, bfloat16, bool, complex128, complex64, double,
    float16, float32, float64, half, int16, int32, int64, int8, qint16, qint32, qint8,
    quint16, quint8, resource, string, uint16, uint32, uint64, uint8, variant)
from trainflow._src.framework.device_spec import DeviceSpec  # noqa: F401
from trainflow._src.framework.graph import Graph, get_default_graph, reset_default_graph  # noqa: F401
from trainflow._src.framework.graph_keys import GraphKeys  # noqa: F401
from trainflow._src.framework.operation import Operation  # noqa: F401
from trainflow._src.framework.registry import (  # noqa: F401
    NoGradient, NotDifferentiable, RegisterGradient)
from trainflow._src.framework.scopes import (  # noqa: F401
    add_to_collection, add_to_collections, colocate_with, container, control_dependencies,
    device, get_collection, get_collection_ref, name_scope, op_scope)
from trainflow._src.framework.tensor import Tensor  # noqa: F401
from trainflow._src.gradients.gradients_impl import (  # noqa: F401
    AggregationMethod, UnconnectedGradients, gradients, hessians)
from trainflow._src.framework.tensor_conversion import (  # noqa: F401
    convert_to_tensor, convert_to_tensor_or_indexed_slices, is_tensor,
    register_tensor_conversion_function)
from trainflow._src.framework.tensor_shape import (  # noqa: F401
    Dimension, TensorShape, dimension_at_index, dimension_value)
from trainflow._src.framework.tensor_util import get_static_value  # noqa: F401
from trainflow._src.ops.array.array_ops import (  # noqa: F401
    IndexedSlices, SparseTensor, SparseTensorValue, boolean_mask, broadcast_dynamic_shape,
    broadcast_static_shape, broadcast_to, cast, concat, diag, diag_part, expand_dims, fill,
    gather, gather_nd, identity, identity_n, invert_permutation, lin_space, linspace,
    matrix_diag, matrix_diag_part, matrix_set_diag, meshgrid, newaxis, one_hot, ones,
    ones_like, pad, range, rank, reshape, reverse, reverse_sequence, reverse_v2,
    saturate_cast, scatter_nd, sequence_mask, shape, shape_n, size, slice,
    sparse_placeholder, sparse_reorder, sparse_tensor_to_dense, sparse_to_dense, split,
    squeeze, stack, stop_gradient, strided_slice, tile, to_bfloat16, to_double, to_float,
    to_int32, to_int64, transpose, unique, unique_with_counts, unstack, where, where_v2,
    zeros, zeros_like)
from trainflow._src.ops.array.space_batch import (  # noqa: F401
    batch_to_space, batch_to_space_nd, roll, space_to_batch, space_to_batch_nd, unravel_index)
from trainflow._src.framework.sparse_tensor import convert_to_tensor_or_sparse_tensor  # noqa: F401
from trainflow._src.ops.array.repeat import repeat  # noqa: F401
from trainflow._src.ops.array.array_ops import (  # noqa: F401
    bitcast, ensure_shape, guarantee_const, to_complex64, to_complex128)
from trainflow._src.ops.string.timestamp import timestamp  # noqa: F401
from trainflow._src.ops.state.tables import initialize_all_tables, tables_initializer  # noqa: F401
from trainflow._src.framework.random_seed import get_seed  # noqa: F401
from trainflow._src.ops.state.template import make_template  # noqa: F401
from trainflow._src.ops.string.string_codec import (  # noqa: F401
    decode_base64, encode_base64, parse_tensor, serialize_tensor, string_strip)
from trainflow._src.ops.sparse.sparse_matmul import sparse_tensor_dense_matmul  # noqa: F401
from trainflow._src.ops.sparse.sparse_add import sparse_add  # noqa: F401
from trainflow._src.ops.sparse.sparse_reshape import sparse_reshape  # noqa: F401
from trainflow._src.ops.sparse.sparse_concat import sparse_concat  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import sparse_fill_empty_rows  # noqa: F401
# also gives SparseTensor its `*` and `/` operators
from trainflow._src.ops.sparse.sparse_elementwise import (  # noqa: F401
    sparse_maximum, sparse_minimum, sparse_softmax)
from trainflow._src.ops.math.lbeta import lbeta  # noqa: F401
from trainflow._src.ops.sparse.sparse_compose import (  # noqa: F401
    sparse_mask, sparse_retain, sparse_transpose)
from trainflow._src.ops.sparse.sparse_reduce import (  # noqa: F401
    sparse_reduce_max, sparse_reduce_max_sparse, sparse_reduce_sum, sparse_reduce_sum_sparse)
from trainflow._src.ops.array.tensor_scatter import (  # noqa: F401
    tensor_scatter_add, tensor_scatter_nd_add, tensor_scatter_nd_max, tensor_scatter_nd_min,
    tensor_scatter_nd_sub, tensor_scatter_nd_update, tensor_scatter_sub, tensor_scatter_update)
from trainflow._src.ops.control_flow.check_ops import (  # noqa: F401
    add_check_numerics_ops, assert_equal, assert_greater, assert_greater_equal,
    assert_integer, assert_less, assert_less_equal, assert_near, assert_negative,
    assert_non_negative, assert_non_positive, assert_none_equal, assert_positive,
    assert_proper_iterable, assert_rank, assert_rank_at_least, assert_rank_in,
    assert_same_float_dtype, assert_scalar, assert_type, check_numerics, is_non_decreasing,
    is_numeric_tensor, is_strictly_increasing, verify_tensor_all_finite)
from trainflow._src.framework.constant_op import (  # noqa: F401
    constant, placeholder, placeholder_with_default)
from trainflow._src.ops.control_flow.control_flow_ops import (  # noqa: F401
    Assert, case, cond, group, no_op, tuple, while_loop)
from trainflow._src.ops.state.init_ops import (  # noqa: F401
    constant_initializer, glorot_normal_initializer, glorot_uniform_initializer,
    ones_initializer, orthogonal_initializer, random_normal_initializer,
    random_uniform_initializer, truncated_normal_initializer,
    uniform_unit_scaling_initializer, variance_scaling_initializer, zeros_initializer)
from trainflow._src.ops.string.logging_ops import (  # noqa: F401
    Print, print)
from trainflow._src.ops.math.math_ops import (  # noqa: F401
    abs, accumulate_n, acos, acosh, add, add_n, arg_max, arg_min, argmax, argmin, asin,
    asinh, atan, atan2, atanh, ceil, complex, conj, cos, cosh, count_nonzero, cumprod,
    cumsum, digamma, div, div_no_nan, divide, equal, erf, erfc, exp, expm1, floor,
    floor_div, floordiv, floormod, greater, greater_equal, imag, is_finite, is_inf, is_nan,
    less, less_equal, lgamma, log, log1p, log_sigmoid, logical_and, logical_not, logical_or,
    logical_xor, matmul, maximum, minimum, mod, multiply, negative, not_equal, polygamma,
    pow, qr, real, realdiv, reciprocal, reduce_all, reduce_any, reduce_logsumexp,
    reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, rint, round, rsqrt,
    scalar_mul, segment_max, segment_mean, segment_min, segment_prod, segment_sum, sigmoid,
    sign, sin, sinh, sqrt, square, squared_difference, subtract, tan, tanh, tensordot,
    truediv, truncatediv, truncatemod, unsorted_segment_max, unsorted_segment_min,
    unsorted_segment_prod, unsorted_segment_sum)
from trainflow._src.ops.math.math_ops import (  # noqa: F401
    argsort, bincount, histogram_fixed_width, histogram_fixed_width_bins, searchsorted, sort)
from trainflow._src.ops.script.script_ops import py_function  # noqa: F401
from trainflow._src.ops.random.random_ops import (  # noqa: F401
    multinomial, random_crop, random_gamma, random_normal, random_poisson, random_shuffle,
    random_uniform, set_random_seed, truncated_normal)
from trainflow._src.ops.script.script_ops import (  # noqa: F401
    numpy_function, py_func)
from trainflow._src.ops.state.state_ops import (  # noqa: F401
    assign, assign_add, assign_sub, count_up_to, scatter_add, scatter_div, scatter_max,
    scatter_min, scatter_mul, scatter_nd_add, scatter_nd_sub, scatter_nd_update,
    scatter_sub, scatter_update)
from trainflow._src.ops.state.partitioned_variables import (  # noqa: F401
    fixed_size_partitioner, min_max_variable_partitioner, variable_axis_size_partitioner)
from trainflow._src.ops.state.variable_scope import (  # noqa: F401
    AUTO_REUSE, VariableScope, create_partitioned_variables, get_local_variable, get_variable,
    get_variable_scope, no_regularizer, variable_creator_scope, variable_op_scope,
    variable_scope)
from trainflow._src.ops.state.variables import (  # noqa: F401
    Variable, VariableAggregation, VariableSynchronization, all_variables,
    assert_variables_initialized, global_variables, global_variables_initializer,
    initialize_all_variables, initialize_local_variables, initialize_variables,
    is_variable_initialized, local_variables, local_variables_initializer, model_variables,
    moving_average_variables, report_uninitialized_variables, trainable_variables,
    variables_initializer)
from trainflow._src.tf_logging import get_logger  # noqa: F401
from trainflow._src.runtime.session import (  # noqa: F401
    InteractiveSession, Session, get_default_session)
from trainflow._src.compat.v2_behavior import (  # noqa: F401
    control_flow_v2_enabled, disable_control_flow_v2, disable_eager_execution,
    disable_resource_variables, disable_tensor_equality, disable_v2_behavior,
    disable_v2_tensorshape, enable_control_flow_v2, enable_eager_execution,
    enable_resource_variables, enable_tensor_equality, enable_v2_behavior,
    enable_v2_tensorshape, executing_eagerly, executing_eagerly_outside_functions,
    resource_variables_enabled)
# Registers the grpc:// targets, so Session("grpc://...") works without tf.train.
import trainflow._src.distributed as _distributed  # noqa: F401
no_gradient = NotDifferentiable  # TF 1.15: tf.no_gradient

# The TF API level this namespace implements ("1.15.0"), as TensorFlow's `tf.__version__`
# and `tf.VERSION` give it; the package's own version is `trainflow._version.__version__`.
from trainflow._src.framework.versions import (  # noqa: E402, F401
    COMPILER_VERSION, CXX11_ABI_FLAG, CXX_VERSION, GIT_VERSION, GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER, GRAPH_DEF_VERSION_MIN_PRODUCER, MONOLITHIC_BUILD, VERSION)
__version__ = VERSION

# TensorFlow's sub-namespaces: each is a face (`trainflow/<name>/`), imported on first use.
_NAMESPACES = ("app", "audio", "bitwise", "compat", "data", "debugging", "distributions",
               "dtypes", "errors", "estimator", "experimental", "feature_column", "gfile",
               "graph_util", "image", "initializers", "io", "layers", "linalg", "logging",
               "lookup", "losses", "manip", "math", "metrics", "nest", "nn", "python_io",
               "quantization", "queue", "ragged", "random", "resource_loader", "saved_model",
               "sets", "signal", "sparse", "spectral", "strings", "summary", "test", "train",
               "version", "xla")
# Top-level names whose modules load on first use (protos, parsing, linear algebra ...):
# module -> the names it defines.
_LAZY_NAMES = {
    # protos
    "trainflow._src.protos.config_pb2": (
        "ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions", "RunOptions",
        "RunMetadata"),
    "trainflow._src.protos.graph_pb2": ("GraphDef",),
    "trainflow._src.protos.node_def_pb2": ("NodeDef",),
    "trainflow._src.protos.attr_value_pb2": ("AttrValue", "NameAttrList"),
    "trainflow._src.protos.meta_graph_pb2": ("TensorInfo", "MetaGraphDef"),
    "trainflow._src.protos.summary_pb2": ("Summary", "SummaryMetadata", "HistogramProto"),
    "trainflow._src.protos.event_pb2": ("Event", "SessionLog", "LogMessage"),
    # formats and graph files
    "trainflow._src.formats.tensor_proto": ("make_tensor_proto", "make_ndarray"),
    "trainflow._src.framework.graph_def": ("import_graph_def",),
    # math, linear algebra, arrays
    "trainflow._src.ops.data_flow.partition": ("dynamic_partition", "dynamic_stitch"),
    "trainflow._src.ops.math.einsum": ("einsum",),
    "trainflow._src.ops.signal.fft_ops": ("fft", "fft2d", "fft3d", "ifft", "ifft2d", "ifft3d"),
    "trainflow._src.ops.signal.fftnd_ops": ("fftnd", "ifftnd", "irfftnd", "rfftnd"),
    "trainflow._src.ops.linalg.norm": ("norm",),
    "trainflow._src.ops.array.set_ops": ("setdiff1d",),
    "trainflow._src.ops.array.quantize_dequantize": (
        "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
        "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient"),
    "trainflow._src.ops.array.quantize_ops": (
        "dequantize", "quantize", "quantize_v2", "quantized_concat"),
    "trainflow._src.ops.array.fake_quant_per_channel": (
        "fake_quant_with_min_max_vars_per_channel",
        "fake_quant_with_min_max_vars_per_channel_gradient"),
    "trainflow._src.ops.nn.conv_generic": ("conv",),
    "trainflow._src.ops.nn.conv_backprop_v2": (
        "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"),
    "trainflow._src.ops.image.patches": ("extract_image_patches", "extract_volume_patches"),
    "trainflow._src.ops.array.space_batch_paddings": ("required_space_to_batch_paddings",),
    "trainflow._src.ops.linalg.linalg_api": (
        "matrix_inverse", "matrix_determinant", "cholesky", "cholesky_solve",
        "matrix_solve", "matrix_triangular_solve", "svd", "matrix_band_part",
        "matrix_transpose", "trace", "eye", "cross"),
    "trainflow._src.ops.linalg.eig": ("self_adjoint_eig", "self_adjoint_eigvals"),
    "trainflow._src.ops.linalg.least_squares": ("matrix_solve_ls",),
    "trainflow._src.ops.math.sparse_segment": (
        "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
        "unsorted_segment_mean", "unsorted_segment_sqrt_n"),
    "trainflow._src.ops.math.special_gamma": ("igamma", "igammac", "zeta"),
    "trainflow._src.ops.math.complex_ops": ("angle",),
    "trainflow._src.ops.math.betainc": ("betainc",),
    "trainflow._src.ops.nn.approx_top_k": ("approx_top_k",),
    "trainflow._src.ops.linalg.matrix_functions": ("matrix_square_root",),
    "trainflow._src.ops.array.depth_space": (
        "batch_gather", "parallel_stack", "depth_to_space", "space_to_depth"),
    "trainflow._src.metrics.metrics_util": ("confusion_matrix",),
    "trainflow._src.ops.math.clip_ops": (
        "clip_by_value", "clip_by_norm", "clip_by_average_norm", "clip_by_global_norm",
        "global_norm"),
    # gradients, control flow, TensorArray
    "trainflow._src.gradients.custom_gradient": ("custom_gradient",),
    "trainflow._src.gradients.tape": ("GradientTape",),
    "trainflow._src.gradients.grad_helpers": ("grad_pass_through", "recompute_grad"),
    "trainflow._src.framework.init_scope": ("init_scope",),
    "trainflow._src.module.module": ("Module",),
    "trainflow._src.ops.control_flow.functional_ops": ("map_fn", "scan", "foldl", "foldr"),
    "trainflow._src.ops.control_flow.vectorized_map": ("vectorized_map",),
    "trainflow._src.ops.control_flow.switch_case": ("switch_case",),
    # queues, readers, parsing
    "trainflow._src.ops.data_flow.queues": (
        "QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue"),
    "trainflow._src.ops.string.fingerprint": ("fingerprint",),
    "trainflow._src.framework.errors": ("OpError",),
    "trainflow._src.ops.data_flow.session_ops": (
        "get_session_handle", "get_session_tensor", "delete_session_tensor"),
    "trainflow._src.ops.data_flow.accumulators": (
        "ConditionalAccumulator", "ConditionalAccumulatorBase", "SparseConditionalAccumulator"),
    "trainflow._src.ops.io.readers": (
        "ReaderBase", "TFRecordReader", "TextLineReader", "FixedLengthRecordReader",
        "WholeFileReader", "IdentityReader"),
    "trainflow._src.ops.io.file_io_ops": ("read_file", "write_file", "matching_files"),
    "trainflow._src.ops.io.parsing_config": (
        "FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "SparseFeature"),
    "trainflow._src.ops.io.parsing_ops": ("parse_example", "parse_single_example"),
    "trainflow._src.ops.io.sequence_parsing": ("parse_single_sequence_example",),
    # the pre-1.0 summary names TF1 programs still use (docs/face_extras.md)
    "trainflow._src.ops.summary.summary_ops": (
        "scalar_summary", "histogram_summary", "image_summary", "merge_summary",
        "merge_all_summaries"),
    # sparse ops
    "trainflow._src.ops.sparse.sparse_slice": ("sparse_slice", "sparse_split"),
    "trainflow._src.ops.sparse.sparse_build": (
        "sparse_merge", "sparse_reset_shape", "sparse_to_indicator"),
    "trainflow._src.ops.sparse.sparse_serialize": (
        "serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse"),
    "trainflow._src.ops.sparse.edit_distance": ("edit_distance",),
    "trainflow._src.ops.math.arith": ("sparse_matmul",),
    "trainflow._src.ops.state.batch_scatter": ("batch_scatter_update",),
    "trainflow._src.ops.io.decode_ops": ("decode_raw", "decode_csv", "decode_json_example",
                                         "decode_compressed"),
    # ragged tensors and type specs
    "trainflow._src.ops.ragged.ragged_ops": (
        "RaggedTensor", "RaggedTensorSpec", "ragged_fill_empty_rows",
        "ragged_fill_empty_rows_grad"),
    "trainflow._src.framework.type_spec": (
        "TypeSpec", "TensorSpec", "SparseTensorSpec", "IndexedSlicesSpec", "NoneTensorSpec",
        "type_spec_from_value", "is_symbolic_tensor"),
    "trainflow._src.ops.data_flow.tensor_array": ("TensorArray", "TensorArraySpec"),
    "trainflow._src.data.optional_ops": ("OptionalSpec",),
    # strings
    "trainflow._src.ops.string.string_ops": (
        "string_split", "string_join", "reduce_join", "substr", "regex_replace"),
    "trainflow._src.ops.string.string_convert": (
        "string_to_number", "as_string", "string_to_hash_bucket",
        "string_to_hash_bucket_fast", "string_to_hash_bucket_strong"),
}
# name -> the face module of a sub-namespace, or (module, attribute).
_LAZY = {
    **{name: "trainflow." + name for name in _NAMESPACES},
    "flags": ("trainflow.app", "flags"),
    **{name: (module, name) for module, names in _LAZY_NAMES.items() for name in names},
}

def __getattr__(name):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'trainflow' has no attribute '{name}'")
    if isinstance(target, _builtins.tuple):
        value = getattr(_importlib.import_module(target[0]), target[1])
    else:
        value = _importlib.import_module(target)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
