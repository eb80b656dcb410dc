"""Atomic file writes: write to a temporary name, fsync, rename into place, clean up.

Every writer of checkpoints and state files goes through here:

* `temp_path(final)` names a temporary file beside `final` (`final.tempstate-PID-HEX`, or
  `final.tmp-PID-HEX` for state files) and registers it as live in this process;
* `write_file(final, data)` writes one file atomically (temp, fsync, rename, fsync dir);
* `commit([(temp, final), ...])` moves the finished temporaries of a multi-file checkpoint
  into place. When a final name already exists (a save over an existing checkpoint), the
  renames are first recorded in a journal (`LAST_FINAL.tempstate-PID-HEX.commit`, written
  atomically) and the journal is deleted after the last rename. A save killed between the
  renames therefore leaves a journal that says where each file of the new, complete
  checkpoint lies; `resolve_pending(final)` lets readers follow it, and the next save in the
  directory rolls it forward;
* `clean_stale(directory)` rolls forward the journals and deletes the temporaries of saves
  whose process is gone (or, for this process, whose writer is gone).
"""
import json
import os
import re
import shutil
import threading
import uuid

CHECKPOINT_MARKER = ".tempstate"
STATE_MARKER = ".tmp"
_JOURNAL_SUFFIX = ".commit"
_TEMP_RE = re.compile(r"(?:\.tempstate|\.tmp)-(\d+)-[0-9a-f]{32}(\.commit)?$")

_live = set()
_live_lock = threading.Lock()


def temp_path(final, marker=CHECKPOINT_MARKER):
    """A fresh temporary name beside `final`, registered as live until `release`."""
    path = f"{os.fspath(final)}{marker}-{os.getpid()}-{uuid.uuid4().hex}"
    with _live_lock:
        _live.add(os.path.abspath(path))
    return path


def release(*paths):
    """Forgets temporaries created by `temp_path` (after they were renamed or deleted)."""
    with _live_lock:
        for p in paths:
            _live.discard(os.path.abspath(p))


def remove_quietly(*paths):
    """Deletes files or folders that may not exist, and releases their names."""
    for p in paths:
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.remove(p)
        except FileNotFoundError:
            pass
    release(*paths)


def fsync_dir(directory):
    """fsyncs a directory so that renames inside it are durable (no-op where unsupported)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_and_sync(path, data, sync):
    with open(path, "wb") as f:
        if callable(data):
            data(f)
        else:
            f.write(data)
        f.flush()
        if sync:
            os.fsync(f.fileno())


def write_file(final, data, sync=True, marker=STATE_MARKER):
    """Writes `data` (bytes, str as UTF-8, or a callable taking the open binary file) to
    `final` atomically: a reader sees the old file or the whole new one, never a part.

    Stale temporaries of dead writers in the same directory are removed first.
    """
    final = os.fspath(final)
    clean_stale(os.path.dirname(final))
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = temp_path(final, marker)
    try:
        _write_and_sync(tmp, data, sync)
        os.replace(tmp, final)
    except BaseException:
        remove_quietly(tmp)
        raise
    release(tmp)
    if sync:
        fsync_dir(os.path.dirname(final))
    return final


def commit(renames, sync=True):
    """Renames finished temporaries into place: `renames` is [(temp, final), ...], in the
    order to apply (the file that makes the whole visible, such as `.index`, last).

    The temporaries must be complete (and fsynced when `sync`). When any final name exists
    already, a journal is written first (see the module docstring); if a rename then fails,
    the journal and the temporaries stay for readers and the next save (`pending(final)`
    tells callers not to delete them).
    """
    renames = [(os.fspath(t), os.fspath(f)) for t, f in renames]
    if not renames:
        return
    journal = None
    if len(renames) > 1 and any(os.path.lexists(f) for _, f in renames):
        last = renames[-1][1]
        base = os.path.dirname(last)
        record = json.dumps({"renames": [[os.path.relpath(t, base or "."),
                                          os.path.relpath(f, base or ".")]
                                         for t, f in renames]})
        journal = temp_path(last) + _JOURNAL_SUFFIX
        write_file(journal, record, sync=sync)
    try:
        for tmp, final in renames:
            os.replace(tmp, final)
    except BaseException:
        if journal is not None:
            # Leave the journal and the temporaries to the next save, which rolls them
            # forward; readers already follow the journal.
            release(journal[:-len(_JOURNAL_SUFFIX)], *(t for t, _ in renames))
        raise
    if sync:
        for d in {os.path.dirname(f) for _, f in renames}:
            fsync_dir(d)
    if journal is not None:
        remove_quietly(journal)
        release(journal[:-len(_JOURNAL_SUFFIX)])
    release(*(t for t, _ in renames))


def _journals_for(final):
    directory = os.path.dirname(final) or "."
    base = os.path.basename(final) + CHECKPOINT_MARKER + "-"
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names
            if n.startswith(base) and n.endswith(_JOURNAL_SUFFIX) and _TEMP_RE.search(n)]


def _read_journal(path):
    """The (temp, final) pairs of a journal (absolute paths), or None if unreadable."""
    base = os.path.dirname(path) or "."
    try:
        with open(path, "rb") as f:
            record = json.loads(f.read().decode("utf-8"))
        return [(os.path.join(base, t), os.path.join(base, f)) for t, f in record["renames"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def resolve_pending(final):
    """{final name: temporary name} for the files of a commit that was interrupted after
    its journal was written and whose temporaries still exist (an empty dict otherwise).

    Readers open the temporary in place of the final name, so the checkpoint they see is the
    complete new one, whichever renames happened before the interruption.
    """
    final = os.fspath(final)
    journals = _journals_for(final)
    if not journals:
        return {}
    journals.sort(key=lambda p: os.stat(p).st_mtime_ns if os.path.exists(p) else 0)
    pairs = _read_journal(journals[-1]) or []
    return {os.path.normpath(f): t for t, f in pairs if os.path.exists(t)}


def pending(final):
    """True when an interrupted commit of `final` still has temporaries to move."""
    return bool(resolve_pending(final))


def _owner_gone(name):
    m = _TEMP_RE.search(name)
    if m is None:
        return False
    pid = int(m.group(1))
    if pid == os.getpid():
        return True  # ours: stale unless registered as live (checked by the caller)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return _is_zombie(pid)


def _is_zombie(pid):
    """Whether `pid` has exited and waits to be reaped (it writes nothing more). Linux's
    /proc tells; elsewhere a process that answers signals counts as alive."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return False


def clean_stale(directory):
    """Rolls forward interrupted commits and deletes temporaries of dead writers in
    `directory` (files `*.tempstate-PID-*` and `*.tmp-PID-*`, folders too)."""
    directory = os.fspath(directory) or "."
    try:
        names = os.listdir(directory)
    except OSError:
        return
    stale = []
    with _live_lock:
        live = set(_live)
    for n in names:
        path = os.path.join(directory, n)
        base = path[:-len(_JOURNAL_SUFFIX)] if n.endswith(_JOURNAL_SUFFIX) else path
        if _TEMP_RE.search(n) and os.path.abspath(base) not in live and _owner_gone(n):
            stale.append(path)
    for path in sorted(p for p in stale if p.endswith(_JOURNAL_SUFFIX)):
        for tmp, final in _read_journal(path) or []:
            if os.path.exists(tmp):
                try:
                    os.replace(tmp, final)
                except OSError:
                    pass
        remove_quietly(path)
    for path in stale:
        if not path.endswith(_JOURNAL_SUFFIX):
            remove_quietly(path)
