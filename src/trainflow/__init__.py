"""trainflow: TensorFlow 1.x's graph-mode core and `tf.train`, in Python on NumPy.

`import trainflow as tf` (or `import trainflow.compat.v1 as tf`) gives the TF1
namespace. Heavy parts (train, summary, io, protos) load on first use.
"""
import builtins as _builtins
import importlib as _importlib

from trainflow.framework import errors
from trainflow.framework.dtypes import *  # noqa: F401,F403
from trainflow.framework.dtypes import DType, as_dtype  # noqa: F401
from trainflow.framework.device_spec import DeviceSpec  # noqa: F401
from trainflow.framework.graph import Graph, get_default_graph, reset_default_graph  # noqa: F401
from trainflow.framework.graph_keys import GraphKeys  # noqa: F401
from trainflow.framework.operation import Operation  # noqa: F401
from trainflow.framework.registry import (  # noqa: F401
    NoGradient, NotDifferentiable, RegisterGradient)
from trainflow.framework.scopes import (  # noqa: F401
    add_to_collection, add_to_collections, colocate_with, container, control_dependencies,
    device, get_collection, get_collection_ref, name_scope, op_scope)
from trainflow.framework.tensor import Tensor  # noqa: F401
from trainflow.gradients.gradients_impl import (  # noqa: F401
    AggregationMethod, UnconnectedGradients, gradients, hessians)
from trainflow.framework.tensor_conversion import (  # noqa: F401
    convert_to_tensor, convert_n_to_tensor, convert_to_tensor_or_indexed_slices, is_tensor,
    register_tensor_conversion_function)
from trainflow.framework.tensor_shape import (  # noqa: F401
    Dimension, TensorShape, dimension_at_index, dimension_value)
from trainflow.framework.tensor_util import constant_value, get_static_value  # noqa: F401
from trainflow.ops.array.array_ops import *  # noqa: F401,F403
from trainflow.ops.control_flow.check_ops import *  # noqa: F401,F403
from trainflow.framework.constant_op import *  # noqa: F401,F403
from trainflow.ops.control_flow.control_flow_ops import *  # noqa: F401,F403
from trainflow.ops.state.init_ops import *  # noqa: F401,F403
from trainflow.ops.string.logging_ops import *  # noqa: F401,F403
from trainflow.ops.math.math_ops import *  # noqa: F401,F403
from trainflow.ops.random.random_ops import *  # noqa: F401,F403
from trainflow.ops.script.script_ops import *  # noqa: F401,F403
from trainflow.ops.state.state_ops import *  # noqa: F401,F403
from trainflow.ops.state.variable_scope import *  # noqa: F401,F403
from trainflow.ops.state.variables import *  # noqa: F401,F403
from trainflow.runtime.session import (  # noqa: F401
    InteractiveSession, Session, get_default_session)
import trainflow.distributed  # noqa: E402,F401 - Session("grpc://...") works without tf.train
from trainflow.compat.v2_behavior import *  # noqa: F401,F403 - disable_v2_behavior & co.
no_gradient = NotDifferentiable  # TF 1.15: tf.no_gradient

from trainflow._version import __version__  # noqa: E402
VERSION = "1.15.0"  # the TF1 API level trainflow follows
GIT_VERSION = "trainflow-" + __version__
COMPILER_VERSION = ""

