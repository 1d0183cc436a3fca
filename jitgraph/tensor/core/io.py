"""Reading arrays from disk inside a graph (``load``), and Theano's MPI names, which cannot exist
here.

``load(path, dtype, broadcastable)`` reads a ``.npy`` file each time the compiled function runs
(it is never constant-folded: the file may change between calls).

Theano's ``MPISend``/``MPIRecv`` ops and their helpers passed arrays between processes inside a
graph. jitgraph has no MPI ops: every one of those names raises :class:`MPIUnavailableError`
explaining what to use instead.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.op import Op
from jitgraph.graph.type import GenericType, generic
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.type import TensorType


class LoadFromDisk(Op):
    """Reads the ``.npy`` file named by its input; the result must have ``dtype`` and
    ``broadcastable``. ``mmap_mode`` is None (read into memory) or ``'c'`` (copy-on-write
    memory map)."""

    __props__ = ("dtype", "broadcastable", "mmap_mode")

    def __init__(self, dtype: str, broadcastable: Sequence[bool], mmap_mode: str | None = None
                 ) -> None:
        if mmap_mode not in (None, "c"):
            raise ValueError(f"mmap_mode must be None or 'c' (a copy-on-write map, so that the "
                             f"graph never writes to the file), got {mmap_mode!r}")
        self.dtype = dt.normalize_dtype(dtype)
        self.broadcastable = tuple(bool(b) for b in broadcastable)
        self.mmap_mode = mmap_mode

    def __str__(self) -> str:
        return (f"Load{{dtype: {self.dtype}, broadcastable: {self.broadcastable}, "
                f"mmep: {self.mmap_mode}}}")

    def make_node(self, path: Any) -> Apply:
        if isinstance(path, str):
            path = Constant(generic, path)
        if not isinstance(path, Variable) or not isinstance(path.type, GenericType):
            raise TypeError(f"load expects a file name (str) or a generic variable holding "
                            f"one, got {path!r}")
        out = TensorType(self.dtype, self.broadcastable).make_variable()
        return Apply(self, [path], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (path,) = inputs
        value = np.load(path, mmap_mode=self.mmap_mode)
        if value.dtype.name != self.dtype:
            raise TypeError(f"{path}: expected an array of dtype {self.dtype}, got "
                            f"{value.dtype.name}")
        out_type = node.outputs[0].type
        if not out_type.is_valid_value(value):
            raise TypeError(f"{path}: the array of shape {value.shape} does not fit "
                            f"{out_type}")
        output_storage[0][0] = value

    def do_constant_folding(self, node: Apply) -> bool:
        return False  # read at run time: the file may change between calls

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None]


def load(path: Any, dtype: str, broadcastable: Sequence[bool], mmap_mode: str | None = None
         ) -> Variable:
    """A tensor read from the ``.npy`` file ``path`` (a str or a generic variable) when the
    function runs. ``broadcastable`` gives the rank: ``(False, False)`` for a matrix."""
    return LoadFromDisk(dtype, broadcastable, mmap_mode)(path)


# -- MPI ------------------------------------------------------------------------------------

class MPIUnavailableError(NotImplementedError):
    """Theano's in-graph MPI ops do not exist in jitgraph."""


def _mpi_message(name: str) -> str:
    return (f"theano.tensor.{name} is not available: jitgraph has no MPI ops inside graphs. "
            "Exchange arrays between processes outside the compiled function (for example "
            "with mpi4py: comm.Send/comm.Recv on the NumPy inputs and outputs), or use "
            "jitgraph's Dask support for distributed work once it is available.")


def _mpi_function(name: str):
    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise MPIUnavailableError(_mpi_message(name))

    unavailable.__name__ = unavailable.__qualname__ = name
    unavailable.__doc__ = f"Raises MPIUnavailableError: {_mpi_message(name)}"
    return unavailable


def _mpi_class(name: str) -> type:
    def refuse(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise MPIUnavailableError(_mpi_message(name))

    return type(name, (Op,), {"__new__": refuse, "__module__": __name__,
                              "__doc__": f"Raises MPIUnavailableError: {_mpi_message(name)}"})


MPISend = _mpi_class("MPISend")
MPIRecv = _mpi_class("MPIRecv")
MPISendWait = _mpi_class("MPISendWait")
MPIRecvWait = _mpi_class("MPIRecvWait")
isend = _mpi_function("isend")
irecv = _mpi_function("irecv")
send = _mpi_function("send")
recv = _mpi_function("recv")
mpi_send_wait_key = _mpi_function("mpi_send_wait_key")
mpi_send_wait_cmp = _mpi_function("mpi_send_wait_cmp")
mpi_tag_key = _mpi_function("mpi_tag_key")
mpi_tag_cmp = _mpi_function("mpi_tag_cmp")

__all__ = ["LoadFromDisk", "load", "MPIUnavailableError", "MPISend", "MPIRecv", "MPISendWait",
           "MPIRecvWait", "isend", "irecv", "send", "recv", "mpi_send_wait_key",
           "mpi_send_wait_cmp", "mpi_tag_key", "mpi_tag_cmp"]
