"""The background services of a chief `Supervisor`: summaries, steps per second and
timed checkpoints, each a LooperThread on the supervisor's Coordinator."""
import time

from trainflow._src import tf_logging as logging
from trainflow._src.protos.event_pb2 import SessionLog
from trainflow._src.protos.summary_pb2 import Summary
from trainflow._src.train import training_util
from trainflow._src.train.coordinator import LooperThread


class SVSummaryThread(LooperThread):
    """Runs the summary op every `save_summaries_secs` and writes the result."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary_strs, global_step = self._sess.run([self._sv.summary_op,
                                                        self._sv.global_step])
        else:
            summary_strs, global_step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            logging.info("Recording summary at step %s.", global_step)
            self._sv.summary_writer.add_summary(summary_strs, global_step)


class SVStepCounterThread(LooperThread):
    """Records `<global step name>/sec` every `save_summaries_secs`."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess
        self._last_time = 0.0
        self._last_step = 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self):
        current_step = training_util.global_step(self._sess, self._step_counter)
        added_steps = current_step - self._last_step
        self._last_step = current_step
        now = time.time()
        elapsed = now - self._last_time
        self._last_time = now
        steps_per_sec = added_steps / elapsed if elapsed > 0 else float("inf")
        if self._sv.summary_writer:
            summary = Summary(value=[Summary.Value(tag=self._summary_tag,
                                                   simple_value=steps_per_sec)])
            self._sv.summary_writer.add_summary(summary, current_step)
        logging.log_first_n(logging.INFO, "%s: %g", 10, self._summary_tag, steps_per_sec)


class SVTimerCheckpointThread(LooperThread):
    """Saves a checkpoint every `save_model_secs`."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        logging.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            current_step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path),
                current_step)
