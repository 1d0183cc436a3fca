"""The abstract convolution ops (Theano's ``theano.tensor.nnet.abstract_conv``).

:class:`AbstractConv` computes a grouped, strided, dilated, padded N-d convolution (``convdim``
spatial axes, 2 or 3); :class:`AbstractConv_gradWeights` and :class:`AbstractConv_gradInputs`
are its gradients with respect to the kernel and to the image, ops of their own with their own
gradients (so second derivatives work) and R-operators. They say *what* is computed; the
rewrites of :mod:`jitgraph.tensor.rewriting.conv` choose *how* (the im2col + BLAS ops of
:mod:`jitgraph.tensor.convolution.corr`), and ``perform`` is the NumPy reference
(:mod:`jitgraph.tensor.convolution.conv_reference`).

With ``filter_flip=True`` (the default) the kernel is flipped along its spatial axes: a true
convolution. ``filter_flip=False`` computes a cross-correlation.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.convolution import conv_reference as ref
from jitgraph.tensor.convolution.conv_shapes import (BorderMode, assert_shape,
                                                     normalize_border_mode, normalize_ints)
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.dims import (_add, _const_int, _constant_elements, _element, _floordiv,
                                          _mul, _sub)
from jitgraph.tensor.shaping.shape import _as_shape_vector, patternbroadcast, shape_i
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.elementwise.math import cast

#: Theano's flag that its Python convolution (scipy.signal) could be imported. The kernels
#: here need no SciPy, so every abstract convolution op always runs.
imported_scipy_signal = True

__all__ = [
    "BaseAbstractConv", "AbstractConv", "AbstractConv_gradWeights", "AbstractConv_gradInputs",
    "AbstractConv2d", "AbstractConv2d_gradWeights", "AbstractConv2d_gradInputs",
    "AbstractConv3d", "AbstractConv3d_gradWeights", "AbstractConv3d_gradInputs",
]


def _shape_hint(shape: Any, length: int | tuple[int, ...], name: str) -> tuple:
    """A shape hint as a tuple of Python ints or None (symbolic entries become None)."""
    if shape is None:
        n = length if isinstance(length, int) else length[0]
        return (None,) * n
    if isinstance(shape, Variable):
        raise ValueError(f"{name} must be None or a tuple or list of ints or constant scalars, "
                         f"got the symbolic {shape} ({shape.type}); a shape known only at run "
                         "time is no hint")
    shape = tuple(shape)
    lengths = (length,) if isinstance(length, int) else length
    if len(shape) not in lengths:
        raise ValueError(f"{name} must have {' or '.join(map(str, lengths))} entries, got "
                         f"{shape!r}")
    out = []
    for s in shape:
        v = _const_int(s) if s is not None else None
        if v is not None and v < 0:
            raise ValueError(f"{name} holds a negative size: {shape!r}")
        out.append(v)
    return tuple(out)


def _flip(w: np.ndarray, convdim: int) -> np.ndarray:
    return w[(Ellipsis, *([slice(None, None, -1)] * convdim))]


class BaseAbstractConv(Op):
    """Parameters shared by a convolution and its gradients.

    ``imshp``/``kshp`` are optional hints (ints or None) of the image and kernel shapes;
    ``border_mode`` is 'valid', 'full', 'half', an int, ``convdim`` ints or ``convdim`` pairs
    ``(lo, hi)``; ``subsample`` the strides; ``filter_dilation`` the kernel's dilation;
    ``num_groups`` splits the channels into that many independent groups; ``unshared`` (2-d)
    uses a different kernel for every output position.
    """

    __props__ = ("convdim", "border_mode", "subsample", "filter_flip", "imshp", "kshp",
                 "filter_dilation", "num_groups", "unshared")

    def __init__(self, convdim: int, imshp: Any = None, kshp: Any = None,
                 border_mode: BorderMode = "valid", subsample: Any = None,
                 filter_flip: bool = True, filter_dilation: Any = None, num_groups: int = 1,
                 unshared: bool = False) -> None:
        if convdim not in (1, 2, 3):
            raise ValueError(f"convdim must be 1, 2 or 3, got {convdim!r}")
        self.convdim = convdim
        self.border_mode = normalize_border_mode(border_mode, convdim)
        self.subsample = normalize_ints((1,) * convdim if subsample is None else subsample,
                                        convdim, "subsample")
        self.filter_dilation = normalize_ints(
            (1,) * convdim if filter_dilation is None else filter_dilation, convdim,
            "filter_dilation")
        self.filter_flip = bool(filter_flip)
        if not isinstance(num_groups, (int, np.integer)) or num_groups < 1:
            raise ValueError(f"num_groups must have value greater than zero, got "
                             f"{num_groups!r}")
        self.num_groups = int(num_groups)
        if unshared and convdim != 2:
            raise ValueError("unshared convolutions exist only in 2-d")
        self.unshared = bool(unshared)
        self.imshp = _shape_hint(imshp, convdim + 2, "imshp (input_shape)")
        klen = (2 * convdim + 2,) if unshared else (convdim + 2,)
        self.kshp = _shape_hint(kshp, klen, "kshp (filter_shape)")

    # -- shared helpers -------------------------------------------------------------------
    def params(self) -> dict:
        """The parameters as keyword arguments (to build a sibling op with the same ones)."""
        return {p: getattr(self, p) for p in ("imshp", "kshp", "border_mode", "subsample",
                                              "filter_flip", "filter_dilation", "num_groups",
                                              "unshared")}

    def pads(self, kernel: Sequence[int]) -> tuple[tuple[int, int], ...]:
        """(lo, hi) padding per spatial axis for a kernel of spatial shape ``kernel``."""
        dks = [(k - 1) * d + 1 for k, d in zip(kernel, self.filter_dilation)]
        if self.border_mode == "valid":
            return ((0, 0),) * self.convdim
        if self.border_mode == "full":
            return tuple((dk - 1, dk - 1) for dk in dks)
        if self.border_mode == "half":
            return tuple((dk // 2, dk // 2) for dk in dks)
        return tuple((b, b) if isinstance(b, int) else b for b in self.border_mode)

    def checked_out_size(self, image: Sequence[int], kernel: Sequence[int], who: str
                         ) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
        """(the paddings, the output's spatial shape) for an image and a kernel of spatial
        shapes ``image`` and ``kernel``; raises, naming ``who``, when the kernel does not fit."""
        pads = self.pads(kernel)
        out = []
        for i, k, (lo, hi), s, d in zip(image, kernel, pads, self.subsample,
                                        self.filter_dilation):
            dk = (k - 1) * d + 1
            if dk > i + lo + hi:
                raise ValueError(f"{who}: the kernel (spatial shape {tuple(kernel)}, dilation "
                                 f"{self.filter_dilation}) is larger than the padded image "
                                 f"(spatial shape {tuple(image)}, padding {pads})")
            out.append((i + lo + hi - dk) // s + 1)
        return pads, tuple(out)

    def symbolic_pads(self, kernel: Sequence[Any]) -> list[tuple[Any, Any]]:
        """:meth:`pads` for kernel sizes that may be symbolic."""
        if self.border_mode not in ("full", "half"):
            return list(self.pads([1] * self.convdim))
        pads = []
        for k, d in zip(kernel, self.filter_dilation):
            dk = _add(_mul(_sub(k, 1), d), 1)
            p = _sub(dk, 1) if self.border_mode == "full" else _floordiv(dk, 2)
            pads.append((p, p))
        return pads

    def out_size(self, image: Sequence[Any], kernel: Sequence[Any]) -> list[Any]:
        """Output spatial sizes (ints or int64 variables) from image and kernel sizes."""
        sizes = []
        for a, (lo, hi) in enumerate(self.symbolic_pads(kernel)):
            dk = _add(_mul(_sub(kernel[a], 1), self.filter_dilation[a]), 1)
            span = _sub(_add(_add(image[a], lo), hi), dk)
            sizes.append(_add(_floordiv(span, self.subsample[a]), 1))
        return sizes

    def _tensor(self, v: Any, ndims: tuple[int, ...], role: str) -> Variable:
        v = as_tensor_variable(v)
        if v.ndim not in ndims:
            raise TypeError(f"{type(self).__name__}: {role} must be a "
                            f"{' or '.join(f'{n}-d' for n in ndims)} tensor, got {v.type}")
        return v

    def _kernel_ndim(self) -> int:
        return 2 * self.convdim + 2 if self.unshared else self.convdim + 2

    def _shape_vector(self, shape: Any, role: str) -> Variable:
        vec = _as_shape_vector(shape, type(self).__name__)
        known = _constant_elements(vec)
        if known and len(known) != self.convdim:
            raise ValueError(f"{type(self).__name__}: {role} must have {self.convdim} entries "
                             f"(the spatial sizes), got {shape!r}")
        return vec

    def _flip(self, w: np.ndarray) -> np.ndarray:
        return _flip(w, self.convdim) if self.filter_flip else w

    def do_constant_folding(self, node: Apply) -> bool:
        return False  # a folded convolution only moves the work to compile time


class AbstractConv(BaseAbstractConv):
    """``conv(img, kern)``: inputs ``(batch, channels, *spatial)`` and the kernel; output
    ``(batch, out_channels, *out_spatial)`` in the image's dtype."""

    def make_node(self, img: Any, kern: Any) -> Apply:
        img = self._tensor(img, (self.convdim + 2,), "img (the input)")
        kern = self._tensor(kern, (self._kernel_ndim(),), "kern (the filters)")
        # run-time checks of the shape hints, under the flag conv.assert_shape (as Theano)
        img, kern = assert_shape(img, self.imshp), assert_shape(kern, self.kshp)
        bcast = (img.broadcastable[0], kern.broadcastable[0]) + (False,) * self.convdim
        return Apply(self, [img, kern], [TensorType(img.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        img, kern = inputs
        kernel = kern.shape[-self.convdim:]
        output_storage[0][0] = ref.correlate(
            img, self._flip(kern), self.pads(kernel), self.subsample, self.filter_dilation,
            self.num_groups, self.unshared, node.outputs[0].dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        ishape, kshape = input_shapes
        spatial = self.out_size(ishape[2:], kshape[-self.convdim:])
        return [(ishape[0], kshape[0], *spatial)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        img, kern = inputs
        (top,) = output_grads
        img, kern, top = _common_dtype(img, kern, top)
        nd = self.convdim
        d_img = sibling(self, "inputs")(
            kern, top, [shape_i(img, 2 + a) for a in range(nd)])
        d_kern = sibling(self, "weights")(
            img, top, [shape_i(kern, kern.ndim - nd + a) for a in range(nd)])
        return [_like(d_img, img), _like(d_kern, kern)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        img, kern = inputs
        e_img, e_kern = eval_points
        terms = []
        if e_img is not None:
            terms.append(self(e_img, kern))
        if e_kern is not None:
            terms.append(self(img, e_kern))
        return [_sum_terms(terms)]


class AbstractConv_gradWeights(BaseAbstractConv):
    """Gradient of :class:`AbstractConv` with respect to the kernel: inputs ``(img, topgrad,
    shape)`` with ``shape`` the kernel's spatial size; output shaped like the kernel."""

    def make_node(self, img: Any, topgrad: Any, shape: Any) -> Apply:
        nd = self.convdim
        img = assert_shape(self._tensor(img, (nd + 2,), "img (the input)"), self.imshp)
        topgrad = self._tensor(topgrad, (nd + 2,), "topgrad (the output gradient)")
        shape = self._shape_vector(shape, "shape (the kernel's spatial size)")
        if self.unshared:
            bcast = ((topgrad.broadcastable[1],) + (False,) * nd + (img.broadcastable[1],)
                     + (False,) * nd)
        else:
            bcast = (topgrad.broadcastable[1], img.broadcastable[1]) + (False,) * nd
        out = TensorType(img.dtype, bcast).make_variable()
        return Apply(self, [img, topgrad, shape], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        img, top, shape = inputs
        kernel = tuple(int(s) for s in shape)
        gw = ref.correlate_grad_weights(img, top, kernel, self.pads(kernel), self.subsample,
                                        self.filter_dilation, self.num_groups, self.unshared,
                                        node.outputs[0].dtype)
        output_storage[0][0] = np.ascontiguousarray(self._flip(gw))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        ishape, tshape, _ = input_shapes
        kernel = [_element(node.inputs[2], a) for a in range(self.convdim)]
        cin = _floordiv(ishape[1], self.num_groups)
        if self.unshared:
            return [(tshape[1], *tshape[2:], cin, *kernel)]
        return [(tshape[1], cin, *kernel)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        img, top, _ = inputs
        (gw_bar,) = output_grads
        img, top, gw_bar = _common_dtype(img, top, gw_bar)
        nd = self.convdim
        d_img = sibling(self, "inputs")(
            gw_bar, top, [shape_i(img, 2 + a) for a in range(nd)])
        d_top = sibling(self, "conv")(img, gw_bar)
        return [_like(d_img, img), _like(d_top, top), None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        img, top, shape = inputs
        e_img, e_top = eval_points[0], eval_points[1]
        terms = []
        if e_img is not None:
            terms.append(self(e_img, top, shape))
        if e_top is not None:
            terms.append(self(img, e_top, shape))
        return [_sum_terms(terms)]


class AbstractConv_gradInputs(BaseAbstractConv):
    """Gradient of :class:`AbstractConv` with respect to the image: inputs ``(kern, topgrad,
    shape)`` with ``shape`` the image's spatial size; output ``(batch, channels, *shape)`` in
    the kernel's dtype. It is also the transposed convolution (``conv2d_transpose``)."""

    def make_node(self, kern: Any, topgrad: Any, shape: Any) -> Apply:
        nd = self.convdim
        kern = assert_shape(self._tensor(kern, (self._kernel_ndim(),), "kern (the filters)"),
                            self.kshp)
        topgrad = self._tensor(topgrad, (nd + 2,), "topgrad (the output gradient)")
        shape = self._shape_vector(shape, "shape (the image's spatial size)")
        chan_bcast = kern.broadcastable[-nd - 1] and self.num_groups == 1
        bcast = (topgrad.broadcastable[0], chan_bcast) + (False,) * nd
        out = TensorType(kern.dtype, bcast).make_variable()
        return Apply(self, [kern, topgrad, shape], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        kern, top, shape = inputs
        image = tuple(int(s) for s in shape)
        kernel = kern.shape[-self.convdim:]
        gx = ref.correlate_grad_inputs(self._flip(kern), top, image, self.pads(kernel),
                                       self.subsample, self.filter_dilation, self.num_groups,
                                       self.unshared, node.outputs[0].dtype)
        output_storage[0][0] = np.ascontiguousarray(gx)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        kshape, tshape, _ = input_shapes
        image = [_element(node.inputs[2], a) for a in range(self.convdim)]
        channels = _mul(kshape[-self.convdim - 1], self.num_groups)
        return [(tshape[0], channels, *image)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        kern, top, _ = inputs
        (gx_bar,) = output_grads
        kern, top, gx_bar = _common_dtype(kern, top, gx_bar)
        nd = self.convdim
        d_kern = sibling(self, "weights")(
            gx_bar, top, [shape_i(kern, kern.ndim - nd + a) for a in range(nd)])
        d_top = sibling(self, "conv")(gx_bar, kern)
        return [_like(d_kern, kern), _like(d_top, top), None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        kern, top, shape = inputs
        e_kern, e_top = eval_points[0], eval_points[1]
        terms = []
        if e_kern is not None:
            terms.append(self(e_kern, top, shape))
        if e_top is not None:
            terms.append(self(kern, e_top, shape))
        return [_sum_terms(terms)]


def _common_dtype(*variables: Variable) -> list[Variable]:
    """The variables cast to their common dtype: a gradient op's output takes one input's
    dtype (Theano's rule), so an integer kernel met by a float gradient would otherwise give
    an integer gradient (Theano refused such graphs; here they get the float gradient)."""
    dtype = dt.upcast(*(v.dtype for v in variables))
    return [v if v.dtype == dtype else cast(v, dtype) for v in variables]


def _like(g: Variable, x: Variable) -> Variable:
    """``g`` with ``x``'s dtype and broadcastable pattern (what ``grad`` expects)."""
    if g.dtype != x.dtype:
        g = cast(g, x.dtype)
    if g.broadcastable != x.broadcastable:
        g = patternbroadcast(g, x.broadcastable)
    return g


def _sum_terms(terms: list[Variable]) -> Variable | None:
    if not terms:
        return None
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


# ---------------------------------------------------------------------------------------------
# Theano's 2-d and 3-d classes (a fixed convdim and Theano's constructor defaults)

class AbstractConv2d(AbstractConv):
    """2-d :class:`AbstractConv`."""

    def __init__(self, imshp: Any = None, kshp: Any = None, border_mode: BorderMode = "valid",
                 subsample: Any = (1, 1), filter_flip: bool = True, filter_dilation: Any = (1, 1),
                 num_groups: int = 1, unshared: bool = False) -> None:
        BaseAbstractConv.__init__(self, 2, imshp, kshp, border_mode, subsample, filter_flip,
                                  filter_dilation, num_groups, unshared)


class AbstractConv2d_gradWeights(AbstractConv_gradWeights):
    """2-d :class:`AbstractConv_gradWeights`."""

    __init__ = AbstractConv2d.__init__


class AbstractConv2d_gradInputs(AbstractConv_gradInputs):
    """2-d :class:`AbstractConv_gradInputs`."""

    __init__ = AbstractConv2d.__init__


class AbstractConv3d(AbstractConv):
    """3-d :class:`AbstractConv`."""

    def __init__(self, imshp: Any = None, kshp: Any = None, border_mode: BorderMode = "valid",
                 subsample: Any = (1, 1, 1), filter_flip: bool = True,
                 filter_dilation: Any = (1, 1, 1), num_groups: int = 1) -> None:
        BaseAbstractConv.__init__(self, 3, imshp, kshp, border_mode, subsample, filter_flip,
                                  filter_dilation, num_groups, False)


class AbstractConv3d_gradWeights(AbstractConv_gradWeights):
    """3-d :class:`AbstractConv_gradWeights`."""

    __init__ = AbstractConv3d.__init__


class AbstractConv3d_gradInputs(AbstractConv_gradInputs):
    """3-d :class:`AbstractConv_gradInputs`."""

    __init__ = AbstractConv3d.__init__


#: (role, convdim) -> the class that a convolution's gradient of that role is built from
_FAMILY: dict[tuple[str, int], type] = {
    ("conv", 2): AbstractConv2d, ("weights", 2): AbstractConv2d_gradWeights,
    ("inputs", 2): AbstractConv2d_gradInputs, ("conv", 3): AbstractConv3d,
    ("weights", 3): AbstractConv3d_gradWeights, ("inputs", 3): AbstractConv3d_gradInputs,
}
_GENERIC = {"conv": AbstractConv, "weights": AbstractConv_gradWeights,
            "inputs": AbstractConv_gradInputs}


def sibling(op: BaseAbstractConv, role: str) -> BaseAbstractConv:
    """The op of ``role`` ('conv', 'weights' or 'inputs') with ``op``'s parameters (of Theano's
    2-d or 3-d class for 2 or 3 spatial axes)."""
    params = op.params()
    cls = _FAMILY.get((role, op.convdim))
    if cls is None:
        return _GENERIC[role](op.convdim, **params)
    if op.convdim == 3:
        params.pop("unshared")
    return cls(**params)
