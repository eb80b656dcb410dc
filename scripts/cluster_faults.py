"""The long form of tests/reliability/test_cluster_faults.py (issue 25): a localhost
cluster (1 ps + 2 workers, MonitoredTrainingSession, a checkpoint every --save_steps
global steps) in which a random task (a worker, the chief or the ps) is killed with
SIGKILL at a random point and restarted, --kills times; then training is stopped and
every worker must exit on its own.

    PYTHONPATH=src python scripts/cluster_faults.py [--kills 24] [--seed 0] [--json out]

Prints the figures: kills, resumes, hangs (processes past their deadline), corrupt
checkpoints, reported global steps below the newest checkpoint, the largest drop of the
global step, and the time taken. Exit status 0 when kills == resumes and hangs,
corrupt checkpoints and steps below the newest checkpoint are all 0.
"""
import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "helpers"))

from fault_cluster import FaultCluster  # noqa: E402 - needs the helpers folder on sys.path


def run(kills, seed, save_steps=10, exit_deadline_s=120):
    directory = tempfile.mkdtemp(prefix="cluster_faults_")
    cluster = FaultCluster(directory, workers=2, last_step=10 ** 9, save_steps=save_steps,
                           step_sleep=0.02, seed=seed,
                           stop_file=os.path.join(directory, "STOP"))
    start = time.monotonic()
    by_task = {}
    try:
        cluster.start()
        if not cluster.wait_progress(5, timeout=120):
            raise RuntimeError(f"the cluster did not start training: {cluster.logs()}")
        for i in range(kills):
            if not cluster.wait_progress(cluster.rng.randint(1, 4 * save_steps), timeout=120):
                cluster.figures["hangs"] += 1
                print(f"kill {i}: no progress before it", flush=True)
            task = cluster.random_task()
            down = cluster.rng.choice([0.0, 0.0, 0.5, 2.0])
            at = cluster.max_step()
            resumed = cluster.kill_and_restart(task, down_s=down)
            by_task[task.name] = by_task.get(task.name, 0) + 1
            print(f"kill {i + 1}/{kills}: {task.name} at global step {at}, down {down:g} s,"
                  f" {'resumed' if resumed else 'DID NOT RESUME'} (now {cluster.max_step()})",
                  flush=True)
        cluster.wait_progress(save_steps, timeout=60)
        cluster.request_stop()
        codes = cluster.finish(deadline_s=exit_deadline_s)
        for task, code in zip(cluster.workers, codes):
            if code != 0:
                print(f"--- {task.name} exited with {code}:\n{cluster.logs()[task.name]}",
                      flush=True)
    finally:
        cluster.close()
    figures = dict(cluster.figures, kills_by_task=by_task, worker_exit_codes=codes,
                   final_global_step=cluster.max_step(),
                   seconds=round(time.monotonic() - start, 1))
    return figures


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=24)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save_steps", type=int, default=10)
    p.add_argument("--json", default=None, help="also write the figures to this file")
    args = p.parse_args(argv)
    figures = run(args.kills, args.seed, args.save_steps)
    print(json.dumps(figures, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    ok = (figures["kills"] == figures["resumes"] and figures["hangs"] == 0
          and figures["corrupt_checkpoints"] == 0 and figures["below_checkpoint"] == 0
          and figures["worker_exit_codes"] == [0, 0])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
