"""`tf.train.MonitoredTrainingSession`: a MonitoredSession set up for training, with the
chief's checkpoint, summary and step-counter hooks."""
from trainflow._src.train.checkpoint_hooks import CheckpointSaverHook
from trainflow._src.train.monitored_session import MonitoredSession
from trainflow._src.train.scaffold import Scaffold
from trainflow._src.train.session_creators import ChiefSessionCreator, WorkerSessionCreator
from trainflow._src.train.summary_hooks import StepCounterHook, SummarySaverHook

USE_DEFAULT = object()


def _resolve_pair(steps, secs, default_steps, default_secs):
    """TF's rule for a (steps, secs) pair whose members may be USE_DEFAULT."""
    if steps is USE_DEFAULT and secs is USE_DEFAULT:
        return default_steps, default_secs
    if secs is USE_DEFAULT:
        return steps, None
    if steps is USE_DEFAULT:
        return None, secs
    return steps, secs


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None,  # noqa: N802
                             scaffold=None, hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None, save_graph_def=True):
    """A MonitoredSession for training.

    On the chief it restores from (or initializes and then saves to) `checkpoint_dir`,
    saving every 600 s unless told otherwise, writes summaries every 100 steps and
    `global_step/sec` every `log_step_count_steps` steps to `summary_dir` (default:
    checkpoint_dir); the other workers wait for the chief to initialize the model.

    Args:
      master: the target of the session.
      is_chief: whether this task initializes, restores and saves.
      checkpoint_dir: where checkpoints are restored from and saved to.
      scaffold: a Scaffold (default: a new one).
      hooks: hooks for every task; chief_only_hooks: hooks only for the chief.
      save_checkpoint_secs / save_checkpoint_steps: the checkpoint period (None or 0:
        no periodic checkpoints).
      save_summaries_steps / save_summaries_secs: the summary period.
      config: a ConfigProto for the session.
      stop_grace_period_secs: how long close() waits for queue threads.
      log_step_count_steps: period of the step counter (None or 0: none).
      max_wait_secs: how long a worker waits for the chief.
      summary_dir: where summaries go.
      save_graph_def: write the graph and meta graph with the checkpoints.

    Returns:
      a MonitoredSession.
    """
    save_summaries_steps, save_summaries_secs = _resolve_pair(
        save_summaries_steps, save_summaries_secs, 100, None)
    save_checkpoint_steps, save_checkpoint_secs = _resolve_pair(
        save_checkpoint_steps, save_checkpoint_secs, None, 600)
    scaffold = scaffold or Scaffold()
    if not is_chief:
        session_creator = WorkerSessionCreator(scaffold=scaffold, master=master,
                                               config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=session_creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks = list(chief_only_hooks or [])
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                          master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(StepCounterHook(output_dir=summary_dir,
                                             every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or \
                (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                              save_secs=save_summaries_secs,
                                              output_dir=summary_dir))
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0) or
                           (save_checkpoint_steps and save_checkpoint_steps > 0)):
        all_hooks.append(CheckpointSaverHook(checkpoint_dir, save_steps=save_checkpoint_steps,
                                             save_secs=save_checkpoint_secs, scaffold=scaffold,
                                             save_graph_def=save_graph_def))
    if hooks:
        all_hooks.extend(hooks)
    return MonitoredSession(session_creator=session_creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)
