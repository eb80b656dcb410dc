"""tf.test.create_local_cluster: the case of TF's local-cluster test (a variable on ps,
updated from two workers), the cluster's jobs, and protocol errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_local_cluster_runs_a_step_on_ps_and_workers():
    workers, ps_servers = tf.test.create_local_cluster(num_workers=2, num_ps=2)
    try:
        assert len(workers) == 2 and len(ps_servers) == 2
        assert workers[0].target.startswith("grpc://localhost:")
        cluster = workers[0].server_def.cluster
        assert sorted(j.name for j in cluster.job) == ["ps", "worker"]
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                var0 = tf.Variable(0.0)
            with tf.device("/job:ps/task:1"):
                var1 = tf.Variable(1.0)
            with tf.device("/job:worker/task:0"):
                update0 = tf.assign_add(var0, 1.0)
            with tf.device("/job:worker/task:1"):
                update1 = tf.assign_add(var1, 2.0)
            with tf.Session(workers[0].target) as sess:
                sess.run(tf.global_variables_initializer())
                sess.run([update0, update1])
                np.testing.assert_allclose(sess.run([var0, var1]), [1.0, 3.0])
            with tf.Session(workers[1].target) as sess:
                np.testing.assert_allclose(sess.run([var0, var1]), [1.0, 3.0])
    finally:
        for server in workers + ps_servers:
            server.stop(0)


def test_no_ps_and_bad_protocol():
    workers, ps_servers = tf.test.create_local_cluster(num_workers=1, num_ps=0)
    try:
        assert ps_servers == []
        assert [j.name for j in workers[0].server_def.cluster.job] == ["worker"]
    finally:
        workers[0].stop(0)
    with pytest.raises(tf.errors.NotFoundError):
        tf.test.create_local_cluster(num_workers=1, num_ps=0, protocol="carrier-pigeon")
