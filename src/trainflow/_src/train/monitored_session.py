"""`tf.train.MonitoredSession` and `SingularMonitoredSession`: a session that runs hooks
around every step, starts and stops queue-runner threads with a Coordinator, and (for
MonitoredSession) recreates itself from the latest checkpoint when a worker or parameter
server goes away (`AbortedError` / `UnavailableError`).

The layers, outermost first: _RecoverableSession (recreate on preemption),
_CoordinatedSession (Coordinator, queue threads), _HookedSession (hooks), tf.Session.
"""
import inspect
import sys
import time

from trainflow._src import tf_logging as logging
from trainflow._src.framework import errors
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.protos.config_pb2 import RunMetadata, RunOptions
from trainflow._src.train.coordinator import Coordinator
from trainflow._src.train.queue_runner_impl import start_queue_runners
from trainflow._src.train.session_creators import ChiefSessionCreator
from trainflow._src.train.session_run_hook import (
    SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues)

_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
# How long a recoverable session keeps recreating itself before giving up; TF retries
# forever, which turns a cluster that never comes back into a hang.
RECOVERY_TIMEOUT_SECS = 600.0


class _StepContext:
    """What `run_step_fn`'s step function receives: the raw session and a way to run
    with hooks or to end the loop."""

    def __init__(self, session, run_with_hooks_fn):
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    @property
    def session(self):
        """The raw session (runs without hooks)."""
        return self._session

    def run_with_hooks(self, *args, **kwargs):
        """`run` through every hook, like `MonitoredSession.run`."""
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self):
        """Ends the loop: `should_stop()` becomes True."""
        raise StopIteration("step_fn has requested the iterations to stop.")


class _WrappedSession:
    """Base of the layers: forwards to the session below and stops when it does."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(self._sess, _WrappedSession)

    @property
    def graph(self):
        return self._sess.graph

    @property
    def sess_str(self):
        return self._sess.sess_str

    def should_stop(self):
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self):
        return False

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                logging.error("An error occurred when attempting to close the session. This "
                              "may be due to a preemption in a connected worker or parameter "
                              "server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_StepContext(raw_session, run_with_hooks))


class _RecoverableSession(_WrappedSession):
    """Recreates the session (from the latest checkpoint, through the creator) when a
    step or the creation fails with AbortedError / UnavailableError, then goes on."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        super().__init__(self._create_session())

    def _create_session(self):
        deadline = time.monotonic() + RECOVERY_TIMEOUT_SECS
        delay = 0.01
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                if time.monotonic() > deadline:
                    raise
                logging.info("An error was raised while a session was being created. This "
                             "may be due to a preemption of a connected worker or parameter "
                             "server. A new session will be created. Error: %s", e)
                time.sleep(delay)
                delay = min(delay * 2, 1.0)

    def _check_stop(self):
        try:
            if self._sess:
                return self._sess._check_stop()  # noqa: SLF001 - the layer below
            return True
        except _PREEMPTION_ERRORS as e:
            logging.info("An error was raised while considering whether the session is "
                         "complete. This may be due to a preemption in a connected worker or "
                         "parameter server. The current session will be closed and a new "
                         "session will be created. Error: %s", e)
            self.close()
            self._sess = self._create_session()
            return False
        except Exception:  # noqa: BLE001 - should_stop answers, it does not raise
            return True

    def _run_recovering(self, call):
        deadline = time.monotonic() + RECOVERY_TIMEOUT_SECS
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return call()
            except _PREEMPTION_ERRORS as e:
                if time.monotonic() > deadline:
                    raise
                logging.info("An error was raised. This may be due to a preemption in a "
                             "connected worker or parameter server. The current session will "
                             "be closed and a new session will be created. Error: %s", e)
                self.close()
                self._sess = None

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        return self._run_recovering(lambda: self._sess.run(
            fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata))

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):  # noqa: ARG002
        # The raw session changes when the session is recreated, so ask each time.
        return self._run_recovering(lambda: self._sess.run_step_fn(
            step_fn, self._sess._tf_session(), self._sess.run))  # noqa: SLF001

    def _tf_session(self):
        return self._sess._tf_session()  # noqa: SLF001


