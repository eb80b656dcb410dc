"""`tf.train.Coordinator` and `tf.train.LooperThread`: stopping a set of threads
together and reporting the first exception that stopped them."""
__all__ = ["Coordinator", "LooperThread"]

import contextlib
import sys
import threading
import time
import traceback

from trainflow._src import tf_logging as logging
from trainflow._src.framework import errors


class Coordinator:
    """Coordinates the termination of a set of threads.

    Threads poll `should_stop()`; any of them (or the main thread) calls
    `request_stop()`, optionally with the exception that caused it; `join()` waits
    for all of them and re-raises that exception.

    Args:
      clean_stop_exception_types: exception types that request a stop without being
        reported (default: `tf.errors.OutOfRangeError`).
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        """None for clean-stop exceptions, else `ex`."""
        ex2 = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Requests that the threads stop; `ex` (an exception or an exc_info tuple) is
        reported by `join()` unless an earlier one was.

        Raises:
          ValueError: if `ex` is neither an exception nor an exc_info tuple.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                # Stop requests after join() raise their exception right away.
                if isinstance(ex, tuple):
                    raise ex[1].with_traceback(ex[2])
                if ex is not None:
                    info = sys.exc_info()
                    if info[1] is ex:
                        raise ex.with_traceback(info[2])
                    raise ex
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        logging.info("Error reported to Coordinator: %s", str(ex[1]))
                        self._exc_info_to_raise = ex
                    else:
                        logging.info("Error reported to Coordinator: %s, %s", type(ex), str(ex))
                        self._exc_info_to_raise = self._exc_info_of(ex)
                    if (len(self._exc_info_to_raise) != 3 or not self._exc_info_to_raise[0]
                            or not self._exc_info_to_raise[1]):
                        self._exc_info_to_raise = None
                        raise ValueError(f"ex must be a tuple or sys.exc_info, got: {ex}")
                self._stop_event.set()

    @staticmethod
    def _exc_info_of(ex):
        if not isinstance(ex, BaseException):
            return (None, None, None)
        info = sys.exc_info()
        if info[1] is ex:
            return info
        return (type(ex), ex, ex.__traceback__)

    def clear_stop(self):
        """Clears the stop flag and any reported exception (the coordinator is reusable)."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Context manager: an exception raised in its body requests a stop (and is
        swallowed; `join()` re-raises it)."""
        try:
            yield
        except:  # noqa: E722 - every exception stops the threads, as in TF
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested; returns True if one was, False on timeout."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Adds `thread` to the threads that `join()` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the registered threads and `threads` to end.

        After a stop request the threads get `stop_grace_period_secs` to end.

        Raises:
          the exception passed to request_stop(), if any;
          RuntimeError: if threads are still alive after the grace period (unless
            `ignore_live_threads`).
        """
        stop_grace_period_secs_initial = stop_grace_period_secs
        with self._lock:
            threads = set(self._registered_threads) | set(threads or ())
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = max(min(2 * stop_wait_secs, stop_grace_period_secs), 0.001)
        alive = [t for t in threads if t.is_alive()]
        log_stragglers(alive, stop_grace_period_secs_initial)
        stragglers = [t.name for t in alive]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex, tb = self._exc_info_to_raise
                raise ex.with_traceback(tb)
        if stragglers:
            if ignore_live_threads:
                logging.info("Coordinator stopped with threads still running: %s",
                             " ".join(stragglers))
            else:
                raise RuntimeError("Coordinator stopped with threads still running: "
                                   + " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raises the exception reported to request_stop(), if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _, ex, tb = self._exc_info_to_raise
                raise ex.with_traceback(tb)


def log_stragglers(threads, waited_secs):
    """Logs the name and the stack of each of `threads` (still alive after a join gave up
    on them after `waited_secs` seconds), so a hang at shutdown says where it is."""
    if not threads:
        return
    frames = sys._current_frames()  # noqa: SLF001 - the only way to see another stack
    for t in threads:
        frame = frames.get(t.ident)
        stack = "".join(traceback.format_stack(frame)) if frame is not None else "(no stack)\n"
        logging.warning("Thread %s is still running %g s after the stop request; giving "
                        "up on it. Its stack:\n%s", t.name, waited_secs, stack.rstrip())


class LooperThread(threading.Thread):
    """A daemon thread that calls `target` (or `run_loop()`) repeatedly until the
    coordinator stops, every `timer_interval_secs` seconds if set.

    Args:
      coord: a Coordinator (the thread registers itself with it).
      timer_interval_secs: seconds between calls, or None to loop without pause.
      target, args, kwargs: the function to call; subclasses may override run_loop().
    """

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass "
                             "'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Starts and returns a LooperThread calling `target`."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once when the loop ends."""

    def run_loop(self):
        """Called at each iteration: runs `target`."""
        if self._target:
            self._target(*self._args, **self._kwargs)
