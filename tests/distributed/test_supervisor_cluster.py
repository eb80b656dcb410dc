"""tf.train's session machinery across tasks (servers in this process, one Session per
task): Supervisor with a chief and a non-chief worker that waits for the chief's init,
and monitored sessions that recover from the last checkpoint when the ps restarts."""
import threading
import time

import trainflow.compat.v1 as tf
from local_cluster import counter_graph, local_cluster

CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)




def test_supervisor_non_chief_waits_for_the_chief_then_trains(tmp_path):
    with local_cluster(ps=1, workers=2) as (cluster, servers):
        results, failures = {}, []
        non_chief_waiting = threading.Event()

        def non_chief():
            g, gs, v, train = counter_graph(cluster, 1)
            try:
                with g.as_default():
                    sv = tf.train.Supervisor(is_chief=False, logdir=str(tmp_path),
                                             recovery_wait_secs=0.05)
                    non_chief_waiting.set()
                    with sv.managed_session(servers["worker"][1].target,
                                            config=CONFIG) as sess:
                        results["ready_at"] = time.monotonic()
                        for _ in range(3):
                            sess.run(train)
                        results["non_chief_done"] = sess.run(v)
            except Exception as e:  # noqa: BLE001 - reported below
                failures.append(e)

        thread = threading.Thread(target=non_chief)
        thread.start()
        try:
            assert non_chief_waiting.wait(20)
            time.sleep(0.3)  # the non-chief polls the uninitialized model meanwhile
            g, gs, v, train = counter_graph(cluster, 0)
            with g.as_default():
                sv = tf.train.Supervisor(is_chief=True, logdir=str(tmp_path),
                                         save_model_secs=0, save_summaries_secs=0)
                chief_started = time.monotonic()
                sess = sv.prepare_or_wait_for_session(servers["worker"][0].target,
                                                      config=CONFIG)
                try:
                    for _ in range(2):
                        sess.run(train)
                    thread.join(30)
                    assert not thread.is_alive() and not failures, failures
                    assert results["ready_at"] > chief_started
                    assert sess.run([v, gs]) == [5.0, 5]
                finally:
                    sv.stop()
                    sess.close()
        finally:
            thread.join(30)


def test_monitored_sessions_recover_from_the_last_checkpoint_when_the_ps_restarts(tmp_path):
    ckpt = str(tmp_path)
    with local_cluster(ps=1, workers=2) as (cluster, servers):
        g0, gs0, v0, train0 = counter_graph(cluster, 0)
        g1, gs1, v1, train1 = counter_graph(cluster, 1)
        target0 = servers["worker"][0].target
        with g0.as_default():
            saver = tf.train.Saver()
            tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
            chief = tf.train.MonitoredTrainingSession(
                master=target0, is_chief=True, checkpoint_dir=ckpt,
                save_checkpoint_steps=None, save_checkpoint_secs=None, config=CONFIG)
        with g1.as_default():
            worker = tf.train.MonitoredTrainingSession(
                master=servers["worker"][1].target, is_chief=False, config=CONFIG)
        def on(g, sess, fetches):
            # As in a trainer, steps (and the session re-creations) run in their graph.
            with g.as_default():
                return sess.run(fetches)

        try:
            for _ in range(3):
                on(g0, chief, train0)
            on(g1, worker, train1)
            with tf.Session(target0, graph=g0, config=CONFIG) as sess:
                saver.save(sess, f"{ckpt}/model.ckpt", global_step=4)
            on(g0, chief, train0)  # after the checkpoint: lost with the ps
            assert on(g1, worker, gs1) == 5

            servers["ps"][0].stop(0)
            servers["ps"][0] = tf.train.Server(cluster, "ps", 0)
            # The chief recreates its session and restores step 4; the non-chief waits
            # for that, then goes on.
            assert on(g0, chief, [v0, gs0]) == [4.0, 4]
            on(g0, chief, train0)
            assert on(g1, worker, [v1, gs1]) == [5.0, 5]
            on(g1, worker, train1)
            assert on(g0, chief, gs0) == 6
            assert not tf.get_default_graph().finalized
        finally:
            worker.close()
            chief.close()
            tf.summary.FileWriterCache.clear()  # the chief's hooks' event writer
