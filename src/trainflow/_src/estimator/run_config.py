"""`tf.estimator.RunConfig`: where an Estimator writes, how often it saves, and the
cluster it runs in (from the `TF_CONFIG` environment variable), as TF 1.15."""
import copy
import json
import os

from trainflow._src import tf_logging as logging
from trainflow._src.estimator.util import fn_args
from trainflow._src.protos import config_pb2
from trainflow._src.train.cluster_spec import ClusterSpec

_USE_DEFAULT = object()
_DEFAULT_REPLACEABLE_LIST = [
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute", "device_fn",
    "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs"]
_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."
_TF_CONFIG_ENV = "TF_CONFIG"
_LOCAL_MASTER = ""
_GRPC_SCHEME = "grpc://"


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


def get_default_session_config():
    """The ConfigProto an Estimator's sessions use when the RunConfig has none."""
    return config_pb2.ConfigProto(allow_soft_placement=True)


def _get_session_master(cluster_spec, task_type, task_id, tf_config):
    if "session_master" in tf_config:
        return tf_config["session_master"]
    jobs = cluster_spec.jobs
    if len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        return _LOCAL_MASTER
    return _GRPC_SCHEME + cluster_spec.job_tasks(task_type)[task_id]


def _get_eval_session_master(task_type, tf_config):
    if task_type == TaskType.EVALUATOR:
        return tf_config.get("eval_session_master", _LOCAL_MASTER)
    return _LOCAL_MASTER


def _count_ps(cluster_spec):
    return len(cluster_spec.as_dict().get(TaskType.PS, []))


def _count_worker(cluster_spec, chief_task_type):
    jobs = cluster_spec.as_dict()
    return len(jobs.get(TaskType.WORKER, [])) + len(jobs.get(chief_task_type, []))


def _validate_task_type_and_task_id(cluster_spec, task_env, chief_task_type):
    if chief_task_type not in cluster_spec.jobs:
        raise ValueError(f'If "cluster" is set in TF_CONFIG, it must have one '
                         f'"{chief_task_type}" node.')
    if len(cluster_spec.job_tasks(chief_task_type)) > 1:
        raise ValueError(f'The "cluster" in TF_CONFIG must have only one "{chief_task_type}" '
                         "node.")
    task_type = task_env.get("type", None)
    task_id = task_env.get("index", None)
    if not task_type:
        raise ValueError('If "cluster" is set in TF_CONFIG, task type must be set.')
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set.')
    task_id = int(task_id)
    if task_id < 0:
        raise ValueError("Task index must be non-negative number.")
    if task_type == TaskType.EVALUATOR:
        return task_type, task_id
    note = "Note that these values may be coming from the TF_CONFIG environment variable."
    if task_type not in cluster_spec.jobs:
        raise ValueError(f"{task_type} is not a valid task_type in the cluster_spec:\n"
                         f"{cluster_spec}\n\n{note}")
    if not 0 <= task_id < len(cluster_spec.job_tasks(task_type)):
        raise ValueError(f"{task_id} is not a valid task_id for task_type {task_type} in the "
                         f"cluster_spec:\n{cluster_spec}\n\n{note}")
    return task_type, task_id


def _get_global_id_in_cluster(cluster_spec, task_type, task_id, chief_task_type):
    order = [chief_task_type] + [t for t in sorted(cluster_spec.jobs)
                                 if t not in (chief_task_type, TaskType.PS)]
    if TaskType.PS in cluster_spec.jobs:
        order.append(TaskType.PS)
    next_id = 0
    for t in order:
        if t == task_type:
            return next_id + task_id
        next_id += len(cluster_spec.job_tasks(t))
    raise RuntimeError(f"Internal Error: `task_type` ({task_type}) is not in cluster_spec "
                       f"({cluster_spec}).")


def _validate_save_ckpt_with_replaced_keys(new_copy, replaced_keys):
    steps, secs = new_copy.save_checkpoints_steps, new_copy.save_checkpoints_secs
    if "save_checkpoints_steps" in replaced_keys and "save_checkpoints_secs" in replaced_keys:
        if steps is not None and secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
    elif "save_checkpoints_steps" in replaced_keys and steps is not None:
        new_copy._save_checkpoints_secs = None
    elif "save_checkpoints_secs" in replaced_keys and secs is not None:
        new_copy._save_checkpoints_steps = None


