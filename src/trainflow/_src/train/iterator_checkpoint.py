"""An input pipeline's position in checkpoints: `tf.data.experimental.
make_saveable_from_iterator` (a SaveableObject for tf.train.Saver) and
`tf.data.experimental.CheckpointInputPipelineHook` (the iterators saved in their own
"input" checkpoints beside the model's), as TF 1.15 has them.

The state goes into the checkpoint as a DT_STRING tensor: SerializeIterator's variant
written out by SerializeTensor, read back by ParseTensor into DeserializeIterator.
"""
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.train import checkpoint_management, iterator_state_ops
from trainflow._src.train.checkpoint_hooks import CheckpointSaverHook
from trainflow._src.train.saveable_object import SaveableObject, SaveSpec
from trainflow._src.train.saver import Saver
from trainflow._src.train.session_run_hook import SessionRunHook

# The collection every tf.data iterator resource is added to (TF's GLOBAL_ITERATORS).
GLOBAL_ITERATORS = "iterators"


class _Saveable(SaveableObject):
    """An iterator resource's position, saved under `<resource name>-state`."""

    def __init__(self, iterator_resource, external_state_policy=0):
        serialized = iterator_state_ops.state_tensor(iterator_resource, external_state_policy)
        specs = [SaveSpec(serialized, "", iterator_resource.name + "-state",
                          device=iterator_resource.device)]
        super().__init__(iterator_resource, specs, iterator_resource.name)

    def restore(self, restored_tensors, restored_shapes):
        del restored_shapes
        return iterator_state_ops.restore_op(
            self.op, restored_tensors[0], iterator_state_ops.feedless_initializer(self.op))


_POLICIES = {None: 0, "warn": 0, "ignore": 1, "fail": 2}


def make_saveable_from_iterator(iterator, external_state_policy=None):
    """A SaveableObject that saves and restores `iterator`'s position with a Saver (add
    it to the SAVEABLE_OBJECTS collection or pass it in `var_list`)."""
    policy = _POLICIES.get(external_state_policy, external_state_policy)
    if not isinstance(policy, int):
        raise ValueError(f"Invalid external_state_policy {external_state_policy!r}")
    return _Saveable(iterator._iterator_resource, policy)


class _CustomSaver(Saver):
    """A Saver whose checkpoint state file is `latest_filename` unless told otherwise."""

    def __init__(self, var_list, latest_filename, sharded=False):
        super().__init__(var_list, sharded=sharded)
        self._latest_filename = latest_filename

    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        return super().save(sess, save_path, global_step,
                            latest_filename or self._latest_filename, meta_graph_suffix,
                            write_meta_graph, write_state, strip_default_attrs,
                            save_debug_info)


def _config_of(estimator):
    config = getattr(estimator, "_config", None)
    return config if config is not None else estimator.config


class CheckpointInputPipelineHook(SessionRunHook):
    """Saves the position of every iterator in the "iterators" collection into
    `input.ckpt-<step>` checkpoints (state file `checkpoint_input`) in the estimator's
    model_dir, every `save_checkpoints_steps` / `_secs` of its config, and restores the
    latest one before the first step, so a restarted trainer reads on from there.

    Args:
      estimator: anything with `model_dir` and a RunConfig-like `config`
        (`save_checkpoints_steps`, `save_checkpoints_secs`, `num_worker_replicas`,
        `task_type`, `task_id`).
      external_state_policy: as `make_saveable_from_iterator`.
    """

    def __init__(self, estimator, external_state_policy=None):
        config = _config_of(estimator)
        checkpoint_prefix = "input"
        if getattr(config, "num_worker_replicas", 1) > 1:
            checkpoint_prefix += f"_{config.task_type}_{config.task_id}"
        self._external_state_policy = external_state_policy
        self._checkpoint_saver_hook = CheckpointSaverHook(
            estimator.model_dir, save_secs=config.save_checkpoints_secs,
            save_steps=config.save_checkpoints_steps,
            checkpoint_basename=checkpoint_prefix + ".ckpt", save_graph_def=False)
        self._latest_filename = "checkpoint_" + checkpoint_prefix
        self._first_run = True

    def begin(self):
        hook = self._checkpoint_saver_hook
        if hook._saver is None and hook._scaffold is None:
            iterators = get_default_graph().get_collection(GLOBAL_ITERATORS)
            saveables = [make_saveable_from_iterator(_Handle(i), self._external_state_policy)
                         for i in iterators]
            hook._saver = _CustomSaver(saveables, self._latest_filename)
        hook.begin()

    def _restore_or_save_initial_ckpt(self, session):
        hook = self._checkpoint_saver_hook
        latest = checkpoint_management.latest_checkpoint(
            hook._checkpoint_dir, latest_filename=self._latest_filename)
        if latest:
            hook._get_saver().restore(session, latest)
        else:
            global_step = int(session.run(hook._global_step_tensor))
            hook._save(session, global_step)
            hook._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        if self._first_run:
            self._restore_or_save_initial_ckpt(run_context.session)
            self._first_run = False
        return self._checkpoint_saver_hook.before_run(run_context)

    def after_run(self, run_context, run_values):
        self._checkpoint_saver_hook.after_run(run_context, run_values)

    def end(self, session):
        self._checkpoint_saver_hook.end(session)


class _Handle:
    """An iterator resource tensor seen as an Iterator (what the saveable reads)."""

    def __init__(self, resource):
        self._iterator_resource = resource

