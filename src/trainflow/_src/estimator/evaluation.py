"""One evaluation pass over a checkpoint (TF's `evaluation._evaluate_once`), and the eval
directory's summaries: each metric a scalar, and the checkpoint's path as a text tensor."""
import math
import time

import numpy as np

from trainflow._src import tf_logging as logging
from trainflow._src.formats.tensor_proto import make_tensor_proto
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import control_dependencies, get_collection
from trainflow._src.ops.array.array_ops import identity
from trainflow._src.ops.state import state_ops
from trainflow._src.ops.state.variable_scope import get_variable
from trainflow._src.ops.state.init_ops import zeros_initializer
from trainflow._src.protos import summary_pb2
from trainflow._src.summary.writer_cache import FileWriterCache
from trainflow._src.train.basic_session_run_hooks import FinalOpsHook
from trainflow._src.train.monitored_session import MonitoredSession
from trainflow._src.train.session_creators import ChiefSessionCreator
from trainflow._src.train.session_run_hook import SessionRunArgs, SessionRunHook


def _get_or_create_eval_step():
    """The local int64 `eval_step` counter (collection EVAL_STEP)."""
    steps = get_collection(GraphKeys.EVAL_STEP)
    if len(steps) == 1:
        return steps[0]
    if len(steps) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    return get_variable(GraphKeys.EVAL_STEP, shape=[], dtype=dtypes.int64,
                        initializer=zeros_initializer(), trainable=False,
                        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.EVAL_STEP])


class StopAfterNEvalsHook(SessionRunHook):
    """Stops evaluation after `num_evals` evaluation steps, logging the progress."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._evals_completed = None
        self._log_progress = log_progress
        self._log_frequency = (1 if num_evals is None or num_evals < 20
                               else math.floor(num_evals / 10.0))

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        evals_completed = run_values.results["evals_completed"]
        if self._log_progress:
            if self._num_evals is None:
                logging.info("Evaluation [%d]", evals_completed)
            elif (evals_completed % self._log_frequency == 0
                  or self._num_evals == evals_completed):
                logging.info("Evaluation [%d/%d]", evals_completed, self._num_evals)
        if self._num_evals is not None and evals_completed >= self._num_evals:
            run_context.request_stop()


def evaluate_once(checkpoint_path, master="", scaffold=None, eval_ops=None, feed_dict=None,
                  final_ops=None, final_ops_feed_dict=None, hooks=None, config=None):
    """Restores `checkpoint_path` (or initializes when it is None), runs `eval_ops` until a
    hook stops or the input ends, and returns the values of `final_ops`."""
    eval_step = _get_or_create_eval_step()
    hooks = list(hooks or [])
    if eval_ops is not None:
        update_eval_step = state_ops.assign_add(eval_step, 1, use_locking=True)
        if isinstance(eval_ops, dict):
            eval_ops["update_eval_step"] = update_eval_step
        elif isinstance(eval_ops, (tuple, list)):
            eval_ops = list(eval_ops) + [update_eval_step]
        else:
            eval_ops = [eval_ops, update_eval_step]
        with control_dependencies(eval_ops if isinstance(eval_ops, list)
                                  else list(eval_ops.values())):
            eval_step_value = identity(eval_step)
        for hook in hooks:
            if isinstance(hook, StopAfterNEvalsHook):
                hook._set_evals_completed_tensor(eval_step_value)
    logging.info("Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    start = time.time()
    session_creator = ChiefSessionCreator(scaffold=scaffold,
                                          checkpoint_filename_with_path=checkpoint_path,
                                          master=master, config=config)
    final_ops_hook = FinalOpsHook(final_ops, final_ops_feed_dict)
    hooks.append(final_ops_hook)
    with MonitoredSession(session_creator=session_creator, hooks=hooks) as session:
        if eval_ops is not None:
            while not session.should_stop():
                session.run(eval_ops, feed_dict)
    logging.info("Inference Time : %0.5fs", time.time() - start)
    logging.info("Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime()))
    return final_ops_hook.final_ops_values


def dict_to_str(dictionary):
    return ", ".join(f"{k} = {v}" for k, v in sorted(dictionary.items())
                     if not isinstance(v, bytes))


def write_dict_to_summary(output_dir, dictionary, current_global_step):
    """Writes each numeric entry (global_step aside) as a scalar summary at the step."""
    logging.info("Saving dict for global step %d: %s", current_global_step,
                 dict_to_str(dictionary))
    summary_proto = summary_pb2.Summary()
    for key, value in dictionary.items():
        if value is None or key == "global_step":
            continue
        if isinstance(value, (np.floating, float, np.integer, int)) and \
                not isinstance(value, bool):
            summary_proto.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, bytes):
            try:
                summ = summary_pb2.Summary.FromString(value)
                for i, _ in enumerate(summ.value):
                    summ.value[i].tag = f"{key}/{i}"
                summary_proto.value.extend(summ.value)
            except Exception:  # noqa: BLE001 - TF skips a bytes value that is no Summary
                logging.warning("Skipping summary for %s, cannot parse string to Summary.", key)
        elif isinstance(value, np.ndarray) and value.size == 1:
            summary_proto.value.add(tag=key, simple_value=float(value.reshape(())))
        else:
            logging.warning("Skipping summary for %s, must be a float, np.float32, np.int64, "
                            "np.int32 or int or a serialized string of Summary.", key)
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary_proto, current_global_step)
    writer.flush()


def write_checkpoint_path_to_summary(output_dir, checkpoint_path, current_global_step):
    """Writes the evaluated checkpoint's path as the string tensor `checkpoint_path`."""
    logging.info("Saving 'checkpoint_path' summary for global step %d: %s",
                 current_global_step, checkpoint_path)
    summary_proto = summary_pb2.Summary()
    summary_proto.value.add(tag="checkpoint_path",
                            tensor=make_tensor_proto(checkpoint_path, dtype=dtypes.string))
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary_proto, current_global_step)
    writer.flush()