class _CoordinatedSession(_WrappedSession):
    """Owns the Coordinator of the queue-runner threads: stops and joins them on close,
    and raises the error a thread reported instead of its consequence."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self):
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)
        finally:
            try:
                super().close()
            except Exception:  # noqa: BLE001 - the threads' errors matter more
                pass

    def _raise_root_cause(self, call):
        try:
            return call()
        except _PREEMPTION_ERRORS:
            raise
        except Exception:
            # The step may have failed because a queue thread failed first: raise that.
            original = sys.exc_info()[1]
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:  # noqa: BLE001 - fall through to the step's own error
                raise original from None
            raise

    def run(self, *args, **kwargs):
        return self._raise_root_cause(lambda: self._sess.run(*args, **kwargs))

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        return self._raise_root_cause(
            lambda: self._sess.run_step_fn(step_fn, raw_session, run_with_hooks))

    def _tf_session(self):
        return self._sess._tf_session()  # noqa: SLF001


def _merge_run_options(options, incoming):
    """Merges `incoming` RunOptions into `options` (the larger value wins)."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool,
                                       incoming.inter_op_thread_pool)
    options.output_partition_graphs = max(options.output_partition_graphs,
                                          incoming.output_partition_graphs)
    options.report_tensor_allocations_upon_oom = max(
        options.report_tensor_allocations_upon_oom,
        incoming.report_tensor_allocations_upon_oom)
    options.debug_options.debug_tensor_watch_opts.extend(
        incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (
        options.debug_options.reset_disk_byte_usage or
        incoming.debug_options.reset_disk_byte_usage)


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    intersection = set(feeds1) & set(feeds2)
    if intersection:
        raise RuntimeError(message + " Conflict(s): " + str(list(intersection)))


class _HookedSession(_WrappedSession):
    """Calls every hook's before_run/after_run around each run, merging their fetches,
    feeds and options into the one call."""

    def __init__(self, sess, hooks):
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self):
        return self._should_stop

    def _tf_session(self):
        return self._sess

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict),
                                        session=self._sess)
        merged_options = RunOptions()
        if options is not None:
            merged_options.CopyFrom(options)
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict,
                                               merged_options)
        run_metadata = run_metadata if run_metadata is not None else RunMetadata()
        outputs = self._sess.run(actual_fetches, feed_dict=feed_dict, options=merged_options,
                                 run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, SessionRunValues(results=outputs.get(hook),
                                                         options=merged_options,
                                                         run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                fetch_dict[hook] = request.fetches
            if request.feed_dict:
                _raise_if_feeds_intersect(hook_feeds, request.feed_dict,
                                          "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds,
                                  "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


class _CoordinatedSessionCreator:
    """Creates the raw session, starts the queue runners, tells the hooks, and wraps."""

    def __init__(self, session_creator, hooks, stop_grace_period_secs):
        self._session_creator = session_creator
        self._hooks = hooks
        self.coord = None
        self.tf_sess = None
        self._stop_grace_period_secs = stop_grace_period_secs

    def create_session(self):
        self.tf_sess = self._session_creator.create_session()
        self.coord = Coordinator()
        if self.tf_sess.graph.get_collection(GraphKeys.QUEUE_RUNNERS):
            start_queue_runners(sess=self.tf_sess, coord=self.coord)
        for hook in self._hooks:
            hook.after_create_session(self.tf_sess, self.coord)
        return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                   self._stop_grace_period_secs)


def _check_hooks(hooks):
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook!r}")
    return hooks


class _MonitoredSession:
    """The common body of MonitoredSession and SingularMonitoredSession."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = _check_hooks(hooks)
        for hook in self._hooks:
            hook.begin()
        self._graph = get_default_graph()
        self._stop_requested_in_step_fn = False
        self._coordinated_creator = _CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self):
        """The graph that was the default when the session was made."""
        return self._graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs a step through the hooks (same arguments as `Session.run`)."""
        return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                              run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Calls `step_fn(step_context)` with the raw session and `run_with_hooks`;
        `step_context.request_stop()` ends the loop.

        Raises:
          ValueError: if step_fn's arguments are not (step_context) or
            (self, step_context).
        """
        params = tuple(inspect.signature(step_fn).parameters)
        if inspect.ismethod(step_fn):
            params = ("self",) + params
        if params not in (("step_context",), ("self", "step_context")):
            raise ValueError("`step_fn` may either have one `step_context` argument, or "
                             "`self` and `step_context` arguments if it's an instance "
                             f"method. Got {params} instead.")
        try:
            return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)
        except StopIteration:
            self._stop_requested_in_step_fn = True
            return None

    def should_stop(self):
        """True when a hook, a step_fn or the coordinator asked to stop, or closed."""
        return (self._stop_requested_in_step_fn or self._sess is None or
                self._sess.should_stop())

    def close(self):
        """Runs the hooks' `end`, stops the queue threads and closes the session."""
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type:
                for hook in self._hooks:
                    hook.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    self._graph._unsafe_unfinalize()  # noqa: SLF001 - as TF does

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A session for training loops: hooks, queue runners, and recovery from preempted
    workers or parameter servers.

    Args:
      session_creator: a SessionCreator (default: ChiefSessionCreator()).
      hooks: SessionRunHook instances.
      stop_grace_period_secs: how long close() waits for queue threads.
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession without recovery, on the chief, giving `raw_session()`."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None,
                 checkpoint_dir=None, stop_grace_period_secs=120,
                 checkpoint_filename_with_path=None):
        session_creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(session_creator, hooks, should_recover=False,
                         stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        """The tf.Session underneath (runs without hooks)."""
        return self._tf_sess()
