"""Small Numba helpers that generated kernels import by name (so their source stays cacheable)."""

from __future__ import annotations

import numba
from numba.core import types
from numba.extending import intrinsic


@numba.njit(nogil=True, error_model="numpy", cache=False)
def ipow(x, y):  # noqa: ANN001, ANN201 - Numba function
    """``x ** y`` for 64-bit integers with wrapping overflow, as NumPy's integer power."""
    if y < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    result = x - x + 1
    base = x
    while y:
        if y & 1:
            result = result * base
        base = base * base
        y = y >> 1
    return result


@intrinsic
def stack_empty(typingctx, n, dtype):  # noqa: ANN001, ANN201 - Numba intrinsic signature
    """``stack_empty(512, np.float64)``: an uninitialised 1-d C array of a constant length on
    the kernel's stack. Unlike ``np.empty`` it needs no allocator (Numba's runtime), which
    keeps kernels using it loadable as native objects without Numba."""
    if not isinstance(n, types.IntegerLiteral) or not isinstance(dtype, types.NumberClass):
        return None
    length = int(n.literal_value)
    arrty = types.Array(dtype.instance_type, 1, "C")

    def codegen(context, builder, signature, args):
        from llvmlite import ir
        from numba.core import cgutils

        elt = context.get_data_type(arrty.dtype)
        itemsize = context.get_abi_sizeof(elt)
        with builder.goto_entry_block():
            data = builder.alloca(elt, size=ir.Constant(ir.IntType(64), length))
            data.align = 64
        ary = context.make_array(arrty)(context, builder)
        intp = context.get_value_type(types.intp)
        context.populate_array(ary, data=data,
                               shape=cgutils.pack_array(builder, [ir.Constant(intp, length)]),
                               strides=cgutils.pack_array(builder, [ir.Constant(intp, itemsize)]),
                               itemsize=ir.Constant(intp, itemsize), meminfo=None)
        return ary._getvalue()

    return arrty(n, dtype), codegen


@intrinsic
def flat_view(typingctx, arr):  # noqa: ANN001, ANN201 - Numba intrinsic signature
    """The 1-d view of a C-contiguous array (what ``arr.reshape(arr.size)`` gives). Numba's
    ``reshape`` calls a helper of Numba's runtime library (``numba_attempt_nocopy_reshape``),
    which would make a kernel unloadable without Numba; for a C array the view is just a new
    shape and stride."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None
    flat = arr.copy(ndim=1, layout="C")

    def codegen(context, builder, signature, args):
        from numba.core import cgutils
        from numba.core.imputils import impl_ret_borrowed

        src = context.make_array(signature.args[0])(context, builder, args[0])
        dst = context.make_array(signature.return_type)(context, builder)
        context.populate_array(dst, data=src.data,
                               shape=cgutils.pack_array(builder, [src.nitems]),
                               strides=cgutils.pack_array(builder, [src.itemsize]),
                               itemsize=src.itemsize, meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, signature.return_type, dst._getvalue())

    return flat(arr), codegen
