"""A between-graph trainer in the shape of TF's dist_test `mnist_replica.py` (Supervisor,
optional SyncReplicasOptimizer with the chief's queue runner and token init, a softmax
network with one hidden layer on the bundled 8x8 digits), run as every task of a
localhost cluster: `python replica_trainer.py --job_name=worker --task_index=0
--ps_hosts=... --worker_hosts=... [--sync_replicas] [--done_queue]`.

Like mnist_replica it never stops its Supervisor or closes its session: its process must
exit on its own when main returns. With --done_queue the ps tasks end too: each worker
enqueues a token into every ps's `SERVER_DONE_QUEUE` when it is done, and the chief,
once every worker's token is in, closes those queues, which ends each ps's
`server.join()`.
"""
import argparse
import tempfile

import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.datasets import load_digits
from trainflow._src.distributed.server_lib import SERVER_DONE_QUEUE

PIXELS = 64


def _args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--job_name", required=True)
    p.add_argument("--task_index", type=int, required=True)
    p.add_argument("--ps_hosts", required=True)
    p.add_argument("--worker_hosts", required=True)
    p.add_argument("--train_steps", type=int, default=30)
    p.add_argument("--batch_size", type=int, default=50)
    p.add_argument("--sync_replicas", action="store_true")
    p.add_argument("--done_queue", action="store_true")
    return p.parse_args(argv)


def _done_queues(num_ps, num_workers):
    queues = []
    for i in range(num_ps):
        with tf.device(f"/job:ps/task:{i}"):
            queues.append(tf.FIFOQueue(num_workers, tf.int32, shapes=[[]],
                                       shared_name=SERVER_DONE_QUEUE, name=f"done_queue{i}"))
    return queues


def _model(args, cluster, num_workers, is_chief):
    worker_device = f"/job:worker/task:{args.task_index}/cpu:0"
    with tf.device(tf.train.replica_device_setter(worker_device=worker_device,
                                                  ps_device="/job:ps/cpu:0", cluster=cluster)):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        hid_w = tf.Variable(tf.truncated_normal([PIXELS, 32], stddev=1.0 / 8), name="hid_w")
        hid_b = tf.Variable(tf.zeros([32]), name="hid_b")
        sm_w = tf.Variable(tf.truncated_normal([32, 10], stddev=0.2), name="sm_w")
        sm_b = tf.Variable(tf.zeros([10]), name="sm_b")
        x = tf.placeholder(tf.float32, [None, PIXELS])
        y_ = tf.placeholder(tf.float32, [None, 10])
        hid = tf.nn.relu(tf.nn.xw_plus_b(x, hid_w, hid_b))
        y = tf.nn.softmax(tf.nn.xw_plus_b(hid, sm_w, sm_b))
        xent = -tf.reduce_sum(y_ * tf.log(tf.clip_by_value(y, 1e-10, 1.0)))
        opt = tf.train.AdamOptimizer(0.01)
        if args.sync_replicas:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=num_workers,
                                                 total_num_replicas=num_workers,
                                                 name="replica_sync")
        train_step = opt.minimize(xent, global_step=global_step)
    return opt, x, y_, xent, train_step, global_step


def main(argv=None):
    args = _args(argv)
    ps_hosts, worker_hosts = args.ps_hosts.split(","), args.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_index)
    if args.job_name == "ps":
        server.join()
        print("ps done", flush=True)
        return
    num_workers = len(worker_hosts)
    is_chief = args.task_index == 0
    opt, x, y_, xent, train_step, global_step = _model(args, cluster, num_workers, is_chief)
    done = _done_queues(len(ps_hosts), num_workers) if args.done_queue else []
    done_ops = [(q.enqueue(args.task_index), q.dequeue_many(num_workers), q.close())
                for q in done]
    kw = {}
    if args.sync_replicas:
        kw = {"local_init_op": opt.chief_init_op if is_chief else opt.local_step_init_op,
              "ready_for_local_init_op": opt.ready_for_local_init_op}
        chief_queue_runner = opt.get_chief_queue_runner()
        sync_init_op = opt.get_init_tokens_op()
    sv = tf.train.Supervisor(is_chief=is_chief, logdir=tempfile.mkdtemp(),
                             init_op=tf.global_variables_initializer(), recovery_wait_secs=1,
                             global_step=global_step, **kw)
    config = tf.ConfigProto(allow_soft_placement=True, device_filters=[
        "/job:ps", f"/job:worker/task:{args.task_index}"])
    sess = sv.prepare_or_wait_for_session(server.target, config=config)
    if args.sync_replicas and is_chief:
        sess.run(sync_init_op)
        sv.start_queue_runners(sess, [chief_queue_runner])
    images, labels = load_digits()
    images /= 16.0
    onehot = np.eye(10, dtype=np.float32)[labels]
    start, step = 0, 0
    # With sync replicas a worker may wait for a token that never comes once the others
    # have stopped (TF's as well): its last step gives up after a while.
    options = tf.RunOptions(timeout_in_ms=15000)
    while step < args.train_steps:
        idx = np.arange(start, start + args.batch_size) % 1500
        start += args.batch_size
        try:
            _, step = sess.run([train_step, global_step], {x: images[idx], y_: onehot[idx]},
                               options=options)
        except tf.errors.DeadlineExceededError:
            if not args.sync_replicas:
                raise
            step = sess.run(global_step)
            print(f"worker {args.task_index}: no sync token after global step {step}")
            break
    val = sess.run(xent, {x: images[1500:], y_: onehot[1500:]})
    print(f"worker {args.task_index} done: global step {step}, validation cross entropy "
          f"{val:g}", flush=True)
    for enqueue, _, _ in done_ops:
        sess.run(enqueue)
    if is_chief:
        for _, take_all, close in done_ops:
            sess.run(take_all)
            sess.run(close)


if __name__ == "__main__":
    main()
