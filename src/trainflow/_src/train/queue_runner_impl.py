"""`tf.train.QueueRunner`: threads that run enqueue ops until their queue closes, and
`add_queue_runner` / `start_queue_runners` over the QUEUE_RUNNERS collection."""
from trainflow._src.framework import meta_graph

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

import threading
import weakref

from trainflow._src import tf_logging as logging
from trainflow._src.framework import errors
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import add_to_collection, get_default_graph
from trainflow._src.ops.state.variables import prepend_name_scope, strip_name_scope
from trainflow._src.protos.queue_runner_pb2 import QueueRunnerDef
from trainflow._src.train.fused_enqueue import fused_enqueue_callable
from trainflow._src.runtime.session import BaseSession, get_default_session


class QueueRunner:
    """Holds a list of enqueue ops for a queue, each run in its own thread.

    Args:
      queue: a QueueBase.
      enqueue_ops: the enqueue ops to run in threads (one thread each).
      close_op: the op closing the queue (default `queue.close()`); run when every
        enqueue thread has hit a queue-closed error.
      cancel_op: the op closing the queue and cancelling pending enqueues (default
        `queue.close(cancel_pending_enqueues=True)`); run when the coordinator stops.
      queue_closed_exception_types: a tuple of `tf.errors` classes meaning that the
        queue is closed (default `(tf.errors.OutOfRangeError,)`).
      queue_runner_def: a QueueRunnerDef to rebuild the runner from (in the default
        graph); exclusive with the other arguments.
      import_scope: the name scope prepended to the names in `queue_runner_def`.
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
        else:
            self._init_from_args(queue, enqueue_ops, close_op, cancel_op,
                                 queue_closed_exception_types)
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    def _init_from_args(self, queue, enqueue_ops, close_op, cancel_op, exception_types):
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op
        self._cancel_op = cancel_op
        if exception_types is not None:
            if (not isinstance(exception_types, tuple) or not exception_types or
                    not all(isinstance(t, type) and issubclass(t, errors.OpError)
                            for t in exception_types)):
                raise TypeError("queue_closed_exception_types, when provided, must be a tuple "
                                f"of tf.error types, but saw: {exception_types}")
        if self._close_op is None:
            self._close_op = self._queue.close()
        if self._cancel_op is None:
            self._cancel_op = self._queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(exception_types or
                                                   (errors.OutOfRangeError,))

    def _init_from_proto(self, queue_runner_def, import_scope):
        if not isinstance(queue_runner_def, QueueRunnerDef):
            raise TypeError(f"queue_runner_def must be a QueueRunnerDef, got "
                            f"{type(queue_runner_def).__name__}")
        g = get_default_graph()

        def element(name):
            return g.as_graph_element(prepend_name_scope(name, import_scope))
        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(n) for n in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(code)
            for code in queue_runner_def.queue_closed_exception_types) or \
            (errors.OutOfRangeError,)

    queue = property(lambda self: self._queue)
    enqueue_ops = property(lambda self: self._enqueue_ops)
    close_op = property(lambda self: self._close_op)
    cancel_op = property(lambda self: self._cancel_op)
    queue_closed_exception_types = property(lambda self: self._queue_closed_exception_types)

    @property
    def exceptions_raised(self):
        """Exceptions raised by the threads (when no coordinator was given)."""
        return self._exceptions_raised

    @property
    def name(self):
        """The name of the queue's op."""
        return self._queue.name

    def _run(self, sess, enqueue_op, coord=None):
        # a per-record read -> parse -> enqueue runs many records a call
        self._run_steps(sess, lambda: fused_enqueue_callable(sess, enqueue_op)
                        or sess.make_callable(enqueue_op), coord)

    def _run_steps(self, sess, make_step, coord=None):
        """Runs `make_step()`'s callable until the queue closes or `coord` stops; the last
        thread of a session to finish closes the queue."""
        decremented = False
        try:
            step = make_step()
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    step()
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - session may be closed
                                logging.vlog(1, "Ignored exception: %s", str(e))
                    return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator
            if coord:
                coord.request_stop(e)
            else:
                logging.error("Exception in QueueRunner: %s", str(e))
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be closed already
            logging.vlog(1, "Ignored exception: %s", str(e))

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """Creates (and optionally starts) one thread per enqueue op, plus one that
        cancels the queue when `coord` stops. Returns [] if threads for `sess` are
        still running."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord))
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop,
                                            args=(sess, self._cancel_op, coord)))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads

    def to_proto(self, export_scope=None):
        """The QueueRunnerDef of this runner (None if outside `export_scope`)."""
        if export_scope is not None and not self.queue.name.startswith(export_scope):
            return None
        q = QueueRunnerDef()
        q.queue_name = strip_name_scope(self.queue.name, export_scope)
        for op in self.enqueue_ops:
            q.enqueue_op_name.append(strip_name_scope(op.name, export_scope))
        q.close_op_name = strip_name_scope(self.close_op.name, export_scope)
        q.cancel_op_name = strip_name_scope(self.cancel_op.name, export_scope)
        q.queue_closed_exception_types.extend(
            errors.error_code_from_exception_type(cls)
            for cls in self._queue_closed_exception_types)
        return q

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        """A QueueRunner rebuilt from a QueueRunnerDef in the default graph."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Adds `qr` to the graph collection `collection`."""
    add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every QueueRunner in `collection`; returns the threads.

    Raises:
      ValueError: without `sess` and without a default session.
      TypeError: if `sess` is not a Session.
    """
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, BaseSession):
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    queue_runners = sess.graph.get_collection(collection)
    if not queue_runners:
        logging.warning("`tf.train.start_queue_runners()` was called when no queue runners "
                        "were defined. You can safely remove the call to this deprecated "
                        "function.")
    threads = []
    with sess.graph.as_default():
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


def _register_collection_protos():
    """Meta graphs carry the QUEUE_RUNNERS collection as QueueRunnerDefs, as TF's do."""
    meta_graph.register_proto_function(
        GraphKeys.QUEUE_RUNNERS, proto_type=QueueRunnerDef,
        to_proto=lambda qr, export_scope=None: qr.to_proto(export_scope=export_scope),
        from_proto=QueueRunner.from_proto)


_register_collection_protos()
