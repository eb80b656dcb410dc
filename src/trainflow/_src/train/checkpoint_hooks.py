"""Periodic checkpoints from a monitored session: `CheckpointSaverHook` and the listener
interface it calls around each save."""
import os

from trainflow._src import tf_logging as logging
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.protos.event_pb2 import SessionLog
from trainflow._src.summary.writer_cache import FileWriterCache
from trainflow._src.train import training_util
from trainflow._src.train.meta_graph_io import write_graph
from trainflow._src.train.session_run_hook import SessionRunArgs, SessionRunHook
from trainflow._src.train.session_run_timer import SecondOrStepTimer


class CheckpointSaverListener:
    """Called by `CheckpointSaverHook` around each save; override what you need.
    `after_save` may return True to ask the training loop to stop."""

    def begin(self):
        """Called once when the hook begins."""

    def before_save(self, session, global_step_value):  # noqa: ARG002
        """Called before each save."""

    def after_save(self, session, global_step_value):  # noqa: ARG002
        """Called after each save; True requests a stop."""

    def end(self, session, global_step_value):  # noqa: ARG002
        """Called once at the end, after the last save."""


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint every `save_secs` seconds or `save_steps` steps, when the
    session starts and when it ends; writes the graph and meta graph once.

    Args:
      checkpoint_dir: where checkpoints go.
      save_secs, save_steps: the period (exactly one).
      saver: the Saver to use (default: the scaffold's or the one in SAVERS).
      checkpoint_basename: the file prefix, `model.ckpt` by default.
      scaffold: a Scaffold whose saver to use.
      listeners: CheckpointSaverListener instances.
      save_graph_def: write graph.pbtxt and the meta graph.

    Raises:
      ValueError: if both saver and scaffold are given, or the period is wrong.
    """

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None,
                 save_graph_def=True):
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1
        self._save_graph_def = save_graph_def

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = training_util.global_step_read_or_raise(
            "CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):  # noqa: ARG002
        global_step = int(session.run(self._global_step_tensor))
        if self._save_graph_def:
            # The graph and meta graph are written once, with the first checkpoint.
            graph = get_default_graph()
            write_graph(graph.as_graph_def(add_shapes=True), self._checkpoint_dir,
                        "graph.pbtxt")
            self._summary_writer.add_graph(graph)
            self._summary_writer.add_meta_graph(self._get_saver().export_meta_graph())
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):  # noqa: ARG002
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = int(session.run(self._global_step_tensor))
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        """Saves at `step`; returns True if a listener asked to stop."""
        logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        self._get_saver().save(session, self._save_path, global_step=step,
                               write_meta_graph=self._save_graph_def)
        self._summary_writer.add_session_log(
            SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step)
        logging.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logging.info("A CheckpointSaverListener requested that training be stopped. "
                             "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_default_graph().get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS}. Please add a saver "
                               "to the collection or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                               "indicate which one to use by passing it to the constructor.")
        self._saver = savers[0]
        return savers[0]
