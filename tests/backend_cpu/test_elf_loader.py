"""The ELF object loader (:mod:`jitgraph.backend_cpu.native.elf_loader`): objects emitted by LLVM
load
and run like MCJIT's, and anything it cannot handle is refused, not half-loaded."""

from __future__ import annotations

import ctypes
import math

import pytest

from jitgraph.backend_cpu.native import elf_loader, objects as native

pytestmark = pytest.mark.skipif(not elf_loader.usable(), reason="ELF loader: Linux x86-64 only")

# Code, read-only data (a table), writable data (a counter), a call to libm and to a symbol the
# caller provides: every kind of reference a kernel object makes.
IR = r"""
@table = private unnamed_addr constant [4 x double] [double 1.0, double 2.0, double 4.0, double 8.0]
@calls = internal global i64 0
declare double @exp(double)
declare double @jg_test_provided(double)

define internal double @helper(double %x, i64 %i) {
  %p = getelementptr [4 x double], ptr @table, i64 0, i64 %i
  %t = load double, ptr %p
  %m = fmul double %x, %t
  ret double %m
}

define double @jg_test_exported(double %x, i64 %i) {
  %n = load i64, ptr @calls
  %n1 = add i64 %n, 1
  store i64 %n1, ptr @calls
  %h = call double @helper(double %x, i64 %i)
  %e = call double @exp(double %h)
  %q = call double @jg_test_provided(double %e)
  %c = sitofp i64 %n1 to double
  %r = fadd double %q, %c
  ret double %r
}
"""

_PROVIDED = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(lambda v: v * 10.0)


def _object(ir: str = IR) -> bytes:
    llvm = native._llvm()
    module = llvm.parse_assembly(ir)
    module.verify()
    return native._target_machine("").emit_object(module)


def _resolver(extra: dict | None = None):
    table = {"jg_test_provided": ctypes.cast(_PROVIDED, ctypes.c_void_p).value, **(extra or {})}
    return lambda name: table.get(name) or elf_loader.process_symbol(name)


def test_object_loads_and_runs_with_every_kind_of_reference():
    exports = elf_loader.load(_object(), _resolver())
    assert set(exports) == {"jg_test_exported"}
    fn = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int64)(
        exports["jg_test_exported"])
    assert fn(0.5, 2) == pytest.approx(math.exp(0.5 * 4.0) * 10.0 + 1.0, rel=1e-15)
    assert fn(1.0, 3) == pytest.approx(math.exp(8.0) * 10.0 + 2.0, rel=1e-15)  # counter kept


def test_each_load_gets_its_own_copy():
    code = _object()
    first = elf_loader.load(code, _resolver())["jg_test_exported"]
    second = elf_loader.load(code, _resolver())["jg_test_exported"]
    assert first != second
    call = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int64)
    assert call(first)(0.0, 0) == call(second)(0.0, 0) == 11.0


def test_unresolved_symbol_is_reported_by_name():
    ir = IR.replace("jg_test_provided", "jg_test_nowhere_to_be_found")
    with pytest.raises(elf_loader.UnresolvedSymbol, match="jg_test_nowhere_to_be_found"):
        elf_loader.load(_object(ir), _resolver())


@pytest.mark.parametrize("damage", ["not-elf", "32-bit", "shared-object", "other-machine"])
def test_objects_it_does_not_understand_are_refused(damage):
    data = bytearray(_object())
    if damage == "not-elf":
        data[:4] = b"\0asm"
    elif damage == "32-bit":
        data[4] = 1
    elif damage == "shared-object":
        data[16] = 3
    else:
        data[18] = 183  # aarch64
    with pytest.raises(elf_loader.UnsupportedObject):
        elf_loader.load(bytes(data), _resolver())


def test_unknown_relocation_type_is_refused():
    """A relocation kind outside the handled few (here: made up) is refused, so the object goes
    to MCJIT instead of running with an unpatched address."""
    code = bytearray(_object())
    sections = elf_loader._sections(memoryview(bytes(code)))
    rela = next(s for s in sections if s[1] == elf_loader._SHT_RELA and s[7] in
                elf_loader._layout(sections)[0])
    offset = rela[4] + 8  # r_info of the first relocation
    info = int.from_bytes(code[offset:offset + 8], "little")
    code[offset:offset + 8] = ((info >> 32 << 32) | 37).to_bytes(8, "little")
    with pytest.raises(elf_loader.UnsupportedObject, match="relocation type 37"):
        elf_loader.load(bytes(code), _resolver())


def test_process_symbol_finds_the_c_api_and_libm():
    assert elf_loader.process_symbol("PyLong_FromLong")
    assert elf_loader.process_symbol("exp")
    assert elf_loader.process_symbol("jg_test_surely_not_a_symbol") is None
