"""The `checkpoint` state file and checkpoint files on disk (`tf.train` checkpoint management).

The state file is a text-format CheckpointState proto: the latest prefix and every kept one
(oldest first). Paths inside the checkpoint directory are stored relative to it when the
caller asks for relative paths (or passes a relative directory), and relative paths are
joined with the directory on reading, so a moved directory still resolves.
"""
import glob
import logging
import os
import re

from trainflow._src.formats import atomic
from trainflow._src.gfile.paths import os_error
from trainflow._src.protos.checkpoint_state_pb2 import CheckpointState

_log = logging.getLogger(__name__)

# SaverDef.CheckpointFormatVersion values
V1 = 1
V2 = 2


def _state_filename(save_dir, latest_filename):
    return os.path.join(save_dir, latest_filename or "checkpoint")


def _matching_files(pattern):
    """Files matching a glob pattern (a plain existing path matches itself), as TF's glob."""
    if os.path.exists(pattern):
        return [pattern]
    return sorted(glob.glob(pattern))


def atomic_write_string_to_file(filename, contents, sync=True):
    """Writes `contents` (str or bytes) to `filename` via a temporary file and a rename.

    Raises:
      NotFoundError: the directory does not exist.
      FailedPreconditionError: `filename` is a directory, or its folder is a file.
      PermissionDeniedError: the directory is not writable.
    """
    filename = os.fspath(filename)
    try:
        atomic.write_file(filename, contents, sync=sync, marker=atomic.STATE_MARKER)
    except OSError as e:
        raise os_error(e, e.filename or filename) from None


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """Builds a CheckpointState proto.

    `model_checkpoint_path` is appended to `all_model_checkpoint_paths` when it is not
    already last. When `save_dir` is relative, relative paths are rewritten relative to it.

    Returns:
      A CheckpointState.

    Raises:
      ValueError: timestamps were given but do not match the paths in number.
    """
    save_dir = os.fspath(save_dir)
    model_checkpoint_path = os.fspath(model_checkpoint_path)
    paths = [os.fspath(p) for p in (all_model_checkpoint_paths or [])]
    if not paths or paths[-1] != model_checkpoint_path:
        _log.info("%s is not in all_model_checkpoint_paths. Manually adding it.",
                  model_checkpoint_path)
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError("Checkpoint timestamps, if provided, must match checkpoint paths (got "
                         f"paths {paths} and timestamps {list(all_model_checkpoint_timestamps)})")
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    state = CheckpointState(model_checkpoint_path=model_checkpoint_path,
                            all_model_checkpoint_paths=paths)
    if all_model_checkpoint_timestamps:
        state.all_model_checkpoint_timestamps.extend(all_model_checkpoint_timestamps)
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def update_checkpoint_state_internal(save_dir, model_checkpoint_path,
                                     all_model_checkpoint_paths=None, latest_filename=None,
                                     save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None,
                                     last_preserved_timestamp=None):
    """Writes the state file; with `save_relative_paths`, absolute paths become relative.

    Raises:
      RuntimeError: the checkpoint path is the state file itself.
    """
    save_dir = os.fspath(save_dir)
    model_checkpoint_path = os.fspath(model_checkpoint_path)
    paths = [os.fspath(p) for p in (all_model_checkpoint_paths or [])]
    if save_relative_paths:
        def rel(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p
        model_checkpoint_path = rel(model_checkpoint_path)
        paths = [rel(p) for p in paths]
    state = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)
    filename = _state_filename(save_dir, latest_filename)
    if filename == state.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for "
                           "checkpoint state.  Please use a different save path.")
    from google.protobuf import text_format
    atomic_write_string_to_file(filename, text_format.MessageToString(state))


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Updates the `checkpoint` state file in `save_dir` (atomically).

    Args:
      save_dir: directory holding the checkpoints.
      model_checkpoint_path: the latest checkpoint prefix.
      all_model_checkpoint_paths: kept checkpoints, oldest first.
      latest_filename: state file name (default "checkpoint").
      all_model_checkpoint_timestamps: optional creation times (seconds since the Epoch).
      last_preserved_timestamp: optional time of the last preserved checkpoint.

    Raises:
      RuntimeError: a checkpoint path equals the state file's path.
      NotFoundError: `save_dir` does not exist.
      FailedPreconditionError: `save_dir` is a file.
    """
    update_checkpoint_state_internal(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths, latest_filename,
        save_relative_paths=False,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """Reads the CheckpointState of `checkpoint_dir`, relative paths joined with it.

    Returns:
      The CheckpointState, or None when there is no readable state file.

    Raises:
      ValueError: the state file has no model_checkpoint_path.
    """
    from google.protobuf import text_format
    checkpoint_dir = os.fspath(checkpoint_dir)
    filename = _state_filename(checkpoint_dir, latest_filename)
    if not os.path.isfile(filename):
        return None
    try:
        with open(filename, "rb") as f:
            content = f.read().decode("utf-8")
        state = CheckpointState()
        text_format.Merge(content, state)
    except (OSError, UnicodeDecodeError, text_format.ParseError) as e:
        _log.warning("%s: %s", type(e).__name__, e)
        _log.warning("%s: Checkpoint ignored", filename)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def checkpoint_exists(checkpoint_prefix):
    """True if a V2 (`PREFIX.index`) or V1 (`PREFIX` itself, a pattern) checkpoint exists."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    return bool(_matching_files(checkpoint_prefix + ".index") or
                _matching_files(checkpoint_prefix))


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the latest checkpoint recorded in `checkpoint_dir`, or None.

    If the recorded path is absolute and gone (the directory was moved) but a checkpoint of
    the same name sits in `checkpoint_dir`, that one is returned.
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None or not state.model_checkpoint_path:
        return None
    path = state.model_checkpoint_path
    if checkpoint_exists(path):
        return path
    moved = os.path.join(os.fspath(checkpoint_dir), os.path.basename(path))
    if os.path.isabs(path) and moved != path and checkpoint_exists(moved):
        return moved
    _log.error("Couldn't match files for checkpoint %s", path)
    return None


def get_checkpoint_mtimes(checkpoint_prefixes):
    """Modification times (seconds, float) of the checkpoints that exist, V2 index first."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        prefix = os.fspath(prefix)
        for pattern in (prefix + ".index", prefix):
            files = _matching_files(pattern)
            if files:
                mtimes.append(os.stat(files[0]).st_mtime_ns / 1e9)
                break
    return mtimes


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta"):
    """`PREFIX.meta` for a checkpoint prefix (a shard suffix `-00000-of-00002` is dropped)."""
    base = re.sub(r"-[\d\?]+-of-\d+$", "", os.fspath(checkpoint_filename))
    return f"{base}.{meta_graph_suffix}"


def _delete_matching(pattern):
    for path in _matching_files(pattern):
        try:
            os.remove(path)
        except FileNotFoundError:
            _log.warning("Hit NotFoundError when deleting '%s', possibly because another "
                         "process/thread is also deleting/moving the same file", path)


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=V2, meta_graph_suffix="meta"):
    """Deletes a checkpoint's files: the `.meta`, and the index and data files (V2) or the
    file itself (V1)."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    _delete_matching(meta_graph_filename(checkpoint_prefix, meta_graph_suffix))
    if checkpoint_format_version == V2:
        _delete_matching(glob.escape(checkpoint_prefix) + ".index")
        _delete_matching(glob.escape(checkpoint_prefix) + ".data-?????-of-?????")
    else:
        _delete_matching(checkpoint_prefix)
