"""The everyday hooks of `tf.train`: logging tensors, stopping at a step, NaN checks,
feeding, final ops and waiting for a global step."""
import time

import numpy as np

from trainflow._src import tf_logging as logging
from trainflow._src.framework import errors
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.train import training_util
from trainflow._src.train.session_run_hook import SessionRunArgs, SessionRunHook
from trainflow._src.train.session_run_timer import NeverTriggerTimer, SecondOrStepTimer


def _as_graph_element(obj):
    """The graph element (Tensor or Operation) `obj` names in the default graph."""
    graph = get_default_graph()
    if not isinstance(obj, str):
        if getattr(obj, "graph", graph) is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to "
                             f"current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:  # a name with a second output is ambiguous, as in TF
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs "
                     "(at least 2).")


class LoggingTensorHook(SessionRunHook):
    """Logs the values of tensors every N local steps, every N seconds, and/or at the end.

    Args:
      tensors: dict of tag -> tensor (or name), or a list of tensors/names (tag = name).
      every_n_iter: log every N calls of `run`.
      every_n_secs: log at most every N seconds.
      at_end: also log the values after the last step.
      formatter: optional fn(dict of tag -> value) -> str.

    Raises:
      ValueError: unless at_end is set or exactly one of every_n_iter and every_n_secs is.
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors)
        self._tensors = tensors
        self._formatter = formatter
        self._timer = NeverTriggerTimer() if only_log_at_end else \
            SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter)
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):  # noqa: ARG002
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        return SessionRunArgs(self._current_tensors) if self._should_trigger else None

    def _log_tensors(self, tensor_values):
        # As TF: values through `%s` (a float32 prints as float32, not through float64),
        # arrays without scientific notation.
        with np.printoptions(suppress=True):
            elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
            if self._formatter:
                logging.info(self._formatter(tensor_values))
                return
            line = ", ".join("%s = %s" % (tag, tensor_values[tag])  # noqa: UP031
                             for tag in self._tag_order)
            if elapsed_secs is not None:
                logging.info("%s (%.3f sec)", line, elapsed_secs)
            else:
                logging.info("%s", line)

    def after_run(self, run_context, run_values):  # noqa: ARG002
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StopAtStepHook(SessionRunHook):
    """Requests a stop when the global step reaches `last_step` (or start + `num_steps`).

    Raises:
      ValueError: unless exactly one of num_steps and last_step is given, or if
        num_steps is negative.
    """

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("Exactly one of num_steps and last_step must be provided.")
        if num_steps is not None and num_steps < 0:
            raise ValueError("num_steps must be positive.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = training_util.global_step_read_or_raise("StopAtStepHook")

    def after_create_session(self, session, coord):  # noqa: ARG002
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):  # noqa: ARG002
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        # The fetched value is the step before this run's increment.
        if run_values.results + 1 >= self._last_step:
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


class NanLossDuringTrainingError(RuntimeError):
    """Raised by `NanTensorHook` when the loss became NaN."""

    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Watches a loss tensor: a NaN raises `NanLossDuringTrainingError` (or only stops
    the loop when `fail_on_nan_loss` is False)."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):  # noqa: ARG002
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                logging.error(message)
                raise NanLossDuringTrainingError
            logging.warning(message)
            run_context.request_stop()


class FeedFnHook(SessionRunHook):
    """Adds `feed_fn()`'s dict to the feeds of every step."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):  # noqa: ARG002
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` when the session ends; their values are `final_ops_values`."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        """The values of the final ops, once `end` has run."""
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except (errors.OutOfRangeError, StopIteration) as e:
            logging.warning("FinalOpsHook: running the final ops raised %s. The final ops "
                            "should only read variables; one of them depends on an input "
                            "source that is now exhausted.", type(e).__name__)
            raise e


class GlobalStepWaiterHook(SessionRunHook):
    """Holds the first step of this worker until the global step reaches `wait_until_step`
    (lets a chief make progress before the other workers start)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = training_util.global_step_read_or_raise("_GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        logging.info("Waiting for global step %d before starting training.",
                     self._wait_until_step)
        last_logged_step = 0
        while True:
            current_step = training_util.global_step(run_context.session,
                                                     self._global_step_tensor)
            if current_step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current_step - last_logged_step > 1000:
                logging.info("Waiting for global step %d before starting training. "
                             "Current step is %d.", self._wait_until_step, current_step)
                last_logged_step = current_step
            time.sleep(0.5)
