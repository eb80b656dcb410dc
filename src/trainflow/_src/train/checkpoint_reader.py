"""`tf.train.NewCheckpointReader`: one reader for V2 (tensor bundle) and V1 checkpoints."""
import os

from trainflow._src.formats import tensor_bundle
from trainflow._src.formats.checkpoint_v1 import V1CheckpointReader
from trainflow._src.formats.tensor_bundle_reader import BundleReader
from trainflow._src.formats.tensor_bundle_slices import encode_tensor_name_slice
from trainflow._src.protos import trackable_object_graph_pb2

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _path_str(path):
    """A path (str, bytes in any encoding, PathLike) as str; TypeError for anything else."""
    if hasattr(path, "__fspath__"):
        path = os.fspath(path)
    if isinstance(path, (bytes, bytearray)):
        return os.fsdecode(bytes(path))
    if not isinstance(path, str):
        raise TypeError(f"Expected binary or unicode string, got {path!r}")
    return path


def _name_str(name):
    """A tensor name (str or bytes) as str; TypeError, as TF, for anything else."""
    if isinstance(name, (bytes, bytearray)):
        return tensor_bundle.key_str(bytes(name))
    if not isinstance(name, str):
        raise TypeError(f"Expected binary or unicode string, got {name!r}")
    return name


class CheckpointReader:
    """Reads the tensors of a checkpoint, as TF's `pywrap CheckpointReader`.

    A V2 checkpoint is chosen when `PREFIX.index` exists; otherwise `filepattern` is read
    as a V1 checkpoint file (or glob pattern of its shards).

    Args:
      filepattern: a V2 prefix, or a V1 file name or pattern (str, bytes or PathLike).

    Raises:
      NotFoundError: no checkpoint matches ("Unsuccessful TensorSliceReader constructor:
        Failed to find any matching files for ...", as TF).
      DataLossError: the file is not a checkpoint (for example a directory).
    """

    def __init__(self, filepattern):
        self.filepattern = _path_str(filepattern)
        self._v2 = None
        self._v1 = None
        if os.path.exists(tensor_bundle.index_filename(self.filepattern)):
            self._v2 = BundleReader(self.filepattern)
            self._build_v2_maps()
        else:
            self._v1 = V1CheckpointReader(self.filepattern)

    @property
    def format_version(self):
        """1 for a V1 checkpoint, 2 for a tensor bundle."""
        return 2 if self._v2 is not None else 1

    def _build_v2_maps(self):
        entries = list(self._v2.entries())
        hidden = set()
        for e in entries:
            for sl in e.slices:
                hidden.add(encode_tensor_name_slice(e.key, sl))
        self._shapes = {}
        self._dtypes = {}
        for e in entries:
            if tensor_bundle.as_key(e.key) in hidden:
                continue
            self._shapes[e.key] = list(e.shape)
            self._dtypes[e.key] = e.dtype

    def get_tensor(self, tensor_str):
        """Returns the tensor named `tensor_str` as an ndarray (strings: object array of bytes).

        Partitioned tensors come back whole. A scalar comes back as a NumPy scalar (bytes for
        a string), as TF's reader returns it.

        Raises:
          NotFoundError: no such tensor ("Key NAME not found in checkpoint" for V2).
          DataLossError: the stored bytes fail their checksum.
        """
        tensor_str = _name_str(tensor_str)
        if self._v2 is not None:
            value = self._v2.lookup(tensor_str)
        else:
            value = self._v1.get_tensor(tensor_str)
        return value[()] if value.ndim == 0 else value

    def has_tensor(self, tensor_str):
        """True if the checkpoint holds a tensor (or V2 key) named `tensor_str`."""
        tensor_str = _name_str(tensor_str)
        if self._v2 is not None:
            return tensor_str in self._v2
        return self._v1.has_tensor(tensor_str)

    def get_variable_to_shape_map(self):
        """Dict of tensor name -> shape as a list of ints (slices of partitioned ones left out)."""
        if self._v2 is not None:
            return {k: list(v) for k, v in self._shapes.items()}
        return {k: list(self._v1.shape(k)) for k in self._v1.keys()}

    def get_variable_to_dtype_map(self):
        """Dict of tensor name -> trainflow DType."""
        if self._v2 is not None:
            return dict(self._dtypes)
        return {k: self._v1.dtype(k) for k in self._v1.keys()}

    def debug_string(self):
        """One `name (DT_X) [shape]` line per stored tensor, as bytes (TF's format)."""
        if self._v2 is not None:
            return self._v2.debug_string()
        return self._v1.debug_string()

    def get_slices(self, tensor_str):
        """The saved slices (TensorSlice list) of a partitioned tensor; [] for a whole one.

        Raises:
          NotFoundError: no such tensor.
        """
        tensor_str = _name_str(tensor_str)
        if self._v2 is not None:
            return list(self._v2.slices(tensor_str))
        slices = self._v1.slices(tensor_str)
        if len(slices) == 1 and slices[0].covers(self._v1.shape(tensor_str)):
            return []
        return slices

    def get_object_graph(self):
        """The TrackableObjectGraph of an object-based checkpoint, or None if it has none."""
        if not self.has_tensor(OBJECT_GRAPH_KEY):
            return None
        raw = self.get_tensor(OBJECT_GRAPH_KEY)
        return trackable_object_graph_pb2.TrackableObjectGraph.FromString(bytes(raw))

    def close(self):
        """Releases open files."""
        if self._v2 is not None:
            self._v2.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def NewCheckpointReader(filepattern):  # noqa: N802 - TF's name
    """Opens a checkpoint for reading (`tf.train.NewCheckpointReader`).

    Args:
      filepattern: a V2 checkpoint prefix, or a V1 checkpoint file or pattern.

    Returns:
      A CheckpointReader.
    """
    return CheckpointReader(filepattern)
