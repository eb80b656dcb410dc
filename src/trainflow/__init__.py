"""trainflow: TensorFlow 1.x's graph-mode core and `tf.train`, in Python on NumPy.

`import trainflow as tf` (or `import trainflow.compat.v1 as tf`) gives the TF1
namespace. Heavy parts (train, summary, io, protos) load on first use.
"""
import builtins as _builtins
import importlib as _importlib

from trainflow._src.framework import errors
from trainflow._src.framework.dtypes import *  # noqa: F401,F403
from trainflow._src.framework.dtypes import DType, as_dtype  # noqa: F401
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
    convert_to_tensor, convert_n_to_tensor, convert_to_tensor_or_indexed_slices, is_tensor,
    register_tensor_conversion_function)
from trainflow._src.framework.tensor_shape import (  # noqa: F401
    Dimension, TensorShape, dimension_at_index, dimension_value)
from trainflow._src.framework.tensor_util import constant_value, get_static_value  # noqa: F401
from trainflow._src.ops.array.array_ops import *  # noqa: F401,F403
from trainflow._src.ops.control_flow.check_ops import *  # noqa: F401,F403
from trainflow._src.framework.constant_op import *  # noqa: F401,F403
from trainflow._src.ops.control_flow.control_flow_ops import *  # noqa: F401,F403
from trainflow._src.ops.state.init_ops import *  # noqa: F401,F403
from trainflow._src.ops.string.logging_ops import *  # noqa: F401,F403
from trainflow._src.ops.math.math_ops import *  # noqa: F401,F403
from trainflow._src.ops.random.random_ops import *  # noqa: F401,F403
from trainflow._src.ops.script.script_ops import *  # noqa: F401,F403
from trainflow._src.ops.state.state_ops import *  # noqa: F401,F403
from trainflow._src.ops.state.variable_scope import *  # noqa: F401,F403
from trainflow._src.ops.state.partitioned_variables import *  # noqa: F401,F403
from trainflow._src.ops.state.variables import *  # noqa: F401,F403
from trainflow._src.runtime.session import (  # noqa: F401
    InteractiveSession, Session, get_default_session)
