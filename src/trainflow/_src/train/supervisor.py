"""`tf.train.Supervisor`: the pre-MonitoredSession training helper. It creates (chief) or
waits for (workers) an initialized session, restores from `logdir`, and runs the standard
services: summaries, steps per second and checkpoints every N seconds."""
import contextlib
import os

from trainflow._src import tf_logging as logging
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.meta_graph import create_meta_graph_def
from trainflow._src.ops.state import variable_helpers
from trainflow._src.ops.summary.summary_ops import merge_all
from trainflow._src.protos.event_pb2 import SessionLog
from trainflow._src.summary.writer import FileWriter
from trainflow._src.train import training_util
from trainflow._src.train.coordinator import Coordinator, LooperThread
from trainflow._src.train.meta_graph_io import write_graph
from trainflow._src.train.saver import Saver
from trainflow._src.train.scaffold import Scaffold
from trainflow._src.train.session_manager import SessionManager
from trainflow._src.train.supervisor_services import (
    SVStepCounterThread, SVSummaryThread, SVTimerCheckpointThread)


class Supervisor:
    """A training helper owning a Coordinator, a SessionManager and the chief's services.

    Every argument that defaults to `Supervisor.USE_DEFAULT` is taken from the graph's
    collection of that name, else built as TF does (report_uninitialized_variables as
    ready_op, global_variables_initializer as init_op, local variables initializer as
    local_init_op, a Saver when there are variables, merge_all as summary_op, the
    `global_step` tensor). Pass None to turn a piece off.

    Args:
      graph: the graph (default: the default graph); it is finalized.
      ready_op, ready_for_local_init_op, init_op, init_feed_dict, local_init_op,
        summary_op, saver, global_step: as above.
      is_chief: whether this task initializes, restores, saves and writes events.
      logdir: where checkpoints and events go (chief only).
      save_summaries_secs, save_model_secs: periods of the services (0/None: off).
      recovery_wait_secs: the SessionManager's polling period.
      stop_grace_secs: how long stop() waits for threads.
      checkpoint_basename: checkpoint file prefix in logdir.
      session_manager: a SessionManager to use instead of a new one.
      summary_writer: a FileWriter (default: one on logdir), or None.
      init_fn: fn(session) run after init_op.
      local_init_run_options: RunOptions for local_init_op.

    Raises:
      ValueError: on a non-chief, if a variable has no device set.
    """

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT,
                 is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 local_init_op=USE_DEFAULT, logdir=None, summary_op=USE_DEFAULT,
                 saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120,
                 checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        graph = graph if graph is not None else get_default_graph()
        with graph.as_default():
            self._graph = graph
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
            self._meta_graph_def = create_meta_graph_def(
                graph_def=graph.as_graph_def(add_shapes=True),
                saver_def=self._saver.saver_def if self._saver else None, graph=graph)
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        # Only a chief writes checkpoints and events.
        self._logdir = self._save_summaries_secs = self._save_model_secs = None
        self._save_path = self._summary_writer = None
        if self._is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if self._logdir:
                    self._summary_writer = FileWriter(self._logdir)
            else:
                self._summary_writer = summary_writer
            self._graph_added_to_summary = False
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
            recovery_wait_secs=self._recovery_wait_secs,
            local_init_run_options=self._local_init_run_options)
        self._verify_setup()
        graph.finalize()

    # -- defaults -------------------------------------------------------------------
    def _first_in_collection(self, key):
        items = self._graph.get_collection(key)
        if len(items) > 1:
            logging.info("Found %d %s operations. Returning the first one.", len(items), key)
        return items[0] if items else None

    def _collection_or(self, given, key, build):
        if given is not Supervisor.USE_DEFAULT:
            return given
        value = self._first_in_collection(key)
        if value is None:
            value = build()
            if value is not None:
                self._graph.add_to_collection(key, value)
        return value

    def _init_ready_op(self, ready_op, ready_for_local_init_op):
        self._ready_op = self._collection_or(ready_op, GraphKeys.READY_OP,
                                             variable_helpers.report_uninitialized_variables)
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._first_in_collection(
                GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op, init_feed_dict):
        self._init_op = self._collection_or(init_op, GraphKeys.INIT_OP,
                                            variable_helpers.global_variables_initializer)
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op):
        self._local_init_op = self._collection_or(local_init_op, GraphKeys.LOCAL_INIT_OP,
                                                  Scaffold.default_local_init_op)

    def _init_saver(self, saver):
        def build():
            if not variable_helpers.global_variables():
                return None
            return Saver()
        self._saver = self._collection_or(saver, GraphKeys.SAVERS, build)

    def _init_summary_op(self, summary_op):
        def build():
            return merge_all()
        self._summary_op = self._collection_or(summary_op, GraphKeys.SUMMARY_OP, build)

    def _init_global_step(self, global_step):
        self._global_step = self._collection_or(global_step, GraphKeys.GLOBAL_STEP,
                                                self._default_global_step_tensor)

    def _default_global_step_tensor(self):
        try:
            step = self._graph.get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
        if step.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return step
        logging.warning("Found 'global_step' is not an int type: %s", step.dtype)
        return None

    def _verify_setup(self):
        if self._is_chief:
            return
        for op in self._graph.get_operations():
            if op.type in ("Variable", "VariableV2") and not op.device:
                raise ValueError("When using replicas, all Variables must have their device "
                                 f"set: {op}")

    # -- properties -----------------------------------------------------------------
    is_chief = property(lambda self: self._is_chief, doc="Whether this is the chief.")
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord, doc="The Coordinator of the threads.")
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)

    # -- sessions and services ----------------------------------------------------------
    def _write_graph(self):
        if self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir,
                        "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess):
        """Starts the summary, step-counter and checkpoint threads. Returns them.

        Raises:
          RuntimeError: if this is not the chief.
        """
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because "
                               "only chief supervisors can write events.")
        if not self._logdir:
            logging.warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        if self._global_step is not None and self._summary_writer:
            current_step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 current_step)
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """The chief's session (restored from logdir or initialized), or on a worker one
        that the chief has made ready; starts the services and queue runners."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self.init_op, saver=self.saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
                config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                logging.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            logging.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the threads of `queue_runners` (default: the graph's) on the
        supervisor's Coordinator. Returns the threads."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True,
                                             start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling `target` every `timer_interval_secs`."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the threads (re-raising an exception one reported), then closes the
        summary writer."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        """Asks the threads to stop, optionally reporting an exception."""
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        """True once a stop was requested."""
        return self._coord.should_stop()

    def stop_on_exception(self):
        """Context manager reporting an exception as a stop request."""
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        """Blocks until a stop is requested."""
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a summary computed by the caller, at the global step by default.

        Raises:
          RuntimeError: without a summary writer.
        """
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """A context manager giving a prepared session; on exit (or an exception, which
        is reported and re-raised by stop()) it stops the threads and closes the
        session. An OutOfRangeError in the body ends it quietly."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - reported to the coordinator, raised by stop
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception:  # noqa: BLE001 - blocked calls end here
                        pass

    # The names of TensorFlow's first releases.
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed
