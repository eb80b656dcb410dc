"""`tf.train.SessionManager`: creates sessions that are initialized, restored from a
checkpoint, or (on non-chief workers) waited for until another task initialized them."""
import time

import numpy as np

from trainflow._src import tf_logging as logging
from trainflow._src.framework import errors
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.runtime.session import Session
from trainflow._src.train import checkpoint_management


def _maybe_name(obj):
    """The name of a graph element, for messages."""
    if obj is None:
        return None
    return getattr(obj, "name", None) or f"<no name for {type(obj).__name__}>"


def _new_session(master, graph, config):
    return Session(master, graph=graph, config=config)


class SessionManager:
    """Creates sessions for one graph, checking readiness with `ready_op`.

    Args:
      local_init_op: run on every session before it is handed out.
      ready_op: a string tensor listing what is not initialized (empty when ready).
      ready_for_local_init_op: the same check run before local_init_op.
      graph: the graph (default: the default graph).
      recovery_wait_secs: how long to sleep between readiness or checkpoint checks.
      local_init_run_options: RunOptions for local_init_op.
      local_init_feed_dict: feeds for local_init_op.

    Raises:
      ValueError: if ready_for_local_init_op is given without ready_op.
    """

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None,
                 graph=None, recovery_wait_secs=30, local_init_run_options=None,
                 local_init_feed_dict=None):
        if graph is None:
            graph = get_default_graph()
        if ready_op is None and ready_for_local_init_op is not None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a "
                             "ready_op.")
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph
        self._recovery_wait_secs = recovery_wait_secs
        self._target = None
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict

    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None,
                            checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                            max_wait_secs=7200, config=None):
        """A new session, restored from a checkpoint when there is one.

        Returns:
          (session, restored): restored is True if a checkpoint was loaded.
        """
        self._target = master
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        sess = _new_session(master, self._graph, config)
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                logging.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
            else:
                return sess, False
        saver.restore(sess, ckpt.model_checkpoint_path)
        saver.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths))
        return sess, True

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None, init_feed_dict=None, init_fn=None):
        """A session that is ready to use: restored from the latest checkpoint of
        `checkpoint_dir` (or the given file) when there is one, else initialized with
        init_op / init_fn; local_init_op runs in both cases.

        Raises:
          RuntimeError: if the model is not ready afterwards, or nothing can init it.
        """
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        if not is_loaded_from_checkpoint:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                                   "local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not local_init_success:
            raise RuntimeError(f"Init operations did not make model ready for local_init.  "
                               f"Init op: {_maybe_name(init_op)}, init fn: {init_fn}, "
                               f"error: {msg}")
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            raise RuntimeError(f"Init operations did not make model ready.  Init op: "
                               f"{_maybe_name(init_op)}, init fn: {init_fn}, local_init_op: "
                               f"{_maybe_name(self._local_init_op)}, error: {msg}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None):
        """A session restored from a checkpoint if possible.

        Returns:
          (session, initialized): initialized is True if it was restored and is ready.
        """
        sess, is_loaded_from_checkpoint = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not is_loaded_from_checkpoint:
            return sess, False
        restoring_file = checkpoint_dir or checkpoint_filename_with_path
        if not local_init_success:
            logging.info("Restoring model from %s did not make model ready for local init: "
                         "%s", restoring_file, msg)
            return sess, False
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            logging.info("Restoring model from %s did not make model ready: %s",
                         restoring_file, msg)
            return sess, False
        logging.info("Restored model from %s", restoring_file)
        return sess, is_loaded_from_checkpoint

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """Waits until another task (the chief) has initialized the model.

        Raises:
          DeadlineExceededError: if it is not ready within max_wait_secs.
        """
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        start = time.time()
        while True:
            sess = _new_session(master, self._graph, config)
            not_ready_msg = None
            local_init_success, not_ready_local_msg = self._try_run_local_init_op(sess)
            if local_init_success:
                is_ready, not_ready_msg = self._model_ready(sess)
                if is_ready:
                    return sess
            self._safe_close(sess)
            remaining = max_wait_secs - (time.time() - start)
            if remaining < self._recovery_wait_secs:
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {max_wait_secs} secs.")
            logging.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, "
                         "ready: %s", not_ready_local_msg, not_ready_msg)
            time.sleep(self._recovery_wait_secs)

    @staticmethod
    def _safe_close(sess):
        try:
            sess.close()
        except Exception:  # noqa: BLE001 - closing a session that failed to start
            pass

    def _model_ready(self, sess):
        return _ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess):
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess):
        """Runs local_init_op if the model is ready for it. Returns (ran_or_none, msg)."""
        if self._local_init_op is None:
            return True, None
        is_ready, msg = self._model_ready_for_local_init(sess)
        if not is_ready:
            return False, msg
        logging.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                 options=self._local_init_run_options)
        logging.info("Done running local_init_op.")
        return True, None


def _ready(op, sess, msg):
    """Runs the readiness check `op`. Returns (is_ready, message)."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
        if value is None or getattr(value, "dtype", None) == np.int32 or np.size(value) == 0:
            return True, None
        names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v)
                          for v in np.ravel(value))
        return False, f"Variables not initialized: {names}"
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            logging.warning("%s : error [%s]", msg, str(e))
            raise
        return False, str(e)
