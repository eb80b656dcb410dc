"""`tf.estimator.train_and_evaluate` with `TrainSpec` and `EvalSpec` (TF 1.15's
training.py): locally, evaluation after each new checkpoint (throttled) and the exporters;
distributed through TF_CONFIG, a chief and workers that train, ps tasks that serve, and an
evaluator task that evaluates each new checkpoint."""
import collections
import os
import time

from trainflow._src import tf_logging as logging
from trainflow._src.distributed.server_lib import Server
from trainflow._src.estimator.estimator import Estimator
from trainflow._src.estimator.exporter import Exporter
from trainflow._src.estimator.run_config import TaskType
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.train.checkpoint_hooks import CheckpointSaverListener
from trainflow._src.train.checkpoint_management import checkpoint_exists
from trainflow._src.train.session_run_hook import SessionRunHook
from trainflow._src.train.session_run_timer import SecondOrStepTimer

_MAX_DELAY_SECS = 60
_DELAY_SECS_PER_WORKER = 5


def _validate_hooks(hooks):
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
    return hooks


def _validate_exporters(exporters):
    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    unique_names = []
    try:
        for exporter in exporters:
            if not isinstance(exporter, Exporter):
                raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or "
                                f"`None`, found {exporter}.")
            if not exporter.name:
                raise ValueError("An Exporter cannot have a name that is `None` or empty. "
                                 f"All exporter names: {[e.name for e in exporters]}")
            if not isinstance(exporter.name, str):
                raise ValueError(f"An Exporter must have a string name. Given: "
                                 f"{type(exporter.name)}")
            if exporter.name in unique_names:
                raise ValueError("`exporters` must have unique names. Such a name cannot be "
                                 f"`None`. All exporter names: {[e.name for e in exporters]}")
            unique_names.append(exporter.name)
    except TypeError as e:
        raise TypeError("`exporters` must be an Exporter, an iterable of Exporter, or `None`, "
                        f"found {exporters}.") from e
    return tuple(exporters)


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """The training half of train_and_evaluate: input_fn, max_steps (None: until the input
    ends) and hooks."""

    def __new__(cls, input_fn, max_steps=None, hooks=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn=input_fn, max_steps=max_steps,
                               hooks=_validate_hooks(hooks))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """The evaluation half of train_and_evaluate: input_fn, steps (default 100; None:
    until the input ends), name, hooks, exporters, start_delay_secs, throttle_secs."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(cls, input_fn=input_fn, steps=steps, name=name,
                               hooks=_validate_hooks(hooks),
                               exporters=_validate_exporters(exporters),
                               start_delay_secs=start_delay_secs, throttle_secs=throttle_secs)


class _EvalStatus:
    EVALUATED = "evaluated"
    MISSING_CHECKPOINT = "missing checkpoint"
    NO_NEW_CHECKPOINT = "no new checkpoint"


_EvalResult = collections.namedtuple("_EvalResult", ["status", "metrics", "checkpoint_path"],
                                     defaults=(None, None))


class _Evaluator:
    """Evaluates the latest checkpoint once (a new one only) and runs the exporters."""

    def __init__(self, estimator, eval_spec, max_training_steps):
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_ckpt_path = None
        self.is_final_export_triggered = False

    def evaluate_and_export(self):
        latest = self._estimator.latest_checkpoint()
        if not latest:
            logging.warning("Estimator is not trained yet. Will start an evaluation when a "
                            "checkpoint is ready.")
            return _EvalResult(_EvalStatus.MISSING_CHECKPOINT), []
        if latest == self._previous_ckpt_path:
            logging.warning("No new checkpoint ready for evaluation. Skip the current "
                            "evaluation pass as evaluation results are expected to be same for "
                            "the same checkpoint.")
            return _EvalResult(_EvalStatus.NO_NEW_CHECKPOINT), []
        spec = self._eval_spec
        try:
            metrics = self._estimator.evaluate(input_fn=spec.input_fn, steps=spec.steps,
                                               name=spec.name, checkpoint_path=latest,
                                               hooks=spec.hooks)
        except ValueError:
            if checkpoint_exists(latest):
                raise
            # The chief's keep_checkpoint_max removed it after we listed it: take the next.
            logging.warning("Checkpoint %s was deleted before it could be evaluated; the "
                            "next evaluation takes the newest one.", latest)
            return _EvalResult(_EvalStatus.MISSING_CHECKPOINT), []
        if not metrics:
            raise ValueError("Internal error: `Estimator.evaluate` should never return empty "
                             "metrics.")
        if GraphKeys.GLOBAL_STEP not in metrics:
            raise ValueError(f"Internal error: `Estimator.evaluate` result should have "
                             f"`global_step` in result. Given {metrics}")
        result = _EvalResult(_EvalStatus.EVALUATED, metrics, latest)
        is_final = bool(self._max_training_steps and
                        metrics[GraphKeys.GLOBAL_STEP] >= self._max_training_steps)
        export_base = os.path.join(self._estimator.model_dir, "export")
        exports = [e.export(estimator=self._estimator,
                            export_path=os.path.join(export_base, e.name),
                            checkpoint_path=latest, eval_result=metrics,
                            is_the_final_export=is_final) for e in spec.exporters]
        self.is_final_export_triggered = self.is_final_export_triggered or is_final
        self._previous_ckpt_path = latest
        return result, exports


class _NewCheckpointListenerForEvaluate(CheckpointSaverListener):
    """Evaluates after each checkpoint save (at most every throttle_secs) and at the end."""

    def __init__(self, evaluator, eval_throttle_secs):
        self._evaluator = evaluator
        self._eval_throttle_secs = eval_throttle_secs
        self.eval_result, self.export_results = None, None

    def begin(self):
        self._timer = SecondOrStepTimer(every_secs=self._eval_throttle_secs)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        del session
        if self._is_first_run:
            self._is_first_run = False
            return None
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            logging.info("Skip the current checkpoint eval due to throttle secs "
                         f"({self._eval_throttle_secs} secs).")
        return None

    def end(self, session, global_step_value):
        del session
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        self.eval_result, self.export_results = self._evaluator.evaluate_and_export()
        if self.eval_result.status != _EvalStatus.EVALUATED:
            raise RuntimeError("There was no new checkpoint after the training. Eval status: "
                               f"{self.eval_result.status}")


class _TrainingExecutor:
    """Runs the task TF_CONFIG names (or everything locally)."""

    def __init__(self, estimator, train_spec, eval_spec):
        if not isinstance(estimator, Estimator):
            raise TypeError("`estimator` must have type `tf.estimator.Estimator`. Got: "
                            f"{type(estimator)}")
        if not isinstance(train_spec, TrainSpec):
            raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. Got: "
                            f"{type(train_spec)}")
        if not isinstance(eval_spec, EvalSpec):
            raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. Got: "
                            f"{type(eval_spec)}")
        self._estimator = estimator
        self._train_spec = train_spec
        self._eval_spec = eval_spec

    def run(self):
        config = self._estimator.config
        if not config.cluster_spec and config.task_type != TaskType.EVALUATOR:
            logging.info("Running training and evaluation locally (non-distributed).")
            return self.run_local()
        if not config.task_type:
            raise ValueError("`estimator.config` must have task_type set. This usually means "
                             "TF_CONFIG environment is not set correctly.")
        if config.task_type == "local":
            raise ValueError("`task.type` in TF_CONFIG cannot be `local`. Leaving `cluster` and "
                             "`task` properties in TF_CONFIG absent triggers train and evaluate "
                             "`Estimator` locally (non-distributed).")
        tasks = {"chief": self.run_chief, "master": self.run_master,
                 "worker": self.run_worker, "ps": self.run_ps,
                 "evaluator": self.run_evaluator}
        if config.task_type not in tasks:
            raise ValueError(f"Task type {config.task_type} is not supported. Supported task "
                             f"types are {sorted(tasks)}")
        tasks[config.task_type]()  # TF returns nothing from a distributed task
        return None

    def run_local(self):
        config = self._estimator.config
        logging.info("Start train and evaluate loop. The evaluate will happen after every "
                     "checkpoint. Checkpoint frequency is determined based on RunConfig "
                     f"arguments: save_checkpoints_steps {config.save_checkpoints_steps} or "
                     f"save_checkpoints_secs {config.save_checkpoints_secs}.")
        evaluator = _Evaluator(self._estimator, self._eval_spec, self._train_spec.max_steps)
        listener = _NewCheckpointListenerForEvaluate(evaluator, self._eval_spec.throttle_secs)
        self._estimator.train(input_fn=self._train_spec.input_fn,
                              max_steps=self._train_spec.max_steps,
                              hooks=list(self._train_spec.hooks), saving_listeners=[listener])
        result = listener.eval_result or _EvalResult(_EvalStatus.MISSING_CHECKPOINT)
        return result.metrics, listener.export_results

    def _start_std_server(self, config):
        return Server(config.cluster_spec, job_name=config.task_type, task_index=config.task_id,
                      config=config.session_config, start=True, protocol=config.protocol)

    def _start_distributed_training(self, delay_secs=0):
        config = self._estimator.config
        self._start_std_server(config)
        if delay_secs:
            logging.info("Waiting %d secs before starting training.", delay_secs)
            time.sleep(delay_secs)
        self._estimator.train(input_fn=self._train_spec.input_fn,
                              max_steps=self._train_spec.max_steps,
                              hooks=list(self._train_spec.hooks))

    def run_chief(self):
        return self._start_distributed_training()

    def run_master(self):
        return self._start_distributed_training()

    def run_worker(self):
        task_id = self._estimator.config.task_id
        return self._start_distributed_training(
            delay_secs=min(_MAX_DELAY_SECS, (task_id + 1) * _DELAY_SECS_PER_WORKER))

    def run_ps(self):
        server = self._start_std_server(self._estimator.config)
        server.join()

    def run_evaluator(self):
        """Evaluates each new checkpoint (throttled) until training's max_steps is
        reached."""
        if self._eval_spec.start_delay_secs:
            logging.info("Waiting %f secs before starting eval.", self._eval_spec.start_delay_secs)
            time.sleep(self._eval_spec.start_delay_secs)
        evaluator = _Evaluator(self._estimator, self._eval_spec, self._train_spec.max_steps)
        while True:
            start = time.time()
            result, _ = evaluator.evaluate_and_export()
            if (result.status == _EvalStatus.EVALUATED and self._train_spec.max_steps and
                    result.metrics[GraphKeys.GLOBAL_STEP] >= self._train_spec.max_steps):
                logging.info("Exiting evaluation, global_step=%s >= train max_steps=%s",
                             result.metrics[GraphKeys.GLOBAL_STEP], self._train_spec.max_steps)
                return
            difference = self._eval_spec.throttle_secs - (time.time() - start)
            if difference > 0:
                logging.info("Waiting %f secs before starting next eval run.", difference)
                time.sleep(difference)


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains the estimator and evaluates it after each new checkpoint (locally), or runs
    this task's part of a TF_CONFIG cluster. Locally returns (eval metrics, export
    results)."""
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. Got: "
                        f"{type(eval_spec)}")
    executor = _TrainingExecutor(estimator=estimator, train_spec=train_spec, eval_spec=eval_spec)
    config = estimator.config
    if config.task_type == TaskType.EVALUATOR and config.task_id > 0:
        raise ValueError("For distributed training, there can only be one `evaluator` task "
                         f"(with task id 0).  Given task id {config.task_id}")
    return executor.run()
