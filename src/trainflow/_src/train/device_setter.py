"""`tf.train.replica_device_setter`: places variables on parameter-server tasks (round
robin by default) and every other op on the worker, for between-graph replication."""
from trainflow._src import tf_logging as logging
from trainflow._src.framework.device_spec import DeviceSpec
from trainflow._src.protos.cluster_pb2 import ClusterDef
from trainflow._src.train.cluster_spec import ClusterSpec

# The op types that hold state and so belong on a parameter server (TF's list).
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable",
                   "MutableHashTableV2", "MutableHashTableOfTensors",
                   "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp",
                   "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp",
                   "ResourceConditionalAccumulator", "DecisionTree", "TreeEnsembleVariable")


class _RoundRobinStrategy:
    """Gives ps ops to the ps tasks in turn."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self.reset()

    def reset(self):
        """Starts again from task 0."""
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                 ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """The device string for `op` (an Operation or NodeDef)."""
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        op_type = op.op if hasattr(op, "attr") else op.type
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            # Only pick a task when the op's own job, if any, is the ps job.
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for `tf.device()` that puts variables (and the other `ps_ops`) on
    the ps tasks and everything else on `worker_device`.

    Args:
      ps_tasks: the number of ps tasks (ignored when `cluster` is given).
      ps_device: the ps job's device string.
      worker_device: the device of the other ops.
      merge_devices: merge with devices the ops already have (else keep those).
      cluster: a ClusterSpec, ClusterDef or dict giving the ps tasks.
      ps_ops: the op types placed on ps tasks (default: STANDARD_PS_OPS).
      ps_strategy: fn(op) -> ps task index (default: round robin).

    Returns:
      the device function, or None when there are no ps tasks.

    Raises:
      TypeError: if cluster or ps_strategy has the wrong type.
    """
    if cluster is not None:
        if not isinstance(cluster, (dict, ClusterDef, ClusterSpec)):
            raise TypeError("cluster must be a dictionary or ClusterSpec proto, or a "
                            "ClusterSpec")
        cluster_spec = ClusterSpec(cluster).as_dict()
        ps_job_name = DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec or cluster_spec[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_spec[ps_job_name])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        logging.warning("DEPRECATION NOTE: replica_device_setter(merge_devices=False) keeps "
                        "the devices ops already have; merging is the supported behaviour.")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                 ps_strategy).device_function
