"""`tf.saved_model.utils`: TensorInfo protos of graph tensors and back, and the paths of a
SavedModel's folders."""
import os

from trainflow._src.framework import dtypes as dtypes_lib
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.meta_graph import prepend_name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.gfile import file_ops
from trainflow._src.protos import meta_graph_pb2, types_pb2
from trainflow._src.saved_model import constants


def build_tensor_info(tensor):
    """The TensorInfo of a Tensor (its name, dtype and static shape) or of a SparseTensor
    (the names of its three component tensors).

    Raises:
      TypeError: `tensor` is neither.
    """
    if not hasattr(tensor, "dtype") or not hasattr(tensor, "get_shape"):
        raise TypeError(f"Expected a Tensor or SparseTensor, got {tensor!r}")
    info = meta_graph_pb2.TensorInfo(
        dtype=dtypes_lib.as_dtype(tensor.dtype).as_datatype_enum,
        tensor_shape=tensor.get_shape().as_proto())
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


def build_tensor_info_from_op(op):
    """The TensorInfo naming an Operation (dtype DT_INVALID, unknown shape): how a
    signature lists an op to run, such as an init op."""
    return meta_graph_pb2.TensorInfo(dtype=types_pb2.DT_INVALID,
                                     tensor_shape=TensorShape(None).as_proto(), name=op.name)


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor or SparseTensor a TensorInfo names, in `graph` (default graph), with
    `import_scope` prepended to the names.

    Raises:
      KeyError: the graph has no such tensor.
      ValueError: the TensorInfo has no encoding this version reads.
    """
    graph = graph or get_default_graph()

    def _get(name):
        return graph.get_tensor_by_name(prepend_name_scope(name, import_scope))

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return _get(tensor_info.name)
    if encoding == "coo_sparse":
        coo = tensor_info.coo_sparse
        return SparseTensor(_get(coo.indices_tensor_name), _get(coo.values_tensor_name),
                            _get(coo.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}")


def get_element_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor or Operation a TensorInfo's name gives, in `graph` (default graph)."""
    graph = graph or get_default_graph()
    return graph.as_graph_element(prepend_name_scope(tensor_info.name, import_scope))


def _text(path):
    path = os.fspath(path)
    return path.decode("utf-8") if isinstance(path, bytes) else path


def get_variables_dir(export_dir):
    """`export_dir/variables`."""
    return os.path.join(_text(export_dir), constants.VARIABLES_DIRECTORY)


def get_variables_path(export_dir):
    """The checkpoint prefix of a SavedModel's variables: `export_dir/variables/variables`."""
    return os.path.join(get_variables_dir(export_dir), constants.VARIABLES_FILENAME)


def get_or_create_variables_dir(export_dir):
    """`export_dir/variables`, created if missing."""
    path = get_variables_dir(export_dir)
    file_ops.makedirs(path)
    return path


def get_assets_dir(export_dir):
    """`export_dir/assets`."""
    return os.path.join(_text(export_dir), constants.ASSETS_DIRECTORY)


def get_or_create_assets_dir(export_dir):
    """`export_dir/assets`, created if missing."""
    path = get_assets_dir(export_dir)
    file_ops.makedirs(path)
    return path


def get_debug_dir(export_dir):
    """`export_dir/debug`."""
    return os.path.join(_text(export_dir), constants.DEBUG_DIRECTORY)
