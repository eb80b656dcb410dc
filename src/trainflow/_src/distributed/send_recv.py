"""TensorFlow's `_Send` and `_Recv` ops, which the master inserts where an edge of the
graph crosses from one task to another (or to and from the client)."""
from trainflow._src.framework import errors
from trainflow._src.framework.kernel_context import DEAD
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.distributed import rendezvous

_ATTRS = ["tensor_name: string", "send_device: string", "send_device_incarnation: int",
          "recv_device: string", "client_terminated: bool = false"]


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


def _key(tensor_name, send_device, send_device_incarnation, recv_device):
    return rendezvous.create_key(_text(send_device), send_device_incarnation,
                                 _text(recv_device), _text(tensor_name))


def _send_kernel(tensor, *, tensor_name, send_device, send_device_incarnation, recv_device):
    ctx = rendezvous.current()
    key = _key(tensor_name, send_device, send_device_incarnation, recv_device)
    if tensor is DEAD:  # the untaken side of a cond: the Recv gets the dead marker
        ctx.rendezvous.send(key, None, is_dead=True)
    else:
        ctx.rendezvous.send(key, tensor)


def _recv_kernel(*, tensor_name, send_device, send_device_incarnation, recv_device,
                 client_terminated=False):
    ctx = rendezvous.current()
    key = _key(tensor_name, send_device, send_device_incarnation, recv_device)
    if client_terminated or _text(send_device) in ctx.local_devices:
        value, is_dead = ctx.rendezvous.recv(key, ctx.deadline)
    else:
        value, is_dead = ctx.remote_recv(key)
    if is_dead:
        return DEAD
    if value is None:
        raise errors.InternalError(None, None, f"No value received for {_text(tensor_name)}")
    return value


register_op("_Send", inputs=["tensor: T"], attrs=["T: type"] + _ATTRS,
            shape_fn=lambda op: [], kernel=_send_kernel, stateful=True, host_only=True)
register_op("_Recv", outputs=["tensor: tensor_type"], attrs=["tensor_type: type"] + _ATTRS,
            shape_fn=lambda op: [unknown_shape()], kernel=_recv_kernel, stateful=True,
            blocking=True, host_only=True)
NotDifferentiable("_Send")
NotDifferentiable("_Recv")
