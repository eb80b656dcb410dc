"""RunConfig: defaults, the checkpoint-cadence rules, replace, and the cluster from TF_CONFIG
(ported from tensorflow_estimator 1.15's run_config_test.py)."""
import json

import pytest

import trainflow.compat.v1 as tf
from trainflow.estimator import RunConfig

CLUSTER = {"chief": ["host0:0"], "ps": ["host1:1", "host2:2"],
           "worker": ["host3:3", "host4:4", "host5:5"]}


@pytest.fixture
def tf_config(monkeypatch):
    def set_config(config):
        monkeypatch.setenv("TF_CONFIG", json.dumps(config))
    monkeypatch.delenv("TF_CONFIG", raising=False)
    return set_config


def test_default_property_values(tf_config):
    config = RunConfig()
    assert config.model_dir is None
    assert config.session_config is None
    assert config.tf_random_seed is None
    assert config.save_summary_steps == 100
    assert config.save_checkpoints_secs == 600
    assert config.save_checkpoints_steps is None
    assert config.keep_checkpoint_max == 5
    assert config.keep_checkpoint_every_n_hours == 10000
    assert config.log_step_count_steps == 100
    assert config.cluster_spec.as_dict() == {}
    assert config.task_type == "worker" and config.task_id == 0
    assert config.master == "" and config.evaluation_master == ""
    assert config.is_chief
    assert config.num_ps_replicas == 0 and config.num_worker_replicas == 1


@pytest.mark.parametrize("kwargs, message", [
    ({"model_dir": ""}, "model_dir should be non-empty"),
    ({"save_summary_steps": -1}, "save_summary_steps should be >= 0"),
    ({"save_checkpoints_steps": -1}, "save_checkpoints_steps should be >= 0"),
    ({"save_checkpoints_secs": -1}, "save_checkpoints_secs should be >= 0"),
    ({"session_config": {}}, "session_config must be instance of ConfigProto"),
    ({"keep_checkpoint_max": -1}, "keep_checkpoint_max should be >= 0"),
    ({"keep_checkpoint_every_n_hours": 0}, "keep_checkpoint_every_n_hours should be > 0"),
    ({"log_step_count_steps": 0}, "log_step_count_steps should be > 0"),
    ({"tf_random_seed": 1.0}, "tf_random_seed must be integer"),
    ({"device_fn": lambda x: "/cpu:0"}, 'exactly one argument "op"'),
    ({"save_checkpoints_steps": 1, "save_checkpoints_secs": 1}, "cannot be both set"),
])
def test_invalid_arguments(tf_config, kwargs, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(**kwargs)


def test_replace(tf_config):
    config = RunConfig()
    new = config.replace(model_dir="/tmp/m", tf_random_seed=11, save_summary_steps=12,
                         keep_checkpoint_max=16, log_step_count_steps=18)
    assert new.model_dir == "/tmp/m" and new.tf_random_seed == 11
    assert new.save_summary_steps == 12 and new.keep_checkpoint_max == 16
    assert new.log_step_count_steps == 18
    assert config.model_dir is None  # replace copies
    with pytest.raises(ValueError, match="Replacing cluster_spec is not supported"):
        config.replace(cluster_spec=None)


def test_replace_checkpoint_cadence(tf_config):
    config = RunConfig().replace(save_checkpoints_steps=5)
    assert config.save_checkpoints_steps == 5 and config.save_checkpoints_secs is None
    config = config.replace(save_checkpoints_secs=7)
    assert config.save_checkpoints_secs == 7 and config.save_checkpoints_steps is None
    with pytest.raises(ValueError, match="cannot be both set"):
        config.replace(save_checkpoints_steps=1, save_checkpoints_secs=1)
    assert RunConfig(save_checkpoints_steps=None).save_checkpoints_secs is None


@pytest.mark.parametrize("task, master, is_chief, global_id", [
    ({"type": "chief", "index": 0}, "grpc://host0:0", True, 0),
    ({"type": "worker", "index": 1}, "grpc://host4:4", False, 2),
    ({"type": "ps", "index": 1}, "grpc://host2:2", False, 5),
])
def test_distributed_tasks(tf_config, task, master, is_chief, global_id):
    tf_config({"cluster": CLUSTER, "task": task})
    config = RunConfig()
    assert config.master == master
    assert config.is_chief == is_chief
    assert config.task_type == task["type"] and config.task_id == task["index"]
    assert config.num_ps_replicas == 2 and config.num_worker_replicas == 4
    assert config.cluster_spec == tf.train.ClusterSpec(CLUSTER)
    assert config.global_id_in_cluster == global_id
    assert config.session_config.allow_soft_placement


def test_evaluator_is_outside_the_cluster(tf_config):
    tf_config({"cluster": CLUSTER, "task": {"type": "evaluator", "index": 0}})
    config = RunConfig()
    assert config.cluster_spec.as_dict() == {}
    assert config.master == "" and not config.is_chief
    assert config.num_ps_replicas == 0 and config.num_worker_replicas == 0
    assert config.global_id_in_cluster is None


@pytest.mark.parametrize("config, message", [
    ({"cluster": {"worker": ["h:1"]}, "task": {"type": "worker", "index": 0}},
     'must have one "chief" node'),
    ({"cluster": {"chief": ["h:1", "h:2"]}, "task": {"type": "chief", "index": 0}},
     'must have only one "chief" node'),
    ({"cluster": CLUSTER, "task": {"index": 0}}, "task type must be set"),
    ({"cluster": CLUSTER, "task": {"type": "worker"}}, "task index must be set"),
    ({"cluster": CLUSTER, "task": {"type": "worker", "index": -1}}, "must be non-negative"),
    ({"cluster": CLUSTER, "task": {"type": "foo", "index": 0}}, "not a valid task_type"),
    ({"cluster": CLUSTER, "task": {"type": "worker", "index": 3}}, "not a valid task_id"),
    ({"task": {"type": "ps", "index": 0}}, "task type must be WORKER"),
    ({"task": {"type": "worker", "index": 1}}, "task index must be 0"),
    ({"cluster": {"master": ["h:0"], "chief": ["h:1"]}, "task": {"type": "master",
                                                               "index": 0}},
     "job `chief` is not supported"),
    ({"model_dir": ""}, "model_dir in TF_CONFIG should be non-empty"),
])
def test_invalid_tf_config(tf_config, config, message):
    tf_config(config)
    with pytest.raises(ValueError, match=message):
        RunConfig()


def test_master_cluster(tf_config):
    tf_config({"cluster": {"master": ["h:0"], "ps": ["h:1"], "worker": ["h:2"]},
               "task": {"type": "master", "index": 0}})
    config = RunConfig()
    assert config.is_chief and config.master == "grpc://h:0"
    assert config.num_worker_replicas == 2


def test_model_dir_from_tf_config(tf_config):
    tf_config({"model_dir": "/tmp/a"})
    assert RunConfig().model_dir == "/tmp/a"
    assert RunConfig(model_dir="/tmp/a").model_dir == "/tmp/a"
    with pytest.raises(ValueError, match="must have the same value as the model_dir"):
        RunConfig(model_dir="/tmp/b")


def test_session_master_from_tf_config(tf_config):
    tf_config({"session_master": "grpc://x:1", "eval_session_master": "grpc://y:2"})
    config = RunConfig()
    assert config.master == "grpc://x:1" and config.evaluation_master == "grpc://y:2"
