"""Hooks that write to event files: steps per second (`StepCounterHook`), summaries
(`SummarySaverHook`) and Chrome traces with run metadata (`ProfilerHook`)."""
import os

from trainflow._src import tf_logging as logging
from trainflow._src.protos.config_pb2 import RunOptions
from trainflow._src.protos.event_pb2 import SessionLog
from trainflow._src.protos.summary_pb2 import Summary
from trainflow._src.summary.writer_cache import FileWriterCache
from trainflow._src.train import training_util
from trainflow._src.train.session_run_hook import SessionRunArgs, SessionRunHook
from trainflow._src.train.session_run_timer import SecondOrStepTimer
from trainflow._src.train.timeline import write_chrome_trace


def _writer_for(output_dir):
    return FileWriterCache.get(output_dir)


class StepCounterHook(SessionRunHook):
    """Logs and records `global_step/sec` every N steps or seconds.

    Raises:
      ValueError: unless exactly one of every_n_steps and every_n_secs is given.
    """

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be "
                             "provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = _writer_for(self._output_dir)
        self._global_step_tensor = training_util.global_step_read_or_raise("StepCounterHook")
        self._summary_tag = training_util.get_global_step().op.name + "/sec"

    def before_run(self, run_context):  # noqa: ARG002
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            summary = Summary(value=[Summary.Value(tag=self._summary_tag,
                                                   simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        logging.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
                    global_step)
                if elapsed_time is not None and elapsed_time > 0:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step:
            logging.log_first_n(logging.WARN,
                                "It seems that global step (tf.train.get_global_step) has "
                                "not been increased. Current value (could be stable): %s vs "
                                "previous value: %s.", 5, stale_global_step,
                                self._last_global_step)
        self._last_global_step = stale_global_step


class SummarySaverHook(SessionRunHook):
    """Runs the summary op every N steps or seconds and writes its result.

    Args:
      save_steps, save_secs: the period (exactly one).
      output_dir: where the FileWriter writes (its cached writer), unless
        `summary_writer` is given.
      summary_writer: a FileWriter.
      scaffold: a Scaffold whose summary_op to run.
      summary_op: a serialized-Summary tensor or a list of them.

    Raises:
      ValueError: unless exactly one of scaffold and summary_op is given.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = _writer_for(self._output_dir)
        self._next_step = None
        self._global_step_tensor = training_util.global_step_read_or_raise("SummarySaverHook")

    def before_run(self, run_context):  # noqa: ARG002
        self._request_summary = (self._next_step is None or
                                 self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary:
            summary_ops = self._get_summary_op()
            if summary_ops is not None:
                requests["summary"] = summary_ops
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session):  # noqa: ARG002
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        op = self._scaffold.summary_op if self._scaffold is not None else self._summary_op
        if op is None:
            return None
        return list(op) if isinstance(op, (list, tuple)) else [op]


class ProfilerHook(SessionRunHook):
    """Traces one step every N steps or seconds and writes `timeline-<step>.json` (Chrome
    trace format) to `output_dir`, plus the run metadata to its event file.

    Args:
      save_steps, save_secs: the period (exactly one).
      output_dir: where the traces go.
      show_dataflow, show_memory: accepted for TF's signature; the trace has op events.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True,
                 show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._output_dir = output_dir
        self._file_writer = None
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = training_util.global_step_read_or_raise("ProfilerHook")
        if self._output_dir:
            self._file_writer = _writer_for(self._output_dir)

    def before_run(self, run_context):  # noqa: ARG002
        self._request_summary = (self._next_step is not None and
                                 self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        options = None
        if self._request_summary:
            options = RunOptions(trace_level=RunOptions.FULL_TRACE)
        return SessionRunArgs(requests, options=options)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            write_chrome_trace(run_values.run_metadata.step_stats,
                               self._output_file.format(global_step))
            if self._file_writer is not None:
                self._file_writer.add_run_metadata(run_values.run_metadata,
                                                   f"step_{global_step}")
        self._next_step = global_step + 1