import trainflow._src.distributed  # noqa: E402,F401 - Session("grpc://...") works without tf.train
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
    "logging": "trainflow._src.tf_logging",
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
    "dtypes": "trainflow._src.framework.dtypes",
    "ConfigProto": ("trainflow._src.protos.config_pb2", "ConfigProto"),
    "GPUOptions": ("trainflow._src.protos.config_pb2", "GPUOptions"),
    "GraphOptions": ("trainflow._src.protos.config_pb2", "GraphOptions"),
    "OptimizerOptions": ("trainflow._src.protos.config_pb2", "OptimizerOptions"),
    "RunOptions": ("trainflow._src.protos.config_pb2", "RunOptions"),
    "RunMetadata": ("trainflow._src.protos.config_pb2", "RunMetadata"),
    "GraphDef": ("trainflow._src.protos.graph_pb2", "GraphDef"),
    "NodeDef": ("trainflow._src.protos.node_def_pb2", "NodeDef"),
    "AttrValue": ("trainflow._src.protos.attr_value_pb2", "AttrValue"),
    "NameAttrList": ("trainflow._src.protos.attr_value_pb2", "NameAttrList"),
    "TensorShapeProto": ("trainflow._src.protos.tensor_shape_pb2", "TensorShapeProto"),
    "TensorInfo": ("trainflow._src.protos.meta_graph_pb2", "TensorInfo"),
    "TensorProto": ("trainflow._src.protos.tensor_pb2", "TensorProto"),
    "MetaGraphDef": ("trainflow._src.protos.meta_graph_pb2", "MetaGraphDef"),
    "Summary": ("trainflow._src.protos.summary_pb2", "Summary"),
    "SummaryMetadata": ("trainflow._src.protos.summary_pb2", "SummaryMetadata"),
    "HistogramProto": ("trainflow._src.protos.summary_pb2", "HistogramProto"),
    "Event": ("trainflow._src.protos.event_pb2", "Event"),
    "SessionLog": ("trainflow._src.protos.event_pb2", "SessionLog"),
    "LogMessage": ("trainflow._src.protos.event_pb2", "LogMessage"),
    "make_tensor_proto": ("trainflow._src.formats.tensor_proto", "make_tensor_proto"),
    "make_ndarray": ("trainflow._src.formats.tensor_proto", "make_ndarray"),
    "import_graph_def": ("trainflow._src.framework.graph_def", "import_graph_def"),
    "dynamic_partition": ("trainflow._src.ops.data_flow.partition", "dynamic_partition"),
    # Linear algebra, einsum, bitwise and set ops (TF1's top-level names).
    "custom_gradient": ("trainflow._src.gradients.custom_gradient", "custom_gradient"),
    "TensorArray": ("trainflow._src.ops.data_flow.tensor_array", "TensorArray"),
    "map_fn": ("trainflow._src.ops.control_flow.functional_ops", "map_fn"),
    "scan": ("trainflow._src.ops.control_flow.functional_ops", "scan"),
    "foldl": ("trainflow._src.ops.control_flow.functional_ops", "foldl"),
    "foldr": ("trainflow._src.ops.control_flow.functional_ops", "foldr"),
    "linalg": "trainflow.linalg",
    "bitwise": "trainflow.bitwise",
    "einsum": ("trainflow._src.ops.math.einsum", "einsum"),
    "norm": ("trainflow._src.ops.linalg.norm", "norm"),
    "setdiff1d": ("trainflow._src.ops.array.set_ops", "setdiff1d"),
    "matrix_inverse": ("trainflow._src.ops.linalg.linalg_api", "matrix_inverse"),
    "matrix_determinant": ("trainflow._src.ops.linalg.linalg_api", "matrix_determinant"),
    "cholesky": ("trainflow._src.ops.linalg.linalg_api", "cholesky"),
    "cholesky_solve": ("trainflow._src.ops.linalg.linalg_api", "cholesky_solve"),
    "matrix_solve": ("trainflow._src.ops.linalg.linalg_api", "matrix_solve"),
    "matrix_triangular_solve": ("trainflow._src.ops.linalg.linalg_api", "matrix_triangular_solve"),
    "svd": ("trainflow._src.ops.linalg.linalg_api", "svd"),
    "matrix_band_part": ("trainflow._src.ops.linalg.linalg_api", "matrix_band_part"),
    "matrix_transpose": ("trainflow._src.ops.linalg.linalg_api", "matrix_transpose"),
    "trace": ("trainflow._src.ops.linalg.linalg_api", "trace"),
    "eye": ("trainflow._src.ops.linalg.linalg_api", "eye"),
    "cross": ("trainflow._src.ops.linalg.linalg_api", "cross"),
    "self_adjoint_eig": ("trainflow._src.ops.linalg.eig", "self_adjoint_eig"),
    "matrix_solve_ls": ("trainflow._src.ops.linalg.least_squares", "matrix_solve_ls"),
    "self_adjoint_eigvals": ("trainflow._src.ops.linalg.eig", "self_adjoint_eigvals"),
    "sparse_segment_sum": ("trainflow._src.ops.math.sparse_segment", "sparse_segment_sum"),
    "sparse_segment_mean": ("trainflow._src.ops.math.sparse_segment", "sparse_segment_mean"),
    "sparse_segment_sqrt_n": ("trainflow._src.ops.math.sparse_segment", "sparse_segment_sqrt_n"),
    "unsorted_segment_mean": ("trainflow._src.ops.math.sparse_segment", "unsorted_segment_mean"),
    "igamma": ("trainflow._src.ops.math.special_gamma", "igamma"),
    "igammac": ("trainflow._src.ops.math.special_gamma", "igammac"),
    "zeta": ("trainflow._src.ops.math.special_gamma", "zeta"),
    "batch_gather": ("trainflow._src.ops.array.depth_space", "batch_gather"),
    "parallel_stack": ("trainflow._src.ops.array.depth_space", "parallel_stack"),
    "depth_to_space": ("trainflow._src.ops.array.depth_space", "depth_to_space"),
    "space_to_depth": ("trainflow._src.ops.array.depth_space", "space_to_depth"),
    "unsorted_segment_sqrt_n": ("trainflow._src.ops.math.sparse_segment",
                                "unsorted_segment_sqrt_n"),
    "confusion_matrix": ("trainflow._src.metrics.metrics_util", "confusion_matrix"),
    "dynamic_stitch": ("trainflow._src.ops.data_flow.partition", "dynamic_stitch"),
    "parallel_dynamic_stitch": ("trainflow._src.ops.data_flow.partition", "parallel_dynamic_stitch"),
    "clip_by_value": ("trainflow._src.ops.math.clip_ops", "clip_by_value"),
    "clip_by_norm": ("trainflow._src.ops.math.clip_ops", "clip_by_norm"),
    "clip_by_average_norm": ("trainflow._src.ops.math.clip_ops", "clip_by_average_norm"),
    "clip_by_global_norm": ("trainflow._src.ops.math.clip_ops", "clip_by_global_norm"),
    "global_norm": ("trainflow._src.ops.math.clip_ops", "global_norm"),
    # --- queues, readers, parsing, input pipelines (issue 12) ---
    "QueueBase": ("trainflow._src.ops.data_flow.queues", "QueueBase"),
    "FIFOQueue": ("trainflow._src.ops.data_flow.queues", "FIFOQueue"),
    "PaddingFIFOQueue": ("trainflow._src.ops.data_flow.queues", "PaddingFIFOQueue"),
    "RandomShuffleQueue": ("trainflow._src.ops.data_flow.queues", "RandomShuffleQueue"),
    "PriorityQueue": ("trainflow._src.ops.data_flow.queues", "PriorityQueue"),
    "ConditionalAccumulator": ("trainflow._src.ops.data_flow.accumulators", "ConditionalAccumulator"),
    "SparseConditionalAccumulator": ("trainflow._src.ops.data_flow.accumulators",
                                     "SparseConditionalAccumulator"),
    "ReaderBase": ("trainflow._src.ops.io.readers", "ReaderBase"),
    "TFRecordReader": ("trainflow._src.ops.io.readers", "TFRecordReader"),
    "TextLineReader": ("trainflow._src.ops.io.readers", "TextLineReader"),
    "FixedLengthRecordReader": ("trainflow._src.ops.io.readers", "FixedLengthRecordReader"),
    "WholeFileReader": ("trainflow._src.ops.io.readers", "WholeFileReader"),
    "IdentityReader": ("trainflow._src.ops.io.readers", "IdentityReader"),
    "read_file": ("trainflow._src.ops.io.file_io_ops", "read_file"),
    "write_file": ("trainflow._src.ops.io.file_io_ops", "write_file"),
    "matching_files": ("trainflow._src.ops.io.file_io_ops", "matching_files"),
    "FixedLenFeature": ("trainflow._src.ops.io.parsing_config", "FixedLenFeature"),
    "FixedLenSequenceFeature": ("trainflow._src.ops.io.parsing_config", "FixedLenSequenceFeature"),
    "VarLenFeature": ("trainflow._src.ops.io.parsing_config", "VarLenFeature"),
    "SparseFeature": ("trainflow._src.ops.io.parsing_config", "SparseFeature"),
    "parse_example": ("trainflow._src.ops.io.parsing_ops", "parse_example"),
    "parse_single_example": ("trainflow._src.ops.io.parsing_ops", "parse_single_example"),
    "parse_single_sequence_example": ("trainflow._src.ops.io.sequence_parsing",
                                      "parse_single_sequence_example"),
    "decode_raw": ("trainflow._src.ops.io.decode_ops", "decode_raw"),
    "decode_csv": ("trainflow._src.ops.io.decode_ops", "decode_csv"),
    "decode_json_example": ("trainflow._src.ops.io.decode_ops", "decode_json_example"),
    "strings": "trainflow.strings",
    "queue": "trainflow.queue",
    "string_split": ("trainflow._src.ops.string.string_ops", "string_split"),
    "string_join": ("trainflow._src.ops.string.string_ops", "string_join"),
    "reduce_join": ("trainflow._src.ops.string.string_ops", "reduce_join"),
    "substr": ("trainflow._src.ops.string.string_ops", "substr"),
    "regex_replace": ("trainflow._src.ops.string.string_ops", "regex_replace"),
    "string_to_number": ("trainflow._src.ops.string.string_convert", "string_to_number"),
    "as_string": ("trainflow._src.ops.string.string_convert", "as_string"),
    "string_to_hash_bucket": ("trainflow._src.ops.string.string_convert", "string_to_hash_bucket"),
    "string_to_hash_bucket_fast": ("trainflow._src.ops.string.string_convert",
                                   "string_to_hash_bucket_fast"),
    "string_to_hash_bucket_strong": ("trainflow._src.ops.string.string_convert",
                                     "string_to_hash_bucket_strong"),
    "scalar_summary": ("trainflow._src.ops.summary.summary_ops", "scalar_summary"),
    "histogram_summary": ("trainflow._src.ops.summary.summary_ops", "histogram_summary"),
    "image_summary": ("trainflow._src.ops.summary.summary_ops", "image_summary"),
    "audio_summary": ("trainflow._src.ops.summary.summary_ops", "audio_summary"),
    "merge_summary": ("trainflow._src.ops.summary.summary_ops", "merge_summary"),
    "merge_all_summaries": ("trainflow._src.ops.summary.summary_ops", "merge_all_summaries"),
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
