"""The versions of one model: `--model_base_path` holds numbered version folders; the newest
is loaded and served, and polling the folder picks up a newer one (loaded first, then the
older one unloaded, as TF Serving's availability-preserving policy does). The states are
those TF Serving reports: AVAILABLE while served, END once unloaded or failed."""
import os
import threading

from trainflow._src import tf_logging as logging
from trainflow._src.serving.servable import Servable
from trainflow._src.serving.status import ServingError, invalid_argument, not_found

# TF Serving's --max_num_load_retries default: a version that fails to load is tried again
# on the next polls, up to this many times.
MAX_LOAD_RETRIES = 5
_JOIN_SECONDS = 60.0


def list_versions(base_path):
    """{version number: folder} of the numbered subfolders of base_path ({} if it is missing)."""
    try:
        names = os.listdir(base_path)
    except OSError:
        return {}
    out = {}
    for name in names:
        path = os.path.join(base_path, name)
        if name.isascii() and name.isdigit() and os.path.isdir(path):
            version = int(name)
            if version < 2 ** 63:
                out[version] = path
    return out


class ModelManager:
    """Loads, serves and unloads the versions of the model `name` under `base_path`.

    Args:
      name: the model's name in the URLs.
      base_path: the folder of numbered version folders.
      tags: the tag set of the MetaGraphDef to load (TF Serving: {"serve"}).
      poll_wait_seconds: seconds between polls of base_path; 0 or less polls once.
      load: (name, version, path, tags) -> a loaded version (Servable); tests replace it.
    """

    def __init__(self, name, base_path, tags=("serve",), poll_wait_seconds=1.0, load=Servable):
        self.name = name
        self.base_path = base_path
        self.tags = tuple(tags)
        self.poll_wait_seconds = poll_wait_seconds
        self._load = load
        self._lock = threading.Lock()
        self._poll_lock = threading.Lock()
        self._servables = {}  # version -> loaded version, served
        self._states = {}  # version -> (state, error_code, error_message)
        self._failures = {}  # version -> failed loads
        self._stop = threading.Event()
        self._thread = None
        self._warned_empty = False

    # -- polling ----------------------------------------------------------------------------
    def poll(self):
        """One poll: loads the newest version folder if it is new, then unloads the others.
        Returns the version now served (None if none)."""
        with self._poll_lock:
            versions = list_versions(self.base_path)
            if not versions:
                if not self._warned_empty:
                    logging.warning("No versions of servable %s found under base path %s",
                                    self.name, self.base_path)
                    self._warned_empty = True
                return self.latest_version()
            self._warned_empty = False
            newest = max(versions)
            with self._lock:
                loaded = newest in self._servables
            if not loaded and self._failures.get(newest, 0) < MAX_LOAD_RETRIES:
                self._load_version(newest, versions[newest])
            with self._lock:
                if newest not in self._servables:
                    return max(self._servables) if self._servables else None
                stale = [v for v in self._servables if v != newest]
            for version in stale:
                self._unload_version(version)
            return newest

    def _load_version(self, version, path):
        with self._lock:
            self._states[version] = ("LOADING", "OK", "")
        logging.info("Loading servable version {name: %s version: %d} from %s", self.name,
                     version, path)
        try:
            servable = self._load(self.name, version, path, self.tags)
        except Exception as e:  # noqa: BLE001 - a failed load leaves the version END, with why
            self._failures[version] = self._failures.get(version, 0) + 1
            message = f"{type(e).__name__}: {e}"
            logging.error("Loading servable version {name: %s version: %d} failed (try %d of "
                          "%d): %s", self.name, version, self._failures[version],
                          MAX_LOAD_RETRIES, message)
            with self._lock:
                self._states[version] = ("END", "UNKNOWN", message)
            return
        with self._lock:
            self._servables[version] = servable
            self._states[version] = ("AVAILABLE", "OK", "")
        logging.info("Successfully loaded servable version {name: %s version: %d}", self.name,
                     version)

    def _unload_version(self, version):
        with self._lock:
            servable = self._servables.pop(version)
            self._states[version] = ("UNLOADING", "OK", "")
        servable.close()
        with self._lock:
            self._states[version] = ("END", "OK", "")
        logging.info("Unloaded servable version {name: %s version: %d}", self.name, version)

    def start(self):
        """Polls once (the first version loads before the server answers), then keeps
        polling every poll_wait_seconds in a thread."""
        self.poll()
        if self.poll_wait_seconds > 0:
            self._thread = threading.Thread(target=self._poll_loop, name="serving-poll",
                                            daemon=True)
            self._thread.start()

    def _poll_loop(self):
        while not self._stop.wait(self.poll_wait_seconds):
            try:
                self.poll()
            except Exception as e:  # noqa: BLE001 - a poll must never end the loop
                logging.error("Polling %s failed: %s", self.base_path, e)

    def stop(self):
        """Ends the polling and unloads every version (each waits, bounded, for its
        requests in flight)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(_JOIN_SECONDS)
        with self._poll_lock:
            with self._lock:
                versions = list(self._servables)
            for version in versions:
                self._unload_version(version)

    # -- lookups ----------------------------------------------------------------------------
    def latest_version(self):
        with self._lock:
            return max(self._servables) if self._servables else None

    def _check_spec(self, name, label):
        if label is not None:
            raise invalid_argument(f"Unrecognized servable version label: {label}")
        return name == self.name

    def acquire(self, name, version=None, label=None):
        """The loaded version a request names (the newest when `version` is None), marked in
        flight: call its release() when done.

        Raises:
          ServingError: NOT_FOUND as TF Serving words it.
        """
        known = self._check_spec(name, label)
        for _ in range(3):  # a version unloaded between lookup and acquire: look again
            with self._lock:
                if not known:
                    servable = None
                elif version is None:
                    servable = self._servables[max(self._servables)] if self._servables else None
                else:
                    servable = self._servables.get(version)
            if servable is None:
                request = (f"Latest({name})" if version is None
                           else f"Specific({name}, {version})")
                raise not_found(f"Servable not found for request: {request}")
            if servable.acquire():
                return servable
        raise ServingError("UNAVAILABLE", f"Servable {name} is being unloaded")

    def status(self, name, version=None, label=None):
        """[(version, state, error_code, error_message)], newest first, as GetModelStatus."""
        known = self._check_spec(name, label)
        with self._lock:
            states = dict(self._states) if known else {}
        if version is not None:
            if version not in states:
                raise not_found(f"Could not find version {version} of model {name}")
            return [(version,) + states[version]]
        if not states:
            raise not_found(f"Could not find any versions of model {name}")
        return [(v,) + states[v] for v in sorted(states, reverse=True)]
