"""A localhost TCP proxy that passes, drops or stalls the connections between tasks.

    proxy = TcpProxy(target_port)       # listens on proxy.port, forwards to target_port
    proxy.drop()     # resets every connection and refuses new ones (until `passing()`)
    proxy.stall()    # keeps connections open but forwards nothing (until `passing()`)
    proxy.passing()  # forwards again
    proxy.close()
"""
import select
import socket
import threading

_PASS, _DROP, _STALL = "pass", "drop", "stall"


class TcpProxy:
    def __init__(self, target_port, host="localhost"):
        self._target = (host, target_port)
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._mode = _PASS
        self._lock = threading.Lock()
        self._conns = set()
        self._closed = False
        self.dropped = 0
        threading.Thread(target=self._accept, daemon=True, name="tcp-proxy").start()

    # -- modes -------------------------------------------------------------------------
    def passing(self):
        self._mode = _PASS

    def stall(self):
        self._mode = _STALL

    def drop(self):
        """Resets every open connection; new ones are reset too until `passing()`."""
        self._mode = _DROP
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for pair in conns:
            self._reset(*pair)

    def close(self):
        self._closed = True
        self.drop()
        self._listener.close()

    # -- plumbing ----------------------------------------------------------------------
    def _reset(self, *socks):
        for s in socks:
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
                s.close()
            except OSError:
                pass
        self.dropped += 1

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._mode == _DROP:
                self._reset(client)
                continue
            try:
                upstream = socket.create_connection(self._target, timeout=5)
            except OSError:
                self._reset(client)
                continue
            pair = (client, upstream)
            with self._lock:
                self._conns.add(pair)
            threading.Thread(target=self._pump, args=pair, daemon=True,
                             name="tcp-proxy-pump").start()

    def _pump(self, client, upstream):
        peers = {client: upstream, upstream: client}
        try:
            while True:
                with self._lock:
                    if (client, upstream) not in self._conns:
                        return
                ready, _, _ = select.select(list(peers), [], [], 0.05)
                if self._mode != _PASS:
                    continue  # stalled: nothing moves (a dropped pair leaves the set)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        raise OSError("closed")
                    peers[s].sendall(data)
        except (OSError, ValueError):
            with self._lock:
                self._conns.discard((client, upstream))
            for s in (client, upstream):
                try:
                    s.close()
                except OSError:
                    pass