# Sub-namespaces and heavy names load on first use: name -> module path (or (module, attr)).
_LAZY = {
    "train": "trainflow.train",
    "summary": "trainflow.summary",
    "io": "trainflow.io",
    "python_io": "trainflow.python_io",
    "gfile": "trainflow.gfile",
    "app": "trainflow.app",
    "flags": ("trainflow.app", "flags"),
    "logging": "trainflow.tf_logging",
    "compat": "trainflow.compat",
    "nn": "trainflow.nn",
    "layers": "trainflow.layers",
    "losses": "trainflow.losses",
    "metrics": "trainflow.metrics",
    "image": "trainflow.image",
    "math": "trainflow.math",
    "sparse": "trainflow.sparse",
    "random": "trainflow.random",
    "initializers": "trainflow.initializers",
    "regularizers": "trainflow.regularizers",
    "debugging": "trainflow.debugging",
    "test": "trainflow.test",
    "xla": "trainflow.xla",
    "dtypes": "trainflow.framework.dtypes",
    "ConfigProto": ("trainflow.protos.config_pb2", "ConfigProto"),
    "GPUOptions": ("trainflow.protos.config_pb2", "GPUOptions"),
    "GraphOptions": ("trainflow.protos.config_pb2", "GraphOptions"),
    "OptimizerOptions": ("trainflow.protos.config_pb2", "OptimizerOptions"),
    "RunOptions": ("trainflow.protos.config_pb2", "RunOptions"),
    "RunMetadata": ("trainflow.protos.config_pb2", "RunMetadata"),
    "GraphDef": ("trainflow.protos.graph_pb2", "GraphDef"),
    "NodeDef": ("trainflow.protos.node_def_pb2", "NodeDef"),
    "AttrValue": ("trainflow.protos.attr_value_pb2", "AttrValue"),
    "NameAttrList": ("trainflow.protos.attr_value_pb2", "NameAttrList"),
    "TensorShapeProto": ("trainflow.protos.tensor_shape_pb2", "TensorShapeProto"),
    "TensorInfo": ("trainflow.protos.meta_graph_pb2", "TensorInfo"),
    "TensorProto": ("trainflow.protos.tensor_pb2", "TensorProto"),
    "MetaGraphDef": ("trainflow.protos.meta_graph_pb2", "MetaGraphDef"),
    "Summary": ("trainflow.protos.summary_pb2", "Summary"),
    "SummaryMetadata": ("trainflow.protos.summary_pb2", "SummaryMetadata"),
    "HistogramProto": ("trainflow.protos.summary_pb2", "HistogramProto"),
    "Event": ("trainflow.protos.event_pb2", "Event"),
    "SessionLog": ("trainflow.protos.event_pb2", "SessionLog"),
    "LogMessage": ("trainflow.protos.event_pb2", "LogMessage"),
    "make_tensor_proto": ("trainflow.formats.tensor_proto", "make_tensor_proto"),
    "make_ndarray": ("trainflow.formats.tensor_proto", "make_ndarray"),
    "import_graph_def": ("trainflow.framework.graph_def", "import_graph_def"),
    "dynamic_partition": ("trainflow.ops.data_flow.partition", "dynamic_partition"),
    # Linear algebra, einsum, bitwise and set ops (TF1's top-level names).
    "custom_gradient": ("trainflow.gradients.custom_gradient", "custom_gradient"),
    "TensorArray": ("trainflow.ops.data_flow.tensor_array", "TensorArray"),
    "map_fn": ("trainflow.ops.control_flow.functional_ops", "map_fn"),
    "scan": ("trainflow.ops.control_flow.functional_ops", "scan"),
    "foldl": ("trainflow.ops.control_flow.functional_ops", "foldl"),
    "foldr": ("trainflow.ops.control_flow.functional_ops", "foldr"),
    "linalg": "trainflow.linalg",
    "bitwise": "trainflow.bitwise",
    "einsum": ("trainflow.ops.math.einsum", "einsum"),
    "norm": ("trainflow.ops.linalg.norm", "norm"),
    "setdiff1d": ("trainflow.ops.array.set_ops", "setdiff1d"),
    "matrix_inverse": ("trainflow.ops.linalg.linalg_api", "matrix_inverse"),
    "matrix_determinant": ("trainflow.ops.linalg.linalg_api", "matrix_determinant"),
    "cholesky": ("trainflow.ops.linalg.linalg_api", "cholesky"),
    "cholesky_solve": ("trainflow.ops.linalg.linalg_api", "cholesky_solve"),
    "matrix_solve": ("trainflow.ops.linalg.linalg_api", "matrix_solve"),
    "matrix_triangular_solve": ("trainflow.ops.linalg.linalg_api", "matrix_triangular_solve"),
    "svd": ("trainflow.ops.linalg.linalg_api", "svd"),
    "matrix_band_part": ("trainflow.ops.linalg.linalg_api", "matrix_band_part"),
    "matrix_transpose": ("trainflow.ops.linalg.linalg_api", "matrix_transpose"),
    "trace": ("trainflow.ops.linalg.linalg_api", "trace"),
    "eye": ("trainflow.ops.linalg.linalg_api", "eye"),
    "cross": ("trainflow.ops.linalg.linalg_api", "cross"),
    "self_adjoint_eig": ("trainflow.ops.linalg.eig", "self_adjoint_eig"),
    "matrix_solve_ls": ("trainflow.ops.linalg.least_squares", "matrix_solve_ls"),
    "self_adjoint_eigvals": ("trainflow.ops.linalg.eig", "self_adjoint_eigvals"),
    "sparse_segment_sum": ("trainflow.ops.math.sparse_segment", "sparse_segment_sum"),
    "sparse_segment_mean": ("trainflow.ops.math.sparse_segment", "sparse_segment_mean"),
    "sparse_segment_sqrt_n": ("trainflow.ops.math.sparse_segment", "sparse_segment_sqrt_n"),
    "unsorted_segment_mean": ("trainflow.ops.math.sparse_segment", "unsorted_segment_mean"),
    "igamma": ("trainflow.ops.math.special_gamma", "igamma"),
    "igammac": ("trainflow.ops.math.special_gamma", "igammac"),
    "zeta": ("trainflow.ops.math.special_gamma", "zeta"),
    "batch_gather": ("trainflow.ops.array.depth_space", "batch_gather"),
    "parallel_stack": ("trainflow.ops.array.depth_space", "parallel_stack"),
    "depth_to_space": ("trainflow.ops.array.depth_space", "depth_to_space"),
    "space_to_depth": ("trainflow.ops.array.depth_space", "space_to_depth"),
    "unsorted_segment_sqrt_n": ("trainflow.ops.math.sparse_segment",
                                "unsorted_segment_sqrt_n"),
    "confusion_matrix": ("trainflow.metrics.metrics_util", "confusion_matrix"),
    "dynamic_stitch": ("trainflow.ops.data_flow.partition", "dynamic_stitch"),
    "parallel_dynamic_stitch": ("trainflow.ops.data_flow.partition", "parallel_dynamic_stitch"),
    "clip_by_value": ("trainflow.ops.math.clip_ops", "clip_by_value"),
    "clip_by_norm": ("trainflow.ops.math.clip_ops", "clip_by_norm"),
    "clip_by_average_norm": ("trainflow.ops.math.clip_ops", "clip_by_average_norm"),
    "clip_by_global_norm": ("trainflow.ops.math.clip_ops", "clip_by_global_norm"),
    "global_norm": ("trainflow.ops.math.clip_ops", "global_norm"),
    # --- queues, readers, parsing, input pipelines (issue 12) ---
    "QueueBase": ("trainflow.ops.data_flow.queues", "QueueBase"),
    "FIFOQueue": ("trainflow.ops.data_flow.queues", "FIFOQueue"),
    "PaddingFIFOQueue": ("trainflow.ops.data_flow.queues", "PaddingFIFOQueue"),
    "RandomShuffleQueue": ("trainflow.ops.data_flow.queues", "RandomShuffleQueue"),
    "PriorityQueue": ("trainflow.ops.data_flow.queues", "PriorityQueue"),
    "ConditionalAccumulator": ("trainflow.ops.data_flow.accumulators", "ConditionalAccumulator"),
    "SparseConditionalAccumulator": ("trainflow.ops.data_flow.accumulators",
                                     "SparseConditionalAccumulator"),
    "ReaderBase": ("trainflow.ops.io.readers", "ReaderBase"),
    "TFRecordReader": ("trainflow.ops.io.readers", "TFRecordReader"),
    "TextLineReader": ("trainflow.ops.io.readers", "TextLineReader"),
    "FixedLengthRecordReader": ("trainflow.ops.io.readers", "FixedLengthRecordReader"),
    "WholeFileReader": ("trainflow.ops.io.readers", "WholeFileReader"),
    "IdentityReader": ("trainflow.ops.io.readers", "IdentityReader"),
    "read_file": ("trainflow.ops.io.file_io_ops", "read_file"),
    "write_file": ("trainflow.ops.io.file_io_ops", "write_file"),
    "matching_files": ("trainflow.ops.io.file_io_ops", "matching_files"),
    "FixedLenFeature": ("trainflow.ops.io.parsing_config", "FixedLenFeature"),
    "FixedLenSequenceFeature": ("trainflow.ops.io.parsing_config", "FixedLenSequenceFeature"),
    "VarLenFeature": ("trainflow.ops.io.parsing_config", "VarLenFeature"),
    "SparseFeature": ("trainflow.ops.io.parsing_config", "SparseFeature"),
    "parse_example": ("trainflow.ops.io.parsing_ops", "parse_example"),
    "parse_single_example": ("trainflow.ops.io.parsing_ops", "parse_single_example"),
    "parse_single_sequence_example": ("trainflow.ops.io.sequence_parsing",
                                      "parse_single_sequence_example"),
    "decode_raw": ("trainflow.ops.io.decode_ops", "decode_raw"),
    "decode_csv": ("trainflow.ops.io.decode_ops", "decode_csv"),
    "decode_json_example": ("trainflow.ops.io.decode_ops", "decode_json_example"),
    "strings": "trainflow.strings",
    "queue": "trainflow.queue",
    "string_split": ("trainflow.ops.string.string_ops", "string_split"),
    "string_join": ("trainflow.ops.string.string_ops", "string_join"),
    "reduce_join": ("trainflow.ops.string.string_ops", "reduce_join"),
    "substr": ("trainflow.ops.string.string_ops", "substr"),
    "regex_replace": ("trainflow.ops.string.string_ops", "regex_replace"),
    "string_to_number": ("trainflow.ops.string.string_convert", "string_to_number"),
    "as_string": ("trainflow.ops.string.string_convert", "as_string"),
    "string_to_hash_bucket": ("trainflow.ops.string.string_convert", "string_to_hash_bucket"),
    "string_to_hash_bucket_fast": ("trainflow.ops.string.string_convert",
                                   "string_to_hash_bucket_fast"),
    "string_to_hash_bucket_strong": ("trainflow.ops.string.string_convert",
                                     "string_to_hash_bucket_strong"),
    "scalar_summary": ("trainflow.ops.summary.summary_ops", "scalar_summary"),
    "histogram_summary": ("trainflow.ops.summary.summary_ops", "histogram_summary"),
    "image_summary": ("trainflow.ops.summary.summary_ops", "image_summary"),
    "audio_summary": ("trainflow.ops.summary.summary_ops", "audio_summary"),
    "merge_summary": ("trainflow.ops.summary.summary_ops", "merge_summary"),
    "merge_all_summaries": ("trainflow.ops.summary.summary_ops", "merge_all_summaries"),
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
