"""A localhost cluster of `fault_trainer.py` processes (1 ps + N workers) whose tasks a
test kills with SIGKILL and restarts, and the checks the cluster fault tests make:

- training resumes after every restart (the global step passes where it was);
- a restored chief or ps resumes from the newest checkpoint, never an older one: no
  global step a worker reports is below the newest checkpoint written before it (less
  the steps in flight, one per worker), so a kill loses at most the steps of one
  checkpoint interval, those after the last save;
- every checkpoint the state file lists reads back whole;
- every worker exits on its own within its deadline once training is over (a hang is
  counted, then the process is killed).
"""
import os
import random
import signal
import subprocess
import sys
import threading
import time

import fault_trainer
from local_cluster import free_ports
from trainflow._src.train import checkpoint_management as cm
from trainflow._src.train.checkpoint_reader import NewCheckpointReader

_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), PYTHONUNBUFFERED="1")


class Task:
    """One task's process; its "step N" lines go to the cluster's record."""

    def __init__(self, cluster, job, index):
        self.cluster, self.job, self.index = cluster, job, index
        self.proc = None
        self.done = None
        self.steps_since_start = 0
        self.serving = threading.Event()
        self.log = []

    @property
    def name(self):
        return f"{self.job}:{self.index}"

    def start(self):
        self.serving.clear()
        self.done = None
        self.steps_since_start = 0
        self.proc = subprocess.Popen(
            [sys.executable, fault_trainer.__file__, *self.cluster.argv(self.job, self.index)],
            env=_ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc):
        for line in proc.stdout:
            self.log.append(line)
            del self.log[:-200]
            if line.startswith("step "):
                self.steps_since_start += 1
                _, step, began = line.split()
                self.cluster.record(self, int(step), float(began))
            elif line.startswith("done "):
                self.done = line.split()[1]
            elif line.startswith("serving"):
                self.serving.set()

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(30)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


