"""`tf.train.basic_train_loop`: the simplest loop over a Supervisor's managed session."""


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls `train_step_fn(sess, *args, **kwargs)` until the supervisor says stop.

    Args:
      supervisor: a `tf.train.Supervisor`.
      train_step_fn: fn(session, *args, **kwargs) running one step.
      args, kwargs: extra arguments for train_step_fn.
      master: the target of the session.
    """
    args = args or []
    kwargs = kwargs or {}
    with supervisor.managed_session(master) as sess:
        while not supervisor.should_stop():
            train_step_fn(sess, *args, **kwargs)
