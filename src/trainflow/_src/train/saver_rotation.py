"""The Saver's bookkeeping of kept checkpoints: `max_to_keep` and
`keep_checkpoint_every_n_hours`, as TF's Saver does it.

Kept checkpoints are (prefix, creation time) pairs, oldest first. When a save pushes the
list past `max_to_keep`, the oldest leaves the list and is deleted at the end of that save,
unless it is the first one past the `keep_checkpoint_every_n_hours` mark, which is kept
(and moves the mark on by that many hours).
"""
import logging
import time

from trainflow._src.framework import errors
from trainflow._src.train import checkpoint_management

_log = logging.getLogger(__name__)


class CheckpointRotation:
    """Mixin of Saver: `last_checkpoints`, their setters and the deletion of old ones.

    The class using it provides `saver_def` (max_to_keep, keep_checkpoint_every_n_hours,
    version).
    """

    def _init_rotation(self):
        self._last_checkpoints = []
        self._checkpoints_to_be_deleted = []
        self._next_checkpoint_time = None

    def _reset_keep_time(self):
        self._next_checkpoint_time = (time.time() +
                                      self.saver_def.keep_checkpoint_every_n_hours * 3600)

    @staticmethod
    def _CheckpointFilename(p):  # noqa: N802 - TF's name
        """The prefix of a (prefix, time) pair, or `p` itself."""
        return p[0] if isinstance(p, tuple) else p

    def _RecordLastCheckpoint(self, latest_save_path):  # noqa: N802 - TF's name
        if not self.saver_def.max_to_keep:
            return
        for p in self._last_checkpoints[:]:
            if latest_save_path == self._CheckpointFilename(p):
                self._last_checkpoints.remove(p)
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _MaybeDeleteOldCheckpoints(self, meta_graph_suffix="meta"):  # noqa: N802
        if not self._checkpoints_to_be_deleted:
            return
        p = self._checkpoints_to_be_deleted.pop(0)
        if self._next_checkpoint_time is not None and p[1] > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            checkpoint_management.remove_checkpoint(self._CheckpointFilename(p),
                                                    self.saver_def.version, meta_graph_suffix)
        except Exception as e:  # noqa: BLE001 - TF logs and goes on
            _log.warning("Ignoring: %s", e)

    @property
    def last_checkpoints(self):
        """The kept checkpoint prefixes, oldest first."""
        return [self._CheckpointFilename(p) for p in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """Replaces the kept checkpoints (prefixes; they are never deleted by time).

        Raises:
          AssertionError: `last_checkpoints` is not a list.
        """
        assert isinstance(last_checkpoints, list)
        self._last_checkpoints = [(s, float("inf")) for s in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Replaces the kept checkpoints with (prefix, timestamp) pairs.

        Raises:
          AssertionError: the argument is not a list.
        """
        assert isinstance(last_checkpoints_with_time, list)
        self._last_checkpoints = last_checkpoints_with_time

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes the kept checkpoints from `checkpoint_paths` that still exist, with their
        file modification times (after a restart, from the state file's list)."""
        pairs = []
        for path in checkpoint_paths:
            try:
                mtime = checkpoint_management.get_checkpoint_mtimes([path])
            except errors.NotFoundError:
                continue
            if mtime:
                pairs.append((path, mtime[0]))
        self.set_last_checkpoints_with_time(pairs)
