"""`tf.train.ClusterSpec`: the jobs of a cluster and the network address of each task."""
from trainflow._src.protos.cluster_pb2 import ClusterDef


def _as_text(value, what):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise TypeError(f"{what} must be bytes or unicode: {value!r}")


class ClusterSpec:
    """The cluster of a distributed TF program: job name -> task index -> address.

    Args:
      cluster: a dict mapping each job name to a list of addresses (task i is the i-th)
        or to a dict {task index: address}; a ClusterDef proto; or another ClusterSpec.

    Raises:
      TypeError: for any other value, or a job whose tasks are not a list or dict.
      ValueError: for a task index that is not a non-negative integer.
    """

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._cluster_spec = {}
            for job_name, tasks in cluster.items():
                job_name = _as_text(job_name, "Job name")
                if isinstance(tasks, (list, tuple)):
                    job_tasks = {i: _as_text(t, "Task address") for i, t in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    job_tasks = {}
                    for i, t in tasks.items():
                        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                            raise ValueError(f"Task index {i!r} of job {job_name!r} must be a "
                                             "non-negative integer")
                        job_tasks[i] = _as_text(t, "Task address")
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a "
                                    f"dictionary from integers to strings.")
                self._cluster_spec[job_name] = job_tasks
        elif isinstance(cluster, ClusterDef):
            self._cluster_spec = {}
            for job in cluster.job:
                if job.name in self._cluster_spec:
                    raise ValueError(f"Duplicate job name in cluster_def: {job.name!r}")
                self._cluster_spec[job.name] = dict(job.tasks)
        elif isinstance(cluster, ClusterSpec):
            self._cluster_spec = {job: dict(tasks)
                                  for job, tasks in cluster._cluster_spec.items()}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to "
                            "lists of network addresses, or a `ClusterDef` protocol buffer")
        self._cluster_def = None

    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._cluster_spec == other._cluster_spec

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __str__(self):
        parts = [f"{job!r}: {self._job_repr(job)}" for job in sorted(self._cluster_spec)]
        return "ClusterSpec({" + ", ".join(parts) + "})"

    __repr__ = __str__

    def _job_repr(self, job):
        tasks = self._cluster_spec[job]
        if sorted(tasks) == list(range(len(tasks))):
            return repr([tasks[i] for i in range(len(tasks))])
        return "{" + ", ".join(f"{i}: {tasks[i]!r}" for i in sorted(tasks)) + "}"

    def as_dict(self):
        """{job: list of addresses} where a job's indices are 0..n-1, else {index: address}."""
        out = {}
        for job, tasks in self._cluster_spec.items():
            if sorted(tasks) == list(range(len(tasks))):
                out[job] = [tasks[i] for i in range(len(tasks))]
            else:
                out[job] = dict(tasks)
        return out

    def as_cluster_def(self):
        """The ClusterDef proto (jobs sorted by name)."""
        if self._cluster_def is None:
            cluster_def = ClusterDef()
            for job in sorted(self._cluster_spec):
                job_def = cluster_def.job.add(name=job)
                for i, address in sorted(self._cluster_spec[job].items()):
                    job_def.tasks[i] = address
            self._cluster_def = cluster_def
        return self._cluster_def

    @property
    def jobs(self):
        """The job names, sorted."""
        return sorted(self._cluster_spec)

    def _tasks(self, job_name):
        tasks = self._cluster_spec.get(job_name)
        if tasks is None:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return tasks

    def num_tasks(self, job_name):
        """How many tasks `job_name` has.

        Raises:
          ValueError: if there is no such job.
        """
        return len(self._tasks(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of `job_name`."""
        return sorted(self._tasks(job_name))

    def task_address(self, job_name, task_index):
        """The address of task `task_index` of `job_name`.

        Raises:
          ValueError: if the job or the task does not exist.
        """
        tasks = self._tasks(job_name)
        if task_index not in tasks:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}")
        return tasks[task_index]

    def job_tasks(self, job_name):
        """The addresses of `job_name` by index, None where an index has no task."""
        tasks = self._tasks(job_name)
        if not tasks:
            return []
        return [tasks.get(i) for i in range(max(tasks) + 1)]
