"""`trainflow cluster --ps N --workers M -- COMMAND ...`: a localhost cluster, one
process per task.

Every task runs COMMAND with the flags classic TF1 trainers read (`--job_name`,
`--task_index`, `--ps_hosts`, `--worker_hosts`) appended and with `TF_CONFIG` set; each
line a task prints is streamed with a `[job:index]` prefix. When every worker has
exited the ps tasks (which usually `server.join()` forever) are stopped. The exit
status is the first failing worker's, 0 when all succeed, 124 on --timeout.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

_STOP_GRACE_S = 5.0


def add_arguments(parser):
    """Declares the subcommand's arguments on `parser`."""
    parser.add_argument("--ps", type=int, default=1, help="number of ps tasks (default 1)")
    parser.add_argument("--workers", type=int, default=2,
                        help="number of worker tasks (default 2)")
    parser.add_argument("--host", default="localhost",
                        help="the address every task binds (default localhost)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="stop every task after this many seconds (exit status 124)")
    parser.add_argument("task_command", metavar="COMMAND", nargs=argparse.REMAINDER,
                        help="the program every task runs, after `--`")


def free_ports(n, host="localhost"):
    """`n` ports free on `host` now."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind((host, 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def cluster_spec(ps, workers, host="localhost"):
    """{"ps": [...], "worker": [...]} on free ports of `host`."""
    ports = free_ports(ps + workers, host)
    spec = {"worker": [f"{host}:{p}" for p in ports[ps:]]}
    if ps:
        spec = {"ps": [f"{host}:{p}" for p in ports[:ps]], **spec}
    return spec


def task_argv(command, spec, job, index):
    """COMMAND with the TF1 trainer flags of task (job, index) appended."""
    return list(command) + [f"--job_name={job}", f"--task_index={index}",
                            f"--ps_hosts={','.join(spec.get('ps', []))}",
                            f"--worker_hosts={','.join(spec['worker'])}"]


def task_env(spec, job, index, base=None):
    env = dict(os.environ if base is None else base)
    env["TF_CONFIG"] = json.dumps({"cluster": spec, "task": {"type": job, "index": index}})
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _stream(proc, prefix, out, lock):
    for line in proc.stdout:
        with lock:
            out.write(f"{prefix} {line}" if line.endswith("\n") else f"{prefix} {line}\n")
            out.flush()


def _stop(proc):
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(_STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(_STOP_GRACE_S)


def run_cluster(command, ps=1, workers=2, host="localhost", timeout=None, out=None):
    """Runs the cluster until its workers exit; returns the exit status."""
    out = out or sys.stdout
    spec = cluster_spec(ps, workers, host)
    lock = threading.Lock()
    tasks, streams = [], []
    with lock:
        out.write(f"[cluster] {json.dumps(spec)}\n")
    try:
        for job in ("ps", "worker"):
            for i in range(len(spec.get(job, []))):
                proc = subprocess.Popen(task_argv(command, spec, job, i),
                                        env=task_env(spec, job, i), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, bufsize=1)
                tasks.append((job, i, proc))
                t = threading.Thread(target=_stream, args=(proc, f"[{job}:{i}]", out, lock),
                                     daemon=True)
                t.start()
                streams.append(t)
        deadline = None if timeout is None else time.monotonic() + timeout
        status = 0
        for job, _i, proc in tasks:
            if job != "worker":
                continue
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                code = proc.wait(wait)
            except subprocess.TimeoutExpired:
                with lock:
                    out.write(f"[cluster] timed out after {timeout:g} s\n")
                return 124
            if code and not status:
                status = code
        return status
    finally:
        for _, _, proc in reversed(tasks):
            _stop(proc)
        for t in streams:
            t.join(_STOP_GRACE_S)


def run(args):
    """Runs the subcommand; returns its exit status."""
    command = list(args.task_command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print("trainflow cluster: give the command to run after `--`", file=sys.stderr)
        return 2
    if args.workers < 1 or args.ps < 0:
        print("trainflow cluster: need --workers >= 1 and --ps >= 0", file=sys.stderr)
        return 2
    return run_cluster(command, args.ps, args.workers, args.host, args.timeout)
