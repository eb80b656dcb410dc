"""The intra-op pool: its size setting, every task run once, errors re-raised on the
caller after all tasks finish, and nested or concurrent jobs running without deadlock."""
import os
import threading
import time

import pytest

from trainflow._src.kernels import intra_op


@pytest.fixture
def pool_size():
    """Restores the automatic setting after the test."""
    yield intra_op.set_threads
    intra_op.set_threads(0)


def _cpus():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


@pytest.mark.parametrize("setting, expected", [(1, 1), (3, 3), (0, None)])
def test_threads_follow_the_setting(pool_size, setting, expected):
    pool_size(setting)
    assert intra_op.threads() == (expected or _cpus())


def test_negative_setting_is_rejected(pool_size):
    with pytest.raises(ValueError, match=">= 0"):
        pool_size(-1)


@pytest.mark.parametrize("threads, count", [(1, 5), (2, 1), (3, 40), (4, 200)])
def test_every_task_runs_once(pool_size, threads, count):
    pool_size(threads)
    done = [0] * count
    lock = threading.Lock()

    def task(i):
        with lock:
            done[i] += 1

    intra_op.run([lambda i=i: task(i) for i in range(count)])
    assert done == [1] * count


def test_work_is_shared_among_threads(pool_size):
    pool_size(2)
    seen = set()

    def task():
        seen.add(threading.get_ident())
        time.sleep(0.02)  # releases the GIL, as NumPy's loops do

    intra_op.run([task] * 8)
    assert len(seen) == 2


def test_first_error_is_raised_after_all_tasks_finish(pool_size):
    pool_size(2)
    finished = []

    def fail():
        raise ArithmeticError("piece failed")

    def slow():
        time.sleep(0.05)
        finished.append(True)

    with pytest.raises(ArithmeticError, match="piece failed"):
        intra_op.run([fail, slow, slow])
    assert finished == [True, True]


def test_nested_job_runs_on_the_caller(pool_size):
    pool_size(2)
    inner = []

    def outer():
        intra_op.run([lambda: inner.append(1), lambda: inner.append(2)])

    intra_op.run([outer, outer])
    assert sorted(inner) == [1, 1, 2, 2]


def test_concurrent_callers_all_finish(pool_size):
    pool_size(2)
    totals = [0, 0, 0]

    def caller(slot):
        for _ in range(50):
            parts = [0] * 4

            def piece(i, parts=parts):
                parts[i] = i + 1

            intra_op.run([lambda i=i: piece(i) for i in range(4)])
            totals[slot] += sum(parts)

    threads = [threading.Thread(target=caller, args=(s,)) for s in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
        assert not t.is_alive()
    assert totals == [500, 500, 500]