class FaultCluster:
    """1 ps + `workers` fault_trainer tasks on free localhost ports.

    Args:
      directory: the checkpoint directory.
      last_step: the global step at which training stops.
      save_steps: the chief's checkpoint interval in global steps.
      step_sleep: seconds each worker waits between its steps.
    """

    def __init__(self, directory, workers=2, last_step=150, save_steps=10, step_sleep=0.02,
                 seed=0, stop_file=None):
        self.directory = directory
        self.stop_file = stop_file
        self.last_step, self.save_steps, self.step_sleep = last_step, save_steps, step_sleep
        ports = free_ports(1 + workers)
        self.ps_hosts = f"localhost:{ports[0]}"
        self.worker_hosts = ",".join(f"localhost:{p}" for p in ports[1:])
        self.ps = Task(self, "ps", 0)
        self.workers = [Task(self, "worker", i) for i in range(workers)]
        self.rng = random.Random(seed)
        self._lock = threading.Lock()
        self.steps = []          # (time the step began, task name, global step)
        self.kills = []          # (time, "ps" / "chief" / "worker", current global step)
        self.checkpoints = []    # (time, checkpoint step), as the state file named them
        self.figures = {"kills": 0, "resumes": 0, "hangs": 0, "corrupt_checkpoints": 0,
                        "below_checkpoint": 0, "max_step_drop": 0, "checkpoints_read": 0}
        self._watching = True
        threading.Thread(target=self._watch_checkpoints, daemon=True).start()

    def argv(self, job, index):
        return [f"--job_name={job}", f"--task_index={index}", f"--ps_hosts={self.ps_hosts}",
                f"--worker_hosts={self.worker_hosts}", f"--checkpoint_dir={self.directory}",
                f"--last_step={self.last_step}", f"--save_steps={self.save_steps}",
                f"--step_sleep={self.step_sleep}"] + (
                    [f"--stop_file={self.stop_file}"] if self.stop_file else [])

    # -- records -----------------------------------------------------------------------
    def record(self, task, step, began):
        """A step of `task` that began at time `began` (time.time()) read `step`."""
        with self._lock:
            self.steps.append((began, task.name, step))

    def max_step(self):
        with self._lock:
            return max((s for _, _, s in self.steps), default=-1)

    def current_step(self):
        """The global step the latest step read (below max_step() after a restore)."""
        with self._lock:
            return max(self.steps, default=(0, "", -1))[2]

    def _newest_checkpoint_step(self):
        state = cm.get_checkpoint_state(self.directory)
        if state is None or not state.model_checkpoint_path:
            return None
        return int(state.model_checkpoint_path.rsplit("-", 1)[1])

    def _watch_checkpoints(self):
        last = None
        while self._watching:
            try:
                step = self._newest_checkpoint_step()
            except Exception:  # noqa: BLE001 - a state file caught mid-rename: next poll
                step = None
            if step is not None and step != last:
                with self._lock:
                    self.checkpoints.append((time.time(), step))
                last = step
            time.sleep(0.02)

    # -- running -----------------------------------------------------------------------
    def start(self):
        for task in [self.ps, *self.workers]:
            task.start()

    def wait_progress(self, steps, timeout):
        """Waits until the global step has gone `steps` past its current maximum (or
        training ended); returns whether it did within `timeout` seconds."""
        target = min(self.max_step() + steps, self.last_step)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.max_step() >= target or self.finished():
                return True
            time.sleep(0.05)
        return False

    def request_stop(self):
        """Ends training (the workers' stop-file hook) before `last_step`."""
        with open(self.stop_file, "w"):
            pass

    def finished(self):
        return all(w.done is not None for w in self.workers)

    def kill_and_restart(self, task, down_s=0.0, resume_timeout=90):
        """SIGKILLs `task`, restarts it after `down_s` seconds, and waits until the
        global step passes where it was at the kill and, for a worker, the restarted
        worker trains again (a resume). Returns whether it did."""
        before = self.max_step()
        self.kills.append((time.time(), self._kind(task), self.current_step()))
        task.kill()
        self.figures["kills"] += 1
        self.check_checkpoints()
        time.sleep(down_s)
        task.start()
        deadline = time.monotonic() + resume_timeout
        while time.monotonic() < deadline:
            back = task.job == "ps" or task.steps_since_start > 0
            if (back and self.max_step() > before + 1) or self.finished():
                self.figures["resumes"] += 1
                return True
            time.sleep(0.05)
        return False

    @staticmethod
    def _kind(task):
        return "ps" if task.job == "ps" else "chief" if task.index == 0 else "worker"

    def random_task(self):
        return self.rng.choice([self.ps, *self.workers])

    def finish(self, deadline_s=120):
        """Waits for every worker to end training and exit (a hang past `deadline_s` is
        counted, and the process killed); stops the ps. Returns the workers' exit codes."""
        deadline = time.monotonic() + deadline_s
        codes = []
        for w in self.workers:
            try:
                codes.append(w.proc.wait(max(0.1, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                self.figures["hangs"] += 1
                w.kill()
                codes.append(None)
        self.ps.kill()
        self._watching = False
        self.check_checkpoints()
        self.analyse()
        return codes

    def close(self):
        self._watching = False
        for task in [self.ps, *self.workers]:
            if task.alive():
                task.kill()

    # -- checks ------------------------------------------------------------------------
    def check_checkpoints(self):
        """Reads every checkpoint the state file lists; counts those that fail."""
        state = cm.get_checkpoint_state(self.directory)
        if state is None:
            return
        for path in state.all_model_checkpoint_paths:
            try:
                reader = NewCheckpointReader(path)
                for name in reader.get_variable_to_shape_map():
                    reader.get_tensor(name)
                self.figures["checkpoints_read"] += 1
            except Exception:  # noqa: BLE001 - any failure is a corrupt checkpoint
                self.figures["corrupt_checkpoints"] += 1

    def analyse(self):
        """Counts reported steps below the newest checkpoint written before they began
        (less one in-flight step per worker), and the largest drop below the running
        maximum."""
        slack = len(self.workers)
        with self._lock:
            steps, ckpts = sorted(self.steps), list(self.checkpoints)
        newest, i, running_max = -1, 0, -1
        for t, _name, step in steps:
            while i < len(ckpts) and ckpts[i][0] <= t:
                newest = max(newest, ckpts[i][1])
                i += 1
            if step < newest - slack:
                self.figures["below_checkpoint"] += 1
            self.figures["max_step_drop"] = max(self.figures["max_step_drop"],
                                                running_max - step)
            running_max = max(running_max, step)
        # The global step lost to each kill: how far below its value at the kill the
        # steps reported before the next kill went, the largest per kind of task killed.
        drops = {}
        bounds = [t for t, _, _ in self.kills[1:]] + [float("inf")]
        for (t0, kind, before), t1 in zip(self.kills, bounds):
            after = [s for t, _, s in steps if t0 <= t < t1]
            lost = max(0, before - min(after)) if after else 0
            drops[kind] = max(drops.get(kind, 0), lost)
        self.figures["max_step_drop_by_killed"] = drops

    def logs(self):
        return {t.name: "".join(t.log[-30:]) for t in [self.ps, *self.workers]}
