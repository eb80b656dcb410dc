"""`tf.nn.rnn_cell`: the recurrent cells (`BasicRNNCell`, `GRUCell`, `BasicLSTMCell`,
`LSTMCell`), `MultiRNNCell`, the wrappers and `LSTMStateTuple`."""
from trainflow._src.nn.rnn_cell_base import LSTMStateTuple, RNNCell  # noqa: F401
from trainflow._src.nn.rnn_cells import (  # noqa: F401
    BasicLSTMCell, BasicRNNCell, GRUCell, LSTMCell)
from trainflow._src.nn.rnn_wrappers import (  # noqa: F401
    DeviceWrapper, DropoutWrapper, MultiRNNCell, ResidualWrapper)

__all__ = sorted(n for n in dir() if not n.startswith("_"))
