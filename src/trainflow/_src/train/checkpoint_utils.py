"""`tf.train.load_checkpoint`, `load_variable`, `list_variables` and checkpoint polling."""
import logging
import os
import time

from trainflow._src.train import checkpoint_management
from trainflow._src.train.checkpoint_reader import NewCheckpointReader

_log = logging.getLogger(__name__)


def _checkpoint_filename(ckpt_dir_or_file):
    """A directory's latest checkpoint (None if it has none); anything else as given."""
    if isinstance(ckpt_dir_or_file, bytes):
        ckpt_dir_or_file = ckpt_dir_or_file.decode("utf-8")
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return checkpoint_management.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """Returns a CheckpointReader for a checkpoint prefix or V1 file, or a directory's latest.

    Raises:
      ValueError: a directory holds no checkpoint.
      NotFoundError: the checkpoint does not exist.
    """
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory "
                         f"{os.fspath(ckpt_dir_or_file)}")
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """Returns the value of tensor `name` (a trailing ":0" is ignored) as an ndarray.

    Raises:
      NotFoundError: no such tensor.
    """
    if name.endswith(":0"):
        name = name[:-2]
    with load_checkpoint(ckpt_dir_or_file) as reader:
        return reader.get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """Returns sorted (name, shape list) pairs of every tensor in the checkpoint."""
    with load_checkpoint(ckpt_dir_or_file) as reader:
        shapes = reader.get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                            timeout=None):
    """Polls `checkpoint_dir` until its latest checkpoint differs from `last_checkpoint`.

    Returns:
      The new checkpoint prefix, or None when `timeout` seconds pass first.
    """
    _log.info("Waiting for new checkpoint at %s", checkpoint_dir)
    deadline = None if timeout is None else time.time() + timeout
    while True:
        path = checkpoint_management.latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            _log.info("Found new checkpoint at %s", path)
            return path
        if deadline is not None and time.time() + seconds_to_sleep > deadline:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint prefix of `checkpoint_dir` as it appears.

    Args:
      checkpoint_dir: the directory to watch.
      min_interval_secs: least time between two yields.
      timeout: seconds to wait for a new checkpoint before giving up (None: forever).
      timeout_fn: called on a timeout; iteration ends when it returns True (or when it is
        None), otherwise waiting resumes.
    """
    last = None
    while True:
        path = wait_for_new_checkpoint(checkpoint_dir, last, timeout=timeout)
        if path is None:
            if timeout_fn is None:
                _log.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        started = time.time()
        last = path
        yield path
        remaining = started + min_interval_secs - time.time()
        if remaining > 0:
            time.sleep(remaining)
