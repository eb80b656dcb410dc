"""`tf.train.CheckpointManager`: numbered saves of a Checkpoint in a directory, keeping the
last `max_to_keep` (and one per `keep_checkpoint_every_n_hours`), recorded with their
timestamps in the directory's `checkpoint` state file, as TF does it (graph mode: the
default session runs the saves)."""
import collections
import glob
import logging
import os
import time

from trainflow._src.framework.session_stack import get_default_session
from trainflow._src.train import checkpoint_management, training_util
from trainflow._src.train.checkpoint_status import session_or_default

_log = logging.getLogger(__name__)


def _delete_matching(pattern):
    for path in glob.glob(pattern):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


class CheckpointManager:
    """Manages the checkpoints of `checkpoint` in `directory`.

    Args:
      checkpoint: the tf.train.Checkpoint to save and restore.
      directory: where checkpoints go (created on first save).
      max_to_keep: how many recent checkpoints to keep (None: all).
      keep_checkpoint_every_n_hours: also keep one checkpoint per this many hours.
      checkpoint_name: the file name prefix (default "ckpt").
      step_counter: a step variable; with `checkpoint_interval`, saves happen at most every
        that many steps.
      checkpoint_interval: see `step_counter`.
      init_fn: called by `restore_or_initialize` when there is no checkpoint.

    Raises:
      ValueError: max_to_keep is not positive, or checkpoint_interval lacks step_counter.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        self._checkpoint = checkpoint
        self._save_counter_assign = None
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._checkpoint_prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        state = checkpoint_management.get_checkpoint_state(self._directory)
        now = time.time()
        self._maybe_delete = collections.OrderedDict()
        if state is None:
            self._latest_checkpoint = None
            # A little in the past, so that a manager re-created at once keeps its files.
            self._last_preserved_timestamp = now - 1.0
        else:
            self._latest_checkpoint = state.model_checkpoint_path
            self._last_preserved_timestamp = state.last_preserved_timestamp
            if now < self._last_preserved_timestamp:
                _log.warning("time.time() returned a value %f seconds behind the last "
                             "preserved checkpoint timestamp.",
                             self._last_preserved_timestamp - now)
                self._last_preserved_timestamp = now
            paths = list(state.all_model_checkpoint_paths)
            stamps = list(state.all_model_checkpoint_timestamps) or \
                [self._last_preserved_timestamp] * len(paths)
            for path, stamp in zip(paths, stamps):
                stamp = min(stamp, now)
                if stamp > self._last_preserved_timestamp:
                    self._maybe_delete[path] = stamp

    @property
    def directory(self):
        """The checkpoint directory."""
        return self._directory

    @property
    def checkpoint_interval(self):
        """Least number of steps between saves, or None."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The newest checkpoint prefix, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The managed checkpoint prefixes, oldest first."""
        return list(self._maybe_delete)

    def _session(self):
        return session_or_default(None)

    def _step(self, session):
        return training_util.global_step(session, self._step_counter)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Saves a checkpoint numbered `checkpoint_number` (default: the Checkpoint's save
        counter, incremented) and deletes the ones no longer kept.

        Returns:
          The saved prefix, or None when `checkpoint_interval` steps have not passed.
        """
        session = self._session()
        if self._step_counter is not None and self._checkpoint_interval is not None and \
                check_interval:
            step = self._step(session)
            if self._last_checkpoint_step is not None and \
                    step - self._last_checkpoint_step < self._checkpoint_interval:
                return None
            self._last_checkpoint_step = step
        fresh = self._checkpoint._save_counter is None
        counter = self._checkpoint.save_counter
        if fresh:
            session.run(counter.initializer)
        if self._save_counter_assign is None:
            self._save_counter_assign = counter.assign_add(1, read_value=False)
        session.run(self._save_counter_assign)
        if checkpoint_number is None:
            checkpoint_number = counter
        if not isinstance(checkpoint_number, int):
            checkpoint_number = training_util.global_step(session, checkpoint_number)
        prefix = f"{self._checkpoint_prefix}-{checkpoint_number}"
        save_path = self._checkpoint.write(prefix, session=session, options=options)
        self._maybe_delete.pop(save_path, None)
        self._maybe_delete[save_path] = time.time()
        self._latest_checkpoint = save_path
        self._record_state()
        self._sweep()
        self._record_state()
        return save_path

    def _record_state(self):
        checkpoint_management.update_checkpoint_state_internal(
            self._directory, model_checkpoint_path=self._latest_checkpoint,
            all_model_checkpoint_paths=list(self._maybe_delete),
            all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
            last_preserved_timestamp=self._last_preserved_timestamp, save_relative_paths=True)

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            _delete_matching(glob.escape(path) + ".index")
            _delete_matching(glob.escape(path) + ".data-?????-of-?????")

    def restore_or_initialize(self):
        """Restores the latest checkpoint or calls `init_fn`. In graph mode the restore ops
        run in the default session when there is one (else they wait, as in TF).

        Returns:
          The restored prefix, or None.
        """
        if self._latest_checkpoint is not None:
            status = self._checkpoint.restore(self._latest_checkpoint)
            if get_default_session() is not None:
                status.run_restore_ops()
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = self._step(self._session())
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
