"""SyncReplicasOptimizer programs that run the same under trainflow and under TensorFlow
(source text: `scenario(tf)` / `graph_nodes(tf)` after exec, with `tf` the compat.v1
module), so the tests compare trainflow's results with TensorFlow's."""

# Two replicas in one graph and one session: each has its own SyncReplicasOptimizer, the
# accumulators and the token queue are shared through their shared_name. Replica 0 is the
# chief. The rounds follow TF's own test: round 1 uses the initial tokens, round 2's
# gradients are stale (dropped), then both replicas step together in threads.
SCENARIO = r'''
import threading
import time


def scenario(tf, rounds=3):
    out = {"rounds": []}
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        v = tf.get_variable("v", [2], initializer=tf.constant_initializer([1.0, 2.0]))
        e = tf.get_variable("e", [3, 2], initializer=tf.constant_initializer(1.0))
        trains, opts = [], []
        for x, rows in (([0.5, -1.0], [0, 2]), ([2.0, 1.5], [1, 2])):
            loss = tf.reduce_sum(tf.square(v - x)) + \
                tf.reduce_sum(tf.gather(e, rows) * tf.constant(x))
            opt = tf.train.SyncReplicasOptimizer(
                tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=2,
                total_num_replicas=2)
            trains.append(opt.minimize(loss, global_step=gs))
            opts.append(opt)
        hooks = [opts[0].make_session_run_hook(True), opts[1].make_session_run_hook(False)]
        for h in hooks:
            h.begin()
        counts = [acc.num_accumulated() for acc, _ in opts[0]._accumulator_list]
        local_steps = [opt._local_step for opt in opts]
        init = [tf.global_variables_initializer(), tf.local_variables_initializer()]
        sess = tf.Session()
        coord = tf.train.Coordinator()
        sess.run(init)
        for h in hooks:
            h.after_create_session(sess, coord)

        def record(name):
            gs_, v_, e_, ls, cs = sess.run([gs, v, e, local_steps, counts])
            out["rounds"].append({"name": name, "global_step": int(gs_), "v": v_.tolist(),
                                  "e": e_.tolist(), "local_steps": [int(s) for s in ls],
                                  "num_accumulated": [int(c) for c in cs]})

        def wait_for_step(n):
            deadline = time.monotonic() + 20
            while sess.run(gs) < n:
                assert time.monotonic() < deadline, "no aggregated update"
                time.sleep(0.005)

        record("start")
        sess.run(trains[0])
        sess.run(trains[1])
        wait_for_step(1)
        record("initial tokens")
        sess.run(trains[0])
        sess.run(trains[1])
        record("stale")
        for r in range(rounds):
            threads = [threading.Thread(target=sess.run, args=(t,)) for t in trains]
            for t in threads:
                t.start()
            for t in threads:
                t.join(20)
                assert not t.is_alive(), "a replica is stuck"
            wait_for_step(2 + r)
            record(f"together {r}")
        coord.request_stop()
        sess.close()
        coord.join(stop_grace_period_secs=10)
    return out
'''

# Node name, op type, inputs and colocation of every node of a SyncReplicasOptimizer graph
# (one dense and one sparse gradient, backup replicas, the chief's hook ops).
GRAPH_NODES = r'''
def graph_nodes(tf):
    with tf.Graph().as_default() as g:
        gs = tf.train.get_or_create_global_step()
        v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
        e = tf.get_variable("e", [3, 2], initializer=tf.ones_initializer())
        loss = tf.reduce_sum(v * v) + tf.reduce_sum(tf.gather(e, [0, 2]))
        opt = tf.train.SyncReplicasOptimizer(
            tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=2,
            total_num_replicas=3)
        train = opt.minimize(loss, global_step=gs)
        opt.make_session_run_hook(True).begin()
        nodes = [[n.name, n.op, list(n.input),
                  [s.decode() for s in n.attr["_class"].list.s] if "_class" in n.attr else []]
                 for n in g.as_graph_def().node]
        return {"nodes": nodes, "train": train.name, "chief_init": opt.chief_init_op.name,
                "local_step_init": opt.local_step_init_op.name,
                "ready": opt.ready_for_local_init_op.name,
                "queue_runner": [opt.get_chief_queue_runner().queue.name] +
                [op.name for op in opt.get_chief_queue_runner().enqueue_ops],
                "local": [x.name for x in tf.local_variables()],
                "global": [x.name for x in tf.global_variables()]}
'''