_CHECKS = [
    ("model_dir", lambda d: d, "model_dir should be non-empty"),
    ("save_summary_steps", lambda s: s >= 0, "save_summary_steps should be >= 0"),
    ("save_checkpoints_steps", lambda s: s >= 0, "save_checkpoints_steps should be >= 0"),
    ("save_checkpoints_secs", lambda s: s >= 0, "save_checkpoints_secs should be >= 0"),
    ("session_config", lambda c: isinstance(c, config_pb2.ConfigProto),
     "session_config must be instance of ConfigProto"),
    ("keep_checkpoint_max", lambda k: k >= 0, "keep_checkpoint_max should be >= 0"),
    ("keep_checkpoint_every_n_hours", lambda h: h > 0,
     "keep_checkpoint_every_n_hours should be > 0"),
    ("log_step_count_steps", lambda n: n > 0, "log_step_count_steps should be > 0"),
    ("tf_random_seed", lambda s: isinstance(s, int), "tf_random_seed must be integer."),
    ("experimental_max_worker_delay_secs", lambda d: isinstance(d, int),
     "experimental_max_worker_delay_secs must be an integer if set."),
    ("session_creation_timeout_secs", lambda t: t > 0,
     "session_creation_timeout_secs should be > 0"),
    ("device_fn", lambda f: callable(f) and set(fn_args(f)) == {"op"},
     'device_fn must be callable with exactly one argument "op".'),
    ("protocol", lambda p: p in (None, "grpc", "grpc+verbs"),
     "protocol should be grpc or grpc+verbs"),
]


def _validate_properties(run_config):
    for name, cond, message in _CHECKS:
        value = getattr(run_config, "_" + name)
        if value is not None and not cond(value):
            raise ValueError(message)


def _get_model_dir(tf_config, model_dir):
    if model_dir == "":
        raise ValueError("model_dir should be non-empty.")
    in_config = tf_config.get("model_dir")
    if in_config == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if in_config:
        if model_dir and in_config != model_dir:
            raise ValueError("`model_dir` provided in RunConfig construct, if set, must have the "
                             "same value as the model_dir in TF_CONFIG. "
                             f"model_dir: {model_dir}\nTF_CONFIG[\"model_dir\"]: {in_config}.\n")
        logging.info("Using model_dir in TF_CONFIG: %s", in_config)
    return model_dir or in_config


