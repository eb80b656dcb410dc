"""`tf.estimator.Estimator`: trains, evaluates, predicts with and exports a model given by
its model_fn, keeping everything in model_dir exactly as TensorFlow 1.15 does (graph.pbtxt,
model.ckpt-N, checkpoint, events, eval/ and eval_<name>/ event files)."""
import collections
import copy
import os
import tempfile

from trainflow._src import tf_logging as logging
from trainflow._src.estimator import evaluation
from trainflow._src.estimator import export as export_lib
from trainflow._src.estimator import model_fn as model_fn_lib
from trainflow._src.estimator import run_config
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.estimator.util import fn_args, parse_input_fn_result
from trainflow._src.framework.graph import Graph, get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.random_seed import set_random_seed
from trainflow._src.framework.scopes import add_to_collection, device, get_collection
from trainflow._src.gfile import file_ops
from trainflow._src.metrics.mean_metrics import mean
from trainflow._src.ops.control_flow.control_flow_ops import group
from trainflow._src.ops.summary.summary_ops import scalar as scalar_summary
from trainflow._src.train import checkpoint_management, checkpoint_utils, training_util
from trainflow._src.train.basic_session_run_hooks import (
    LoggingTensorHook, NanTensorHook, StopAtStepHook)
from trainflow._src.train.checkpoint_hooks import CheckpointSaverHook, CheckpointSaverListener
from trainflow._src.train.checkpoint_reader import NewCheckpointReader
from trainflow._src.train.device_setter import replica_device_setter
from trainflow._src.train.monitored_session import MonitoredSession
from trainflow._src.train.saver import Saver
from trainflow._src.train.scaffold import Scaffold
from trainflow._src.train.session_creators import ChiefSessionCreator
from trainflow._src.train.session_run_hook import SessionRunHook
from trainflow._src.train.training_session import MonitoredTrainingSession
from trainflow._src.train.warm_start import VocabInfo, warm_start


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """Which variables to warm-start from which checkpoint (`tf.train.warm_start`'s
    arguments)."""

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start,
                               var_name_to_vocab_info or {}, var_name_to_prev_var_name or {})


__all__ = ["Estimator", "VocabInfo", "WarmStartSettings"]


def _saved_model_variables(path):
    """A SavedModel directory's checkpoint prefix, or `path` unchanged."""
    if isinstance(path, bytes):
        path = path.decode()
    if file_ops.isdir(path) and (file_ops.exists(os.path.join(path, "saved_model.pb"))
                                 or file_ops.exists(os.path.join(path, "saved_model.pbtxt"))):
        return os.path.join(path, "variables", "variables")
    return path


def _get_default_warm_start_settings(warm_start_from):
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        return WarmStartSettings(ckpt_to_initialize_from=_saved_model_variables(
            os.fspath(warm_start_from)))
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from._replace(ckpt_to_initialize_from=_saved_model_variables(
            warm_start_from.ckpt_to_initialize_from))
    raise ValueError("warm_start_from must be a string or a WarmStartSettings, instead got "
                     f"{type(warm_start_from)}")


def maybe_overwrite_model_dir_and_session_config(config, model_dir):
    """The RunConfig an Estimator uses: a default one, a default session config, and the
    model_dir (a temporary directory when none is given)."""
    if config is None:
        config = run_config.RunConfig()
        logging.info("Using default config.")
    if not isinstance(config, run_config.RunConfig):
        raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
    if config.session_config is None:
        config = config.replace(session_config=run_config.get_default_session_config())
    model_dir = os.fspath(model_dir) if model_dir is not None else None
    if model_dir is not None and config.model_dir is not None and config.model_dir != model_dir:
        raise ValueError("`model_dir` are set both in constructor and `RunConfig`, but with "
                         f"different values. In constructor: '{model_dir}', in `RunConfig`: "
                         f"'{config.model_dir}' ")
    if model_dir:
        config = config.replace(model_dir=model_dir)
    elif config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
        config = config.replace(model_dir=model_dir)
    return config


