"""Thread-default stacks (default graph, default session): push for a block, pop after."""
import contextlib


@contextlib.contextmanager
def nesting_controller(stack, item, enforce_nesting=True):
    """Pushes `item` on `stack` for the duration of the block.

    Raises:
      AssertionError: on exit, if `enforce_nesting` and `item` is no longer on top
        (blocks were exited out of order).
    """
    stack.append(item)
    try:
        yield item
    finally:
        if stack:  # empty if the stack was reset inside the block
            if stack[-1] is item:
                stack.pop()
            elif enforce_nesting:
                raise AssertionError("Nesting violated for default stack of "
                                     f"{type(item)} objects")
            elif item in stack:
                stack.remove(item)
