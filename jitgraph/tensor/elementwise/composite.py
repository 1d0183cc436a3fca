"""Composite: a fused group of elementwise ops, as a small straight-line program of scalar ops.

The fusion rewrite builds one; backends generate one loop nest per Composite. The program is
pure structure (scalar ops, wiring, dtypes): constants enter as inputs, never as literals, so one
kernel serves every graph with the same structure.
"""

from __future__ import annotations

from typing import Any, Sequence


from jitgraph.tensor.elementwise.scalar_ops import ScalarOp

#: a step: (scalar op, argument references, output dtype). A reference ``r < nin`` is input ``r``;
#: ``r >= nin`` is the result of step ``r - nin``.
Step = tuple[ScalarOp, tuple[int, ...], str]


class Composite(ScalarOp):
    """``Composite(in_dtypes, steps, outputs)``: evaluates ``steps`` in order and returns the
    results referenced by ``outputs`` (one or more)."""

    def __init__(self, in_dtypes: Sequence[str], steps: Sequence[Step], outputs: Sequence[int]
                 ) -> None:
        self.in_dtypes = tuple(in_dtypes)
        self.steps = tuple((op, tuple(args), dtype) for op, args, dtype in steps)
        self.outputs = tuple(outputs)
        nin = len(self.in_dtypes)
        for k, (op, args, _) in enumerate(self.steps):
            if any(not 0 <= a < nin + k for a in args):
                raise ValueError(f"step {k} ({op.name}) refers to a later or unknown value")
        for r in self.outputs:
            if not 0 <= r < nin + len(self.steps):
                raise ValueError(f"output reference {r} is out of range")
        super().__init__(self._describe(), nin, self._evaluate, self._out_dtype,
                         doc="A fused elementwise expression.")
        self.nout = len(self.outputs)

    @property
    def key(self) -> tuple:
        return ("composite", self.in_dtypes,
                tuple((op.key, args, dtype) for op, args, dtype in self.steps), self.outputs)

    def __reduce__(self) -> Any:
        return (Composite, (self.in_dtypes, self.steps, self.outputs))

    def dtype_of(self, ref: int) -> str:
        nin = len(self.in_dtypes)
        return self.in_dtypes[ref] if ref < nin else self.steps[ref - nin][2]

    def output_dtypes(self, *in_dtypes: str) -> list[str]:
        return [self.dtype_of(r) for r in self.outputs]

    def compute(self, values: Sequence[Any], out_dtype: str) -> Any:
        return self._evaluate(*values)

    def _out_dtype(self, *in_dtypes: str) -> str:
        return self.dtype_of(self.outputs[0])

    def _describe(self) -> str:
        """``Composite{t0=sub(i0, i1); gt(sigmoid(t0), i2), ...}``: steps used more than once
        are named, so that the text shows each computation once (outputs too: written out at
        each use, a chain of outputs each read by the next doubled the text at every link)."""
        nin = len(self.in_dtypes)
        uses = [0] * (nin + len(self.steps))
        for _, args, _ in self.steps:
            for a in args:
                uses[a] += 1
        for r in self.outputs:
            uses[r] += 1
        names = [f"i{k}" for k in range(nin)]
        bindings = []
        for k, (op, args, _) in enumerate(self.steps):
            text = f"{op.name}({', '.join(names[a] for a in args)})"
            ref = nin + k
            if uses[ref] > 1:
                names.append(f"t{len(bindings)}")
                bindings.append(f"{names[-1]}={text}")
            else:
                names.append(text)
        body = ", ".join(names[r] for r in self.outputs)
        return "Composite{" + "; ".join(bindings + [body]) + "}"

    def _evaluate(self, *inputs: Any) -> Any:
        values = list(inputs)
        for op, args, dtype in self.steps:
            values.append(op.compute([values[a] for a in args], dtype))
        outs = [values[r] for r in self.outputs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def grad(self, inputs: Sequence[Any], output: Any, gz: Any) -> list:
        raise NotImplementedError("Composite ops are built after differentiation; take the "
                                  "gradient of the unfused graph")

    def inner_ops(self) -> list[str]:
        """Names of the scalar ops fused in (the profiler lists them)."""
        return [op.name for op, _, _ in self.steps]
