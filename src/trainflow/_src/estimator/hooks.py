"""`tf.estimator.experimental.InMemoryEvaluatorHook` (evaluates during training, copying
the training session's variables into an eval graph, no checkpoint needed) and
`make_stop_at_checkpoint_step_hook` (TF 1.15's hooks/hooks.py)."""
import os
import time

from trainflow._src.estimator import estimator as estimator_lib
from trainflow._src.framework.constant_op import placeholder
from trainflow._src.framework.graph import Graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import get_collection
from trainflow._src.ops.control_flow.control_flow_ops import group
from trainflow._src.ops.state import state_ops
from trainflow._src.train import training_util
from trainflow._src.train.basic_session_run_hooks import StopAtStepHook
from trainflow._src.train.scaffold import Scaffold
from trainflow._src.train.session_run_hook import SessionRunArgs, SessionRunHook
from trainflow._src.train.session_run_timer import SecondOrStepTimer


class InMemoryEvaluatorHook(SessionRunHook):
    """Evaluates `estimator` on `input_fn` every `every_n_iter` training steps and at the
    end, with the training session's current variables (local training only)."""

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None,
                 every_n_iter=100):
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if estimator.config.num_ps_replicas > 0 or estimator.config.num_worker_replicas > 1:
            raise ValueError("InMemoryEvaluator supports only single machine (aka Local) "
                             "setting.")
        self._estimator = estimator
        self._input_fn = input_fn
        self._steps = steps
        self._name = name
        self._every_n_iter = every_n_iter
        self._eval_dir = os.path.join(estimator.model_dir, "eval" if not name else
                                      "eval_" + name)
        self._graph = None
        self._hooks = estimator_lib._check_hooks_type(hooks)
        self._hooks.extend(estimator._convert_eval_steps_to_hooks(steps))
        self._timer = SecondOrStepTimer(every_steps=every_n_iter)

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._graph = Graph()
        with self._graph.as_default():
            (self._scaffold, self._update_op, self._eval_dict,
             self._all_hooks) = self._estimator._evaluate_build_graph(
                self._input_fn, self._hooks, checkpoint_path=None)
            if self._scaffold.saver is not None:
                raise ValueError("InMemoryEvaluator does not support custom saver")
            if self._scaffold.init_fn is not None:
                raise ValueError("InMemoryEvaluator does not support custom init_fn")
            variables = get_collection(GraphKeys.GLOBAL_VARIABLES)
            self._var_name_to_eval_var = {v.name: v for v in variables}
            self._var_name_to_placeholder = {v.name: placeholder(v.dtype.base_dtype)
                                             for v in variables}

    def after_create_session(self, session, coord):
        del coord
        if get_collection(GraphKeys.SAVEABLE_OBJECTS):
            raise ValueError("InMemoryEvaluator does not support saveables other than global "
                             "variables.")
        train_vars = {v.name: v for v in get_collection(GraphKeys.GLOBAL_VARIABLES)}
        names = set(self._var_name_to_placeholder) & set(train_vars)
        self._var_name_to_train_var = {n: train_vars[n] for n in names}
        self._var_name_to_eval_var = {n: self._var_name_to_eval_var[n] for n in names}
        with self._graph.as_default():
            self._var_feed_op = group(*[
                state_ops.assign(self._var_name_to_eval_var[n], self._var_name_to_placeholder[n])
                for n in sorted(names)])
        self._evaluate(session)

    def _evaluate(self, train_session):
        values = train_session.run(self._var_name_to_train_var)
        feed = {self._var_name_to_placeholder[n]: v for n, v in values.items()}

        def feed_variables(scaffold, session):
            del scaffold
            session.run(self._var_feed_op, feed_dict=feed)
        scaffold = Scaffold(init_fn=feed_variables, copy_from_scaffold=self._scaffold)
        with self._graph.as_default():
            self._estimator._evaluate_run(checkpoint_path=None, scaffold=scaffold,
                                          update_op=self._update_op,
                                          eval_dict=self._eval_dict,
                                          all_hooks=self._all_hooks,
                                          output_dir=self._eval_dir)
        self._timer.update_last_triggered_step(self._iter_count)

    def after_run(self, run_context, run_values):
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._evaluate(run_context.session)

    def end(self, session):
        self._evaluate(session)


class _StopAtCheckpointStepHook(SessionRunHook):
    """Stops once a checkpoint of step >= last_step exists in model_dir."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_after_file_check_secs = wait_after_file_check_secs

    def begin(self):
        self._global_step_tensor = training_util._get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use "
                               "StopAtCheckpointStepHook.")

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        global_step = run_values.results + 1
        if global_step >= self._last_step:
            step = estimator_lib._load_global_step_from_checkpoint_dir(self._model_dir)
            if step >= self._last_step:
                run_context.request_stop()
            else:
                time.sleep(self._wait_after_file_check_secs)


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """On the chief a StopAtStepHook(last_step); on other workers a hook that stops once
    the chief saved a checkpoint at last_step."""
    if estimator.config.is_chief:
        return StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(model_dir=estimator.model_dir, last_step=last_step,
                                     wait_after_file_check_secs=wait_after_file_check_secs)