def _get_replica_device_setter(config):
    if config.num_ps_replicas > 0:
        return replica_device_setter(ps_tasks=config.num_ps_replicas,
                                     worker_device="/job:worker/task:%d" % config.task_id,
                                     merge_devices=True, cluster=config.cluster_spec)
    return None


def _check_hooks_type(hooks):
    hooks = list(hooks or [])
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {h}")
    return hooks


def _check_listeners_type(saving_listeners):
    listeners = list(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, CheckpointSaverListener):
            raise TypeError("saving_listeners must be a list of CheckpointSaverListener, "
                            f"given: {listener}")
    return listeners


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    try:
        reader = NewCheckpointReader(checkpoint_management.latest_checkpoint(checkpoint_dir))
        return reader.get_tensor(GraphKeys.GLOBAL_STEP)
    except Exception:  # noqa: BLE001 - TF: no checkpoint (or no step in it) means step 0
        return 0


def _extract_metric_update_ops(eval_dict):
    update_ops, value_ops = [], {}
    for name, metric_ops in sorted(eval_dict.items()):
        value_ops[name] = metric_ops[0]
        update_ops.append(metric_ops[1])
    return (group(*update_ops) if update_ops else None), value_ops


def _eval_scaffold(scaffold):
    """The spec's scaffold, its local_init_op also initializing the metric variables."""
    if scaffold and scaffold.local_init_op is not None:
        return Scaffold(local_init_op=group(scaffold.local_init_op,
                                            Scaffold.default_local_init_op()),
                        copy_from_scaffold=scaffold)
    return scaffold


