"""tf.train's session machinery across tasks: MonitoredTrainingSession on a grpc master,
the chief initializing and checkpointing, a non-chief worker waiting for it."""
import trainflow.compat.v1 as tf
from local_cluster import counter_graph, local_cluster

CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)




def test_chief_trains_and_checkpoints_worker_sees_its_state(tmp_path):
    with local_cluster(ps=1, workers=2) as (cluster, servers):
        g, gs, v, train = counter_graph(cluster, 0)
        with g.as_default():
            with tf.train.MonitoredTrainingSession(
                    master=servers["worker"][0].target, is_chief=True,
                    checkpoint_dir=str(tmp_path), config=CONFIG,
                    hooks=[tf.train.StopAtStepHook(last_step=5)]) as sess:
                while not sess.should_stop():
                    sess.run(train)
        assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-5")
        assert tf.train.load_variable(str(tmp_path), "v") == 5.0
        g1, gs1, v1, _ = counter_graph(cluster, 1)
        with g1.as_default():
            with tf.train.MonitoredTrainingSession(
                    master=servers["worker"][1].target, is_chief=False,
                    config=CONFIG) as sess:
                assert sess.run([v1, gs1]) == [5.0, 5]