class RunConfig:
    """The configuration of an Estimator's run: model_dir, checkpoint, summary and logging
    cadence, the session's ConfigProto, the random seed, and the cluster described by the
    `TF_CONFIG` environment variable (`cluster`: job -> addresses, `task`: type and index)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200):
        if save_checkpoints_steps == _USE_DEFAULT and save_checkpoints_secs == _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs == _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps == _USE_DEFAULT:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
        tf_config = json.loads(os.environ.get(_TF_CONFIG_ENV, "{}"))
        if tf_config:
            logging.info("TF_CONFIG environment variable: %s", tf_config)
        model_dir = _get_model_dir(tf_config, os.fspath(model_dir) if model_dir else model_dir)
        RunConfig._replace(
            self, allowed_properties_list=_DEFAULT_REPLACEABLE_LIST, model_dir=model_dir,
            tf_random_seed=tf_random_seed, save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs, session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps, train_distribute=train_distribute,
            device_fn=device_fn, protocol=protocol, eval_distribute=eval_distribute,
            experimental_distribute=experimental_distribute,
            experimental_max_worker_delay_secs=experimental_max_worker_delay_secs,
            session_creation_timeout_secs=session_creation_timeout_secs)
        self._init_distributed_setting_from_environment_var(tf_config)
        if not self._session_config and self._cluster_spec:
            RunConfig._replace(self, allowed_properties_list=_DEFAULT_REPLACEABLE_LIST,
                               session_config=self._default_session_config_distributed())

    def _default_session_config_distributed(self):
        filters = {TaskType.MASTER: ["/job:ps", "/job:master"],
                   TaskType.CHIEF: ["/job:ps", "/job:chief"],
                   TaskType.WORKER: ["/job:ps", f"/job:worker/task:{self._task_id}"],
                   TaskType.PS: ["/job:ps", "/job:worker", "/job:chief", "/job:master"]}
        if self._task_type not in filters:
            return None
        return config_pb2.ConfigProto(allow_soft_placement=True,
                                      device_filters=filters[self._task_type])

    def _init_distributed_setting_from_environment_var(self, tf_config):
        service = tf_config.get("service")
        if service is not None and not isinstance(service, dict):
            raise TypeError(f'If "service" is set in TF_CONFIG, it must be a dict. Given '
                            f"{type(service)}")
        self._service = service
        self._cluster_spec = ClusterSpec(tf_config.get("cluster", {}))
        task_env = tf_config.get("task", {})
        if self._cluster_spec and TaskType.MASTER in self._cluster_spec.jobs:
            return self._init_with_master(tf_config)
        if self._cluster_spec:
            self._task_type, self._task_id = _validate_task_type_and_task_id(
                self._cluster_spec, task_env, TaskType.CHIEF)
            self._evaluation_master = _get_eval_session_master(self._task_type, tf_config)
            if self._task_type != TaskType.EVALUATOR:
                self._master = _get_session_master(self._cluster_spec, self._task_type,
                                                   self._task_id, tf_config)
                self._num_ps_replicas = _count_ps(self._cluster_spec)
                self._num_worker_replicas = _count_worker(self._cluster_spec, TaskType.CHIEF)
                self._global_id_in_cluster = _get_global_id_in_cluster(
                    self._cluster_spec, self._task_type, self._task_id, TaskType.CHIEF)
            else:
                self._cluster_spec = ClusterSpec({})
                self._master = _LOCAL_MASTER
                self._num_ps_replicas = 0
                self._num_worker_replicas = 0
                self._global_id_in_cluster = None
            self._is_chief = self._task_type == TaskType.CHIEF
            return None
        self._task_type = task_env.get("type", TaskType.WORKER)
        self._task_id = int(task_env.get("index", 0))
        self._global_id_in_cluster = 0
        if self._task_type != TaskType.WORKER:
            raise ValueError('If "cluster" is not set in TF_CONFIG, task type must be WORKER.')
        if self._task_id != 0:
            raise ValueError('If "cluster" is not set in TF_CONFIG, task index must be 0.')
        self._master = tf_config.get("session_master", _LOCAL_MASTER)
        self._evaluation_master = tf_config.get("eval_session_master", _LOCAL_MASTER)
        self._is_chief = True
        self._num_ps_replicas = 0
        self._num_worker_replicas = 1
        return None

    def _init_with_master(self, tf_config):
        if TaskType.CHIEF in self._cluster_spec.jobs:
            raise ValueError("If `master` node exists in `cluster`, job `chief` is not "
                             "supported.")
        self._task_type, self._task_id = _validate_task_type_and_task_id(
            self._cluster_spec, tf_config.get("task", {}), TaskType.MASTER)
        if self._task_type == TaskType.EVALUATOR:
            raise ValueError("If `master` node exists in `cluster`, task_type `evaluator` is "
                             "not supported.")
        self._global_id_in_cluster = _get_global_id_in_cluster(
            self._cluster_spec, self._task_type, self._task_id, TaskType.MASTER)
        self._master = _get_session_master(self._cluster_spec, self._task_type, self._task_id,
                                           tf_config)
        self._evaluation_master = _get_eval_session_master(self._task_type, tf_config)
        self._num_ps_replicas = _count_ps(self._cluster_spec)
        self._num_worker_replicas = _count_worker(self._cluster_spec, TaskType.MASTER)
        self._is_chief = self._task_type == TaskType.MASTER

    cluster_spec = property(lambda self: self._cluster_spec)
    device_fn = property(lambda self: self._device_fn)
    evaluation_master = property(lambda self: self._evaluation_master)
    is_chief = property(lambda self: self._is_chief)
    master = property(lambda self: self._master)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    task_id = property(lambda self: self._task_id)
    global_id_in_cluster = property(lambda self: self._global_id_in_cluster)
    task_type = property(lambda self: self._task_type)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    model_dir = property(lambda self: self._model_dir)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs)
    protocol = property(lambda self: self._protocol)
    service = property(lambda self: self._service)

    def replace(self, **kwargs):
        """A copy with the given properties replaced (those of TF's replaceable list)."""
        return RunConfig._replace(copy.deepcopy(self),
                                  allowed_properties_list=_DEFAULT_REPLACEABLE_LIST, **kwargs)

    @staticmethod
    def _replace(config, allowed_properties_list=None, **kwargs):
        allowed_properties_list = allowed_properties_list or []
        for key, new_value in kwargs.items():
            if key in allowed_properties_list:
                setattr(config, "_" + key, new_value)
                continue
            raise ValueError(f"Replacing {key} is not supported. Allowed properties are "
                             f"{allowed_properties_list}.")
        _validate_save_ckpt_with_replaced_keys(config, kwargs.keys())
        _validate_properties(config)
        return config
