"""`tf.train.SyncReplicasOptimizer`: synchronous data-parallel training across replicas.

Each replica pushes its gradients into one accumulator per variable (on the variable's
device) instead of applying them; the chief's queue runner takes the average of
`replicas_to_aggregate` gradients from each accumulator, applies it with the wrapped
optimizer (incrementing the global step), then puts one token per replica carrying the new
global step into the `sync_token_q` queue. A replica's train op waits for such a token and
records it as its local step; an accumulator drops gradients whose local step is older
than its own global step (stale gradients).
"""
from trainflow._src import tf_logging as logging
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.scopes import (
    colocate_with, control_dependencies, device, name_scope)
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.grouping import group, no_op
from trainflow._src.ops.data_flow.accumulators import (
    ConditionalAccumulator, SparseConditionalAccumulator)
from trainflow._src.ops.data_flow.queues import FIFOQueue
from trainflow._src.ops.state import state_ops
from trainflow._src.ops.state.variable_helpers import (
    global_variables, report_uninitialized_variables)
from trainflow._src.ops.state.variables import VariableV1
from trainflow._src.train import session_manager
from trainflow._src.train.optimizer import Optimizer
from trainflow._src.train.queue_runner_impl import QueueRunner
from trainflow._src.train.session_run_hook import SessionRunHook


class SyncReplicasOptimizer(Optimizer):
    """Aggregates the gradients of several replicas, then applies them in one update.

    Args:
      opt: the optimizer that computes and applies the gradients.
      replicas_to_aggregate: gradients averaged for each variable update.
      total_num_replicas: replicas running (default `replicas_to_aggregate`); more than
        `replicas_to_aggregate` gives backup replicas, fewer makes replicas compute several
        batches per update.
      variable_averages: an `ExponentialMovingAverage` the chief applies to
        `variables_to_average` after each update.
      variables_to_average: the variables `variable_averages` maintains.
      use_locking: use locks for the update operations.
      name: the name scope of the accumulator ops.
    """

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None,
                 variable_averages=None, variables_to_average=None, use_locking=False,
                 name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        logging.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                     replicas_to_aggregate, total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        # (accumulator, device) pairs; the chief sets each one's global step at start.
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's `compute_gradients` (gradients are aggregated in
        `apply_gradients`, so per-replica processing such as clipping stays possible)."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Builds the accumulators, the token queue and the chief's update.

        Args:
          grads_and_vars: (gradient, variable) pairs from `compute_gradients`.
          global_step: the global step variable (required: staleness is measured by it).
          name: unused, as in TensorFlow.

        Returns:
          The replica's train op: it applies the gradients to the accumulators, waits for
          a token and stores it as the local step.

        Raises:
          ValueError: if `grads_and_vars` is empty, `global_step` is None or a gradient is
            neither a Tensor nor IndexedSlices.
        """
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops, aggregated_grad, var_list = [], [], []

        # The local step is colocated with an op of this replica, so a device function
        # such as replica_device_setter doesn't put it on a ps task.
        local_anchor = no_op()
        with colocate_with(local_anchor):
            self._local_step = VariableV1(
                initial_value=0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(global_variables())

        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)
                        continue
                    if isinstance(grad, Tensor):
                        accum = ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(),
                            shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_grad(self._replicas_to_aggregate))
                    else:
                        if not isinstance(grad, IndexedSlices):
                            raise ValueError("Unknown grad type!")
                        accum = SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_indexed_slices_grad(
                            grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_indexed_slices_grad(
                            self._replicas_to_aggregate))
                    self._accumulator_list.append((accum, var.device))

            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(
                    list(zip(aggregated_grad, var_list)), global_step)
                self._sync_token_queue = FIFOQueue(
                    -1, global_step.dtype.base_dtype, shapes=(), name="sync_token_q",
                    shared_name="sync_token_q")
                # A replica leaves its step once it holds a token.
                with control_dependencies(train_ops):
                    token = self._sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)
                with control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = self._sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = QueueRunner(self._sync_token_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(
                        accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The QueueRunner the chief runs: aggregate, apply, increment the global step and
        enqueue tokens.

        Raises:
          ValueError: if called before `apply_gradients`.
        """
        if self._gradients_applied is False:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's `get_slot`."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables (not the local step)."""
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's `get_slot_names`."""
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """An op putting `num_tokens` tokens (default `replicas_to_aggregate`) into the
        token queue, for the chief to run once at start.

        Raises:
          ValueError: if called before `apply_gradients`, or if `num_tokens` is below
            `replicas_to_aggregate - total_num_replicas`.
        """
        if self._gradients_applied is False:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError("Too few tokens to finish the first step: %d (given) vs %d "
                             "(needed)" % (num_tokens, tokens_needed))
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = array_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A hook that runs the local init (and, on the chief, the init tokens and the chief
        queue runner) when a monitored session is created."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Runs a SyncReplicasOptimizer's initialization in a monitored session."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if opt._gradients_applied is False:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before "
                             "using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        """Runs the local init, the init tokens and starts the chief's queue runner."""
        ready, msg = session_manager._ready(
            self._ready_for_local_init_op, session,
            "Model is not ready for SyncReplicasOptimizer local init.")
        if not ready:
            raise RuntimeError("Init operations did not make model ready for "
                               "SyncReplicasOptimizer local_init. Init op: %s, error: %s"
                               % (self._local_init_op.name, msg))
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
