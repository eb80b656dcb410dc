"""`tf.estimator.experimental`'s early-stopping hooks (TF 1.15's early_stopping.py): stop
training when the eval metrics in the eval dir's event files cross a threshold or stop
improving. The chief decides and sets the `signal_early_stopping/STOP` variable; the other
workers stop when they see it."""
import collections
import operator
import os

from trainflow._src import tf_logging as logging
from trainflow._src.estimator.estimator import Estimator
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.gfile import file_ops
from trainflow._src.gfile.glob import glob
from trainflow._src.ops.state import state_ops
from trainflow._src.ops.state.init_ops import constant_initializer
from trainflow._src.ops.state.variable_scope import AUTO_REUSE, get_variable, variable_scope
from trainflow._src.summary.summary_iterator import summary_iterator
from trainflow._src.train import training_util
from trainflow._src.train.session_run_hook import SessionRunArgs, SessionRunHook
from trainflow._src.train.session_run_timer import SecondOrStepTimer

_EVENT_FILE_GLOB_PATTERN = "events.out.tfevents.*"


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60,
                             run_every_steps=None):
    """A hook that stops training when `should_stop_fn()` returns True (checked every
    run_every_secs or run_every_steps on the chief)."""
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` must be set.")
    if estimator.config.is_chief:
        return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)
    return _CheckForStoppingHook()


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                        run_every_secs=60, run_every_steps=None):
    """Stops when `metric_name` goes above `threshold`."""
    return _stop_if_threshold_crossed_hook(estimator, metric_name, threshold, True, eval_dir,
                                           min_steps, run_every_secs, run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                       run_every_secs=60, run_every_steps=None):
    """Stops when `metric_name` goes below `threshold`."""
    return _stop_if_threshold_crossed_hook(estimator, metric_name, threshold, False, eval_dir,
                                           min_steps, run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when `metric_name` has not increased for max_steps_without_increase steps."""
    return _stop_if_no_metric_improvement_hook(
        estimator, metric_name, max_steps_without_increase, True, eval_dir, min_steps,
        run_every_secs, run_every_steps)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when `metric_name` has not decreased for max_steps_without_decrease steps."""
    return _stop_if_no_metric_improvement_hook(
        estimator, metric_name, max_steps_without_decrease, False, eval_dir, min_steps,
        run_every_secs, run_every_steps)


def read_eval_metrics(eval_dir):
    """{global step: {metric: value}} from the eval dir's event files, by step."""
    metrics_by_step = collections.defaultdict(dict)
    for event in _summaries(eval_dir):
        if not event.HasField("summary"):
            continue
        metrics = {v.tag: v.simple_value for v in event.summary.value
                   if v.HasField("simple_value")}
        if metrics:
            metrics_by_step[event.step].update(metrics)
    return collections.OrderedDict(sorted(metrics_by_step.items(), key=lambda t: t[0]))


def _stop_if_threshold_crossed_hook(estimator, metric_name, threshold, higher_is_better,
                                    eval_dir, min_steps, run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    is_lhs_better = operator.gt if higher_is_better else operator.lt
    greater_or_lesser = "greater than" if higher_is_better else "less than"

    def stop_if_threshold_crossed_fn():
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            val = metrics[metric_name]
            if is_lhs_better(val, threshold):
                logging.info('At step %s, metric "%s" has value %s which is %s the configured '
                             "threshold (%s) for early stopping.", step, metric_name, val,
                             greater_or_lesser, threshold)
                return True
        return False
    return make_early_stopping_hook(estimator, stop_if_threshold_crossed_fn, run_every_secs,
                                    run_every_steps)


def _stop_if_no_metric_improvement_hook(estimator, metric_name, max_steps_without_improvement,
                                        higher_is_better, eval_dir, min_steps, run_every_secs,
                                        run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    is_lhs_better = operator.gt if higher_is_better else operator.lt
    increase_or_decrease = "increase" if higher_is_better else "decrease"

    def stop_if_no_metric_improvement_fn():
        best_val = best_val_step = None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            val = metrics[metric_name]
            if best_val is None or is_lhs_better(val, best_val):
                best_val, best_val_step = val, step
            if step - best_val_step >= max_steps_without_improvement:
                logging.info('No %s in metric "%s" for %s steps, which is greater than or equal '
                             "to max steps (%s) configured for early stopping.",
                             increase_or_decrease, metric_name, step - best_val_step,
                             max_steps_without_improvement)
                return True
        return False
    return make_early_stopping_hook(estimator, stop_if_no_metric_improvement_fn,
                                    run_every_secs, run_every_steps)


def _summaries(eval_dir):
    if file_ops.exists(eval_dir):
        for event_file in glob(os.path.join(eval_dir, _EVENT_FILE_GLOB_PATTERN)):
            yield from summary_iterator(event_file)


def _get_or_create_stop_var():
    with variable_scope("signal_early_stopping", values=[], reuse=AUTO_REUSE):
        return get_variable(name="STOP", shape=[], dtype=dtypes.bool,
                            initializer=constant_initializer(False),
                            collections=[GraphKeys.GLOBAL_VARIABLES], trainable=False)


class _StopOnPredicateHook(SessionRunHook):
    """Runs should_stop_fn on a timer; when it says stop, sets STOP and stops."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=run_every_secs, every_steps=run_every_steps)
        self._global_step_tensor = None
        self._stop_var = None
        self._stop_op = None

    def begin(self):
        self._global_step_tensor = training_util.get_global_step()
        self._stop_var = _get_or_create_stop_var()
        self._stop_op = state_ops.assign(self._stop_var, True)

    def before_run(self, run_context):
        del run_context
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        global_step = run_values.results
        if self._timer.should_trigger_for_step(global_step):
            self._timer.update_last_triggered_step(global_step)
            if self._should_stop_fn():
                logging.info("Requesting early stopping at global step %d", global_step)
                run_context.session.run(self._stop_op)
                run_context.request_stop()


class _CheckForStoppingHook(SessionRunHook):
    """Stops a non-chief worker once the chief has set STOP."""

    def __init__(self):
        self._stop_var = None

    def begin(self):
        self._stop_var = _get_or_create_stop_var()

    def before_run(self, run_context):
        del run_context
        return SessionRunArgs(self._stop_var)

    def after_run(self, run_context, run_values):
        if run_values.results:
            logging.info("Early stopping requested, suspending run.")
            run_context.request_stop()
