"""`tf.resource_loader`: paths of data files that sit beside a program's sources, the way
TensorFlow's (bazel-built) programs and tests find theirs."""
import inspect
import os
import sys

__all__ = ["get_data_files_path", "get_path_to_datafile", "get_root_dir_with_all_resources",
           "load_resource", "readahead_file_path"]


def _caller_dir(depth):
    """The directory of the source file `depth` frames above the function that asks."""
    return os.path.dirname(inspect.getfile(sys._getframe(depth + 1)))


def load_resource(path):
    """The bytes of the resource at `path`, relative to `get_path_to_datafile`'s
    directory, as TensorFlow reads it (beside this module: TF's resources are its own).

    Raises:
      IOError: if the path is not found or cannot be opened.
    """
    with open(get_path_to_datafile(path), "rb") as f:
        return f.read()


def get_data_files_path():
    """The directory of the calling script, where its data files are."""
    return _caller_dir(1)


def get_root_dir_with_all_resources():
    """The root of a bazel runfiles tree holding the data files, found by walking up from
    the data files directory to the directory under the first `*.runfiles` one; that
    directory itself when there is no runfiles tree."""
    script_dir = get_data_files_path()
    directories = [script_dir]
    data_files_dir = ""
    while True:
        candidate = directories[-1]
        if ".runfiles" in os.path.basename(candidate):
            if len(directories) > 1:
                data_files_dir = directories[-2]
            break
        parent = os.path.dirname(candidate)
        if parent == candidate:
            break
        directories.append(parent)
    return data_files_dir or script_dir


def get_path_to_datafile(path):
    """`path` joined to the directory of the calling script (TensorFlow's fallback when
    no bazel runfiles are found, which is the only case here)."""
    return os.path.join(_caller_dir(1), path)


def readahead_file_path(path, readahead="128M"):  # noqa: ARG001 - TF's signature
    """`path` itself: readahead is not implemented, as in TensorFlow."""
    return path
