"""Where the master puts each op: the task its device string names (partial specs
completed from the master's own task, as TensorFlow's placer does), with colocation
groups and ref-consuming ops following the op they are tied to. Every task offers one
CPU device; any device type or index requested lands on it (soft placement)."""
from trainflow._src.framework import errors
from trainflow._src.framework.device_spec import DeviceSpec


def task_name(job, task):
    """The canonical task prefix, e.g. /job:ps/replica:0/task:0."""
    return f"/job:{job}/replica:0/task:{task}"


def cpu_device(task):
    """The one device of a task: <task>/device:CPU:0."""
    return f"{task}/device:CPU:0"


def task_of_device(device):
    """(job, task index) of a fully qualified device or task name."""
    spec = DeviceSpec.from_string(device)
    return spec.job, spec.task or 0


class Placer:
    """Assigns ops of one graph to tasks of a cluster.

    Args:
      cluster: a ClusterSpec.
      default_job, default_task: the master's own task; ops that name no job go there.
      allow_soft_placement: place an op that names a job/task the cluster lacks on the
        master's task instead of failing (ConfigProto.allow_soft_placement).
    """

    def __init__(self, cluster, default_job, default_task, allow_soft_placement=False):
        self._cluster = cluster
        self._default = (default_job, default_task)
        self._soft = allow_soft_placement
        self._cache = {}

    def _requested(self, op):
        spec = DeviceSpec.from_string(op.device) if op.device else DeviceSpec()
        job = spec.job if spec.job is not None else self._default[0]
        if spec.task is not None:
            task = spec.task
        elif spec.job is None or spec.job == self._default[0]:
            task = self._default[1] if job == self._default[0] else 0
        else:
            task = 0
        if job not in self._cluster.jobs or task not in self._cluster.task_indices(job):
            if self._soft:
                return task_name(*self._default)
            available = ", ".join(
                cpu_device(task_name(j, t)) for j in self._cluster.jobs
                for t in self._cluster.task_indices(j))
            raise errors.InvalidArgumentError(
                None, op, f"Cannot assign a device for operation {op.name}: {{{{node "
                f"{op.name}}}}} was explicitly assigned to {op.device} but available "
                f"devices are [ {available} ]. Make sure the device specification refers to "
                "a valid device.")
        return task_name(job, task)

    def place(self, op):
        """The task name `op` runs on."""
        got = self._cache.get(op)
        if got is not None:
            return got
        # Follow colocation and ref edges iteratively (chains like v/read -> v).
        chain = []
        cur = op
        while cur is not None and cur not in self._cache and cur not in chain:
            chain.append(cur)
            cur = self._anchor(cur)
        if cur is not None and cur in self._cache:
            task = self._cache[cur]
        else:
            task = self._requested(chain[-1])
        for o in chain:
            self._cache[o] = task
        return task

    @staticmethod
    def _anchor(op):
        """The op `op` must share a task with, or None."""
        graph = op._graph
        for group in op.colocation_groups():
            name = group.decode()[len("loc:@"):]
            if name != op.name:
                try:
                    return graph.get_operation_by_name(name)
                except (KeyError, ValueError):
                    continue
        for t in op._inputs:
            # Ref and resource inputs (variables, queues, accumulators) pin the consumer to
            # the task that holds the state, as TensorFlow's placer does.
            if t._dtype._is_ref_dtype or t._dtype.base_dtype.name == "resource":
                return t._op
        return None
