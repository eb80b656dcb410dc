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

__version__ = "0.1.0"
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
    "confusion_matrix": ("trainflow.metrics.metrics_util", "confusion_matrix"),
    "dynamic_stitch": ("trainflow.ops.data_flow.partition", "dynamic_stitch"),
    "parallel_dynamic_stitch": ("trainflow.ops.data_flow.partition", "parallel_dynamic_stitch"),
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
