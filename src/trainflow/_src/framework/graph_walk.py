"""Walks over the op graph, written once: what is reachable from some ops (backward
through inputs, forward through consumers), with the link each op was reached by, and
a run order. All are iterative (no recursion limit on deep graphs) and deterministic:
lists come in op creation order (`op._id`), ties of a run order too."""
import collections
import heapq


def reachable(roots, next_ops):
    """The set of ops reachable from `roots` (included).

    Args:
      roots: the Operations to start from.
      next_ops: `fn(op) -> iterable of Operations` one step further.
    """
    seen = set()
    stack = list(roots)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(next_ops(op))
    return seen


def reachable_with_links(roots, next_links):
    """How each op reachable from `roots` was first reached, breadth first.

    Args:
      next_links: `fn(op) -> iterable of (next_op, label)`.

    Returns:
      {op: None for a root, else (previous_op, label)}; following the links from an
      op leads back to a root by a shortest path.
    """
    links = {}
    queue = collections.deque()
    for op in roots:
        if op not in links:
            links[op] = None
            queue.append(op)
    while queue:
        op = queue.popleft()
        for nxt, label in next_links(op):
            if nxt not in links:
                links[nxt] = (op, label)
                queue.append(nxt)
    return links


def in_creation_order(ops):
    """`ops` as a list sorted by creation."""
    return sorted(ops, key=_creation)


def _creation(op):
    return op._id


def op_dependencies(op):
    """The ops `op` must run after: its inputs' producers and its control inputs."""
    deps = [t._op for t in op._inputs]
    deps.extend(op._control_inputs)
    return deps


def topological_order(ops, dependencies=op_dependencies):
    """`ops` in a valid run order: each op after those of its `dependencies(op)` that are
    in `ops`; ops run in the order they become ready, ties by creation.

    Returns:
      the ordered list; it is shorter than `ops` when they contain a cycle (the ops
      left out are on or behind it).
    """
    members = set(ops)
    indegree = {}
    consumers = {}
    for op in members:
        deps = {d for d in dependencies(op) if d in members}
        indegree[op] = len(deps)
        for d in deps:
            consumers.setdefault(d, []).append(op)
    # TensorFlow's executor runs an op once its inputs are done, in the order they
    # became ready: reads that race with an update in the same step (a hook's read of
    # the global step beside the train op's increment) come out as they do in TF. Its
    # waiting ops (a Recv, a dequeue) wait asynchronously; run in sequence here, they
    # come after every op ready beside them, so a Send a peer waits for is never held
    # back behind a Recv.
    ready = [(_blocks(op), 0, op._id, op) for op, n in indegree.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        op = heapq.heappop(ready)[-1]
        order.append(op)
        for c in consumers.get(op, ()):
            indegree[c] -= 1
            if indegree[c] == 0:
                heapq.heappush(ready, (_blocks(c), len(order), c._id, c))
    return order


def _blocks(op):
    info = getattr(op, "_info", None)
    return bool(info is not None and info.blocking)