class Estimator(export_lib.ExportMixin):
    """A model given by `model_fn(features, labels, mode, params, config)` returning an
    EstimatorSpec, trained, evaluated, used for prediction and exported; its
    checkpoints, graph and summaries live in `model_dir`.

    Raises:
      ValueError: model_fn is missing or has arguments other than features, labels,
        mode, params, config; params are given but model_fn takes none; model_dir
        differs from config.model_dir.
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        Estimator._assert_members_are_not_overridden(self)
        self._config = maybe_overwrite_model_dir_and_session_config(config, model_dir)
        self._model_dir = self._config.model_dir
        self._session_config = self._config.session_config
        logging.info("Using config: %s", str(vars(self._config)))
        self._device_fn = self._config.device_fn or _get_replica_device_setter(self._config)
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        model_fn_lib.verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        self._warm_start_settings = _get_default_warm_start_settings(warm_start_from)

    _ALLOWED_OVERRIDES = {"model_fn", "_create_and_assert_global_step",
                          "_export_all_saved_models", "latest_checkpoint",
                          "_validate_features_in_predict_input", "_call_input_fn",
                          "_add_meta_graph_for_mode"}

    def _assert_members_are_not_overridden(self):
        """TF's rule: a subclass may add methods but override only a few."""
        members = {}
        for klass in reversed(Estimator.__mro__[:-1]):
            members.update({k: v for k, v in vars(klass).items() if not k.startswith("__")})
        overridden = sorted(
            m for m, value in vars(type(self)).items()
            if m in members and m not in self._ALLOWED_OVERRIDES and members[m] is not value
            and type(self) is not Estimator)
        if overridden:
            raise ValueError("Subclasses of Estimator cannot override members of Estimator. "
                             f"{self.__class__} does override {overridden}")

    @property
    def model_dir(self):
        return self._model_dir

    @property
    def config(self):
        return copy.deepcopy(self._config)

    @property
    def params(self):
        return copy.deepcopy(self._params)

    @property
    def model_fn(self):
        """The model_fn, called with the estimator's params and config."""
        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)
        return public_model_fn

    # -- variables ------------------------------------------------------------------------
    def _check_checkpoint_available(self):
        if not self.latest_checkpoint():
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")

    def get_variable_value(self, name):
        """The value of variable `name` in the latest checkpoint."""
        self._check_checkpoint_available()
        return checkpoint_utils.load_variable(self.model_dir, name)

    def get_variable_names(self):
        """The names of the variables in the latest checkpoint."""
        self._check_checkpoint_available()
        return [name for name, _ in checkpoint_utils.list_variables(self.model_dir)]

    def latest_checkpoint(self):
        """The path of the latest checkpoint in model_dir, or None."""
        return checkpoint_management.latest_checkpoint(self.model_dir)

    # -- calling the user's functions -----------------------------------------------------
    def _call_input_fn(self, input_fn, mode):
        args = fn_args(input_fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        with device("/cpu:0"):
            return input_fn(**kwargs)

    def _get_features_and_labels_from_input_fn(self, input_fn, mode):
        return parse_input_fn_result(self._call_input_fn(input_fn, mode))

    def _call_model_fn(self, features, labels, mode, config):
        args = fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        logging.info("Calling model_fn.")
        result = self._model_fn(features=features, **kwargs)
        logging.info("Done calling model_fn.")
        if not isinstance(result, model_fn_lib.EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return result

    def _create_and_assert_global_step(self, graph):
        step = training_util.create_global_step(graph)
        assert step is training_util.get_global_step(graph)
        assert step.dtype.is_integer
        return step

    def _maybe_warm_start(self, checkpoint_path):
        if not checkpoint_path and self._warm_start_settings:
            logging.info("Warm-starting with WarmStartSettings: %s", self._warm_start_settings)
            warm_start(*self._warm_start_settings)

    # -- train ----------------------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains on `input_fn`'s data until it ends, `steps` more steps run or the global
        step reaches `max_steps`. Returns self."""
        if self.config.task_type in (run_config.TaskType.EVALUATOR, run_config.TaskType.PS):
            raise ValueError("Train has been called wrong configuration. Please use "
                             "tf.estimator.train_and_evaluate which calls proper API according "
                             f"to given configuration. Current configuration: {self.config}.")
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None:
            start_step = _load_global_step_from_checkpoint_dir(self._model_dir)
            if max_steps <= start_step:
                logging.info("Skipping training since max_steps has already saved.")
                return self
        hooks = _check_hooks_type(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(StopAtStepHook(steps, max_steps))
        saving_listeners = _check_listeners_type(saving_listeners)
        loss = self._train_model(input_fn, hooks, saving_listeners)
        logging.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn, hooks, saving_listeners):
        with Graph().as_default() as g, g.device(self._device_fn):
            set_random_seed(self._config.tf_random_seed)
            global_step_tensor = self._create_and_assert_global_step(g)
            training_util._get_or_create_global_step_read(g)
            features, labels, input_hooks = self._get_features_and_labels_from_input_fn(
                input_fn, ModeKeys.TRAIN)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
            global_step_tensor = training_util.get_global_step(g)
            return self._train_with_estimator_spec(spec, list(input_hooks), hooks,
                                                   global_step_tensor, saving_listeners)

    def _training_hooks(self, spec, worker_hooks, hooks, global_step_tensor):
        if self._warm_start_settings:
            logging.info("Warm-starting with WarmStartSettings: %s", self._warm_start_settings)
            warm_start(*self._warm_start_settings)
        if not any(x.op.name == "loss" for x in get_collection(GraphKeys.SUMMARIES)):
            scalar_summary("loss", spec.loss)
        add_to_collection(GraphKeys.LOSSES, spec.loss)
        worker_hooks.extend(hooks)
        worker_hooks.append(NanTensorHook(spec.loss))
        if self._config.log_step_count_steps is not None:
            worker_hooks.append(LoggingTensorHook(
                {"loss": spec.loss, "step": global_step_tensor},
                every_n_iter=self._config.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)
        if not (spec.scaffold.saver or get_collection(GraphKeys.SAVERS)):
            add_to_collection(GraphKeys.SAVERS, Saver(
                sharded=True, max_to_keep=self._config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
                defer_build=True, save_relative_paths=True))
        return worker_hooks

    def _train_with_estimator_spec(self, spec, worker_hooks, hooks, global_step_tensor,
                                   saving_listeners):
        worker_hooks = self._training_hooks(spec, worker_hooks, hooks, global_step_tensor)
        chief_hooks = []
        all_hooks = worker_hooks + list(spec.training_chief_hooks)
        saver_hooks = [h for h in all_hooks if isinstance(h, CheckpointSaverHook)]
        if self._config.save_checkpoints_secs or self._config.save_checkpoints_steps:
            if not saver_hooks:
                chief_hooks = [CheckpointSaverHook(
                    self._model_dir, save_secs=self._config.save_checkpoints_secs,
                    save_steps=self._config.save_checkpoints_steps, scaffold=spec.scaffold)]
                saver_hooks = [chief_hooks[0]]
        if saving_listeners:
            if not saver_hooks:
                raise ValueError("There should be a CheckpointSaverHook to use saving_listeners. "
                                 "Please set one of the RunConfig.save_checkpoints_steps or "
                                 "RunConfig.save_checkpoints_secs.")
            saver_hooks[0]._listeners.extend(saving_listeners)
        with MonitoredTrainingSession(
                master=self._config.master, is_chief=self._config.is_chief,
                checkpoint_dir=self._model_dir, scaffold=spec.scaffold, hooks=worker_hooks,
                chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
                save_checkpoint_secs=0, save_summaries_steps=self._config.save_summary_steps,
                config=self._session_config,
                log_step_count_steps=self._config.log_step_count_steps) as mon_sess:
            loss = None
            any_step_done = False
            while not mon_sess.should_stop():
                _, loss = mon_sess.run([spec.train_op, spec.loss])
                any_step_done = True
        if not any_step_done:
            logging.warning("Training with estimator made no steps. Perhaps input is empty or "
                            "misspecified.")
        return loss

    # -- evaluate -------------------------------------------------------------------------
    def eval_dir(self, name=None):
        """model_dir/eval, or model_dir/eval_<name>."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates the latest (or the given) checkpoint on `input_fn`'s data, for `steps`
        batches or until the input ends; returns the metrics, `loss` and `global_step`, and
        writes them as summaries in eval_dir(name)."""
        hooks = _check_hooks_type(hooks)
        hooks.extend(self._convert_eval_steps_to_hooks(steps))
        if not checkpoint_path:
            latest_path = self.latest_checkpoint()
            if not latest_path:
                logging.info(f"Could not find trained model in model_dir: {self._model_dir}, "
                             "running initialization to evaluate.")
            checkpoint_path = latest_path
        with Graph().as_default():
            scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(
                input_fn, hooks, checkpoint_path)
            return self._evaluate_run(checkpoint_path, scaffold, update_op, eval_dict,
                                      all_hooks, self.eval_dir(name))

    @staticmethod
    def _convert_eval_steps_to_hooks(steps):
        if steps is None:
            return []
        if steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        return [evaluation.StopAfterNEvalsHook(num_evals=steps)]

    def _evaluate_build_graph(self, input_fn, hooks=None, checkpoint_path=None):
        """Builds the EVAL graph in the default graph: (scaffold, update_op, eval_dict,
        all_hooks)."""
        g = get_default_graph()
        set_random_seed(self._config.tf_random_seed)
        global_step_tensor = self._create_and_assert_global_step(g)
        features, labels, input_hooks = self._get_features_and_labels_from_input_fn(
            input_fn, ModeKeys.EVAL)
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
        self._maybe_warm_start(checkpoint_path)
        if model_fn_lib.LOSS_METRIC_KEY in spec.eval_metric_ops:
            raise ValueError(f'Metric with name "{model_fn_lib.LOSS_METRIC_KEY}" is not '
                             "allowed, because Estimator already defines a default metric "
                             "with the same name.")
        spec.eval_metric_ops[model_fn_lib.LOSS_METRIC_KEY] = mean(spec.loss)
        update_op, eval_dict = _extract_metric_update_ops(spec.eval_metric_ops)
        if GraphKeys.GLOBAL_STEP in eval_dict:
            raise ValueError("Metric with name `global_step` is not allowed, because Estimator "
                             "already defines a default metric with the same name.")
        eval_dict[GraphKeys.GLOBAL_STEP] = global_step_tensor
        all_hooks = list(input_hooks) + list(hooks or []) + list(spec.evaluation_hooks or [])
        return _eval_scaffold(spec.scaffold), update_op, eval_dict, all_hooks

    def _evaluate_run(self, checkpoint_path, scaffold, update_op, eval_dict, all_hooks,
                      output_dir):
        """Runs one evaluation of the built graph and writes its summaries."""
        results = evaluation.evaluate_once(
            checkpoint_path=checkpoint_path, master=self._config.evaluation_master,
            scaffold=scaffold, eval_ops=update_op, final_ops=eval_dict, hooks=all_hooks,
            config=self._session_config)
        step = results[GraphKeys.GLOBAL_STEP]
        evaluation.write_dict_to_summary(output_dir, results, step)
        if checkpoint_path:
            evaluation.write_checkpoint_path_to_summary(output_dir, checkpoint_path, step)
        return results

    # -- predict --------------------------------------------------------------------------
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yields the predictions of the latest (or the given) checkpoint on `input_fn`'s
        features, one example at a time (or one batch with yield_single_examples=False)."""
        hooks = _check_hooks_type(hooks)
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                logging.info(f"Could not find trained model in model_dir: {self._model_dir}, "
                             "running initialization to predict.")
        with Graph().as_default() as g:
            set_random_seed(self._config.tf_random_seed)
            self._create_and_assert_global_step(g)
            features, _, input_hooks = self._get_features_and_labels_from_input_fn(
                input_fn, ModeKeys.PREDICT)
            self._validate_features_in_predict_input(g, input_hooks)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            self._maybe_warm_start(checkpoint_path)
            predictions = self._extract_keys(spec.predictions, predict_keys)
            all_hooks = list(input_hooks) + hooks + list(spec.prediction_hooks or [])
            creator = ChiefSessionCreator(checkpoint_filename_with_path=checkpoint_path,
                                          master=self._config.master, scaffold=spec.scaffold,
                                          config=self._session_config)
            with MonitoredSession(session_creator=creator, hooks=all_hooks) as mon_sess:
                while not mon_sess.should_stop():
                    preds_evaluated = mon_sess.run(predictions)
                    if not yield_single_examples:
                        yield preds_evaluated
                    elif not isinstance(predictions, dict):
                        yield from preds_evaluated
                    else:
                        for i in range(self._extract_batch_length(preds_evaluated)):
                            yield {key: value[i] for key, value in preds_evaluated.items()}

    @staticmethod
    def _validate_features_in_predict_input(graph, input_hooks):
        if not input_hooks and not graph.get_collection(GraphKeys.QUEUE_RUNNERS):
            logging.warning("Input graph does not use tf.data.Dataset or contain a "
                            "QueueRunner. That means predict yields forever. This is probably "
                            "a mistake.")

    @staticmethod
    def _extract_batch_length(preds_evaluated):
        batch_length = None
        for key, value in preds_evaluated.items():
            batch_length = batch_length or value.shape[0]
            if value.shape[0] != batch_length:
                raise ValueError("Batch length of predictions should be same. %s has different "
                                 "batch length than others." % key)
        return batch_length

    @staticmethod
    def _extract_keys(predictions, predict_keys):
        if not predict_keys:
            return predictions
        if not isinstance(predictions, dict):
            raise ValueError("predict_keys argument is not valid in case of non-dict "
                             "predictions.")
        existing_keys = predictions.keys()
        predictions = {k: v for k, v in predictions.items() if k in predict_keys}
        if not predictions:
            raise ValueError(f"Expected to run at least one output from {existing_keys}, "
                             f"provided {predict_keys}.")
        return predictions
