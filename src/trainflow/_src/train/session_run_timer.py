"""When periodic hooks fire: every N seconds or every N steps (`SecondOrStepTimer`)."""
import abc
import time


class _HookTimer(abc.ABC):
    """Interface of the timers: whether to fire at a step, and recording that it did."""

    def reset(self):  # noqa: B027 - a hook: does nothing unless a timer has state to forget
        """Forgets the last trigger (nothing by default)."""

    @abc.abstractmethod
    def should_trigger_for_step(self, step):
        """True if the timer should fire at global step `step`."""

    @abc.abstractmethod
    def update_last_triggered_step(self, step):
        """Records a trigger at `step`. Returns (elapsed_secs, elapsed_steps) since the
        previous one, both None the first time."""

    @abc.abstractmethod
    def last_triggered_step(self):
        """The step of the last trigger, or None."""


class SecondOrStepTimer(_HookTimer):
    """Fires at most once every `every_secs` seconds or every `every_steps` steps.

    Raises:
      ValueError: unless exactly one of the two is given.
    """

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if every_secs is None and every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if every_secs is not None and every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and \
                time.time() >= self._last_triggered_time + self._every_secs:
            return True
        return self._every_steps is not None and \
            step >= self._last_triggered_step + self._every_steps

    def update_last_triggered_step(self, step):
        now = time.time()
        if self._last_triggered_time is None:
            elapsed = (None, None)
        else:
            elapsed = (now - self._last_triggered_time, step - self._last_triggered_step)
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(_HookTimer):
    """A timer that never fires."""

    def should_trigger_for_step(self, step):  # noqa: ARG002
        return False

    def update_last_triggered_step(self, step):  # noqa: ARG002
        return (None, None)

    def last_triggered_step(self):
        return None
