"""Partial runs and callables of a session whose steps run on a remote master
(`Session("grpc://...")`): the client's half, over the duck-typed remote session object
that runtime/targets.py hands out (PartialRunSetup, RunStep with a partial run handle,
MakeCallable / RunCallable / ReleaseCallable)."""
import weakref

from trainflow._src.framework import errors
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor
from trainflow._src.runtime.fetches import FetchStructure
from trainflow._src.runtime.partial_run import declared_feeds, reject_op_fetches


def partial_run_setup(session, fetches, feeds):
    """The handle of a partial run on the master (see Session.partial_run_setup)."""
    structure = FetchStructure(session._graph, fetches)
    return session._remote.partial_run_setup(structure.elements,
                                             declared_feeds(session, feeds))


def partial_run(session, handle, fetches, feed_dict):
    """Continues the master's partial run `handle` (see Session.partial_run).

    Raises:
      RuntimeError: if `fetches` holds an Operation (as TensorFlow: ops run as the
        setup's targets, once their inputs are fed).
    """
    structure = FetchStructure(session._graph, fetches)
    reject_op_fetches(structure)
    feed_tensors, feed_values = session._process_feeds(feed_dict)
    values = session._remote.run(tuple(structure.elements), feed_tensors, feed_values, None,
                                 None, partial_run_handle=handle)
    return structure.build(values)


def make_callable(session, fetches, feed_list):
    """`fn(*feed_values)` running `fetches` as one master-side callable (MakeCallable);
    the callable is released when `fn` is garbage collected or the session closes."""
    graph = session._graph
    structure = FetchStructure(graph, fetches)
    elements = tuple(structure.elements)
    feed_tensors = [graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
                    for f in (feed_list or [])]
    fetch_names = list(dict.fromkeys(el.name for el in elements
                                     if not isinstance(el, Operation)))
    target_names = list(dict.fromkeys(el.name for el in elements
                                      if isinstance(el, Operation)))
    remote = session._remote
    handle = remote.make_callable([t.name for t in feed_tensors], fetch_names, target_names)
    position = {name: i for i, name in enumerate(fetch_names)}
    single = len(elements) == 1 and isinstance(fetches, (Tensor, Operation, str))
    convert = session._convert_feed

    def _callable(*args):
        if len(args) != len(feed_tensors):
            raise TypeError(f"Expected {len(feed_tensors)} feed values, got {len(args)}")
        if session._closed:
            raise errors.CancelledError(None, None, "Session has been closed.")
        values = remote.run_callable(handle, [convert(t, v) for t, v in
                                              zip(feed_tensors, args)])
        out = [None if isinstance(el, Operation) else values[position[el.name]]
               for el in elements]
        return out[0] if single else structure.build(out)

    weakref.finalize(_callable, remote.release_callable, handle)
    return _callable
