"""A loader for the relocatable ELF objects of :mod:`.native` (Linux on x86-64), without LLVM.

Loading a stored kernel with llvmlite's MCJIT costs the import of llvmlite itself (its shared
library is ~100 MB; opening it and declaring its functions takes 20-30 ms), which is most of a
warm process's start. The objects :mod:`.native` writes are simple: one function exported,
everything else internal, no thread-local storage, no constructors, and, because they are emitted
for the JIT's large code model, every reference to a symbol or to another section is an absolute
64-bit relocation. Loading one is: copy its allocated sections into fresh pages, patch the
relocations, make the code pages executable.

Anything this loader does not know (another machine, a relocation type other than the few handled
here, a common symbol) raises :class:`UnsupportedObject` and :mod:`.native` loads the object
with MCJIT instead; an unresolved symbol raises :class:`UnresolvedSymbol`.
"""

from __future__ import annotations

import ctypes
import mmap
import platform
import struct
import sys
from typing import Callable

_EM_X86_64 = 62
_ET_REL = 1
_SHT_NOBITS, _SHT_RELA, _SHT_SYMTAB, _SHT_X86_64_UNWIND = 8, 4, 2, 0x70000001
_SHF_ALLOC, _SHF_EXECINSTR = 0x2, 0x4
_SHN_UNDEF, _SHN_ABS, _SHN_COMMON = 0, 0xFFF1, 0xFFF2
_STB_LOCAL = 0
_R_X86_64_64, _R_X86_64_PC32, _R_X86_64_PLT32, _R_X86_64_PC64 = 1, 2, 4, 24
_PAGE = mmap.PAGESIZE

_SECTION = struct.Struct("<IIQQQQIIQQ")   # name type flags addr offset size link info align entsize
_SYMBOL = struct.Struct("<IBBHQQ")        # name info other shndx value size
_RELA = struct.Struct("<QQq")             # offset info addend
_QWORD = struct.Struct("<Q")
_SDWORD = struct.Struct("<i")

#: Every mapping made by :func:`load`: code stays mapped for the life of the process.
_mappings: list[tuple[mmap.mmap, ctypes.c_char]] = []


class UnsupportedObject(Exception):
    """The object uses something this loader does not handle (MCJIT can still load it)."""


class UnresolvedSymbol(Exception):
    """An imported symbol has no address in this process."""


def usable() -> bool:
    """Whether this platform's objects can be loaded here (64-bit Linux on x86-64)."""
    return sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64") \
        and sys.maxsize > 2**32


def load(code: bytes, resolve: Callable[[str], int | None]) -> dict[str, int]:
    """Load object ``code``; the addresses of the global symbols it defines.

    ``resolve(name)`` gives the address of an undefined symbol, or None."""
    view = memoryview(code)
    sections = _sections(view)
    symbols, names = _symbols(view, sections)
    layout, code_size, total = _layout(sections)
    mapped = mmap.mmap(-1, max(total, _PAGE), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                       prot=mmap.PROT_READ | mmap.PROT_WRITE)
    anchor = ctypes.c_char.from_buffer(mapped)
    base = ctypes.addressof(anchor)
    for index, offset in layout.items():
        sec = sections[index]
        if sec[1] != _SHT_NOBITS:
            mapped[offset:offset + sec[5]] = view[sec[4]:sec[4] + sec[5]]
    where = {index: base + offset for index, offset in layout.items()}
    addresses = [_symbol_address(sym, name, where, resolve) for sym, name in zip(symbols, names)]
    for sec in sections:
        if sec[1] == _SHT_RELA and sec[7] in layout:
            _relocate(view, sec, mapped, layout[sec[7]], base + layout[sec[7]], addresses)
    if code_size and _mprotect(base, code_size, mmap.PROT_READ | mmap.PROT_EXEC) != 0:
        raise UnsupportedObject("the code pages could not be made executable "
                                f"(errno {ctypes.get_errno()})")
    # (a list of this module is emptied at interpreter shutdown, which would unmap the code
    # while a daemon thread may still run it: the mapping gets a reference never released)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(mapped))
    _mappings.append((mapped, anchor))
    return {name: addr for sym, name, addr in zip(symbols, names, addresses)
            if name and sym[1] >> 4 != _STB_LOCAL and sym[3] != _SHN_UNDEF}


def _sections(view: memoryview) -> list[tuple]:
    if bytes(view[:4]) != b"\x7fELF" or view[4] != 2 or view[5] != 1:
        raise UnsupportedObject("not a 64-bit little-endian ELF object")
    e_type, e_machine = struct.unpack_from("<HH", view, 16)
    if e_type != _ET_REL or e_machine != _EM_X86_64:
        raise UnsupportedObject(f"ELF type {e_type} for machine {e_machine}, expected a "
                                "relocatable x86-64 object")
    (shoff,) = struct.unpack_from("<Q", view, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", view, 0x3A)
    if shentsize != _SECTION.size:
        raise UnsupportedObject(f"section header size {shentsize}")
    return [_SECTION.unpack_from(view, shoff + i * shentsize) for i in range(shnum)]


def _symbols(view: memoryview, sections: list[tuple]) -> tuple[list[tuple], list[str]]:
    tables = [s for s in sections if s[1] == _SHT_SYMTAB]
    if len(tables) != 1:
        raise UnsupportedObject(f"{len(tables)} symbol tables")
    table = tables[0]
    strings = sections[table[6]]
    raw = bytes(view[strings[4]:strings[4] + strings[5]])
    symbols = [_SYMBOL.unpack_from(view, table[4] + i * _SYMBOL.size)
               for i in range(table[5] // _SYMBOL.size)]
    names = [raw[s[0]:raw.index(b"\0", s[0])].decode("utf-8", "replace") if s[0] else ""
             for s in symbols]
    return symbols, names


def _layout(sections: list[tuple]) -> tuple[dict[int, int], int, int]:
    """Offsets of the sections to load: code first (its pages become executable), then data."""
    layout: dict[int, int] = {}
    offset = 0
    for want_code in (True, False):
        for index, sec in enumerate(sections):
            flags = sec[2]
            if not flags & _SHF_ALLOC or sec[1] == _SHT_X86_64_UNWIND or sec[5] == 0:
                continue
            if bool(flags & _SHF_EXECINSTR) != want_code:
                continue
            align = max(sec[8], 1)
            offset = (offset + align - 1) // align * align
            layout[index] = offset
            offset += sec[5]
        if want_code:
            offset = code_size = (offset + _PAGE - 1) // _PAGE * _PAGE
    return layout, code_size, offset


def _symbol_address(sym: tuple, name: str, where: dict[int, int],
                    resolve: Callable[[str], int | None]) -> int:
    shndx = sym[3]
    if shndx == _SHN_UNDEF:
        if not name:
            return 0
        address = resolve(name)
        if not address:
            raise UnresolvedSymbol(name)
        return address
    if shndx == _SHN_ABS:
        return sym[4]
    if shndx == _SHN_COMMON:
        raise UnsupportedObject(f"common symbol {name!r}")
    if shndx not in where:  # a symbol of a section not loaded (e.g. the unwind tables)
        return 0
    return where[shndx] + sym[4]


def _relocate(view: memoryview, rela: tuple, mapped: mmap.mmap, offset: int, address: int,
              symbols: list[int]) -> None:
    for k in range(rela[5] // _RELA.size):
        r_offset, info, addend = _RELA.unpack_from(view, rela[4] + k * _RELA.size)
        kind, target = info & 0xFFFFFFFF, symbols[info >> 32]
        if not target and (info >> 32) != 0:
            raise UnsupportedObject("a relocation against a section that is not loaded")
        place = offset + r_offset
        value = target + addend
        if kind == _R_X86_64_64:
            _QWORD.pack_into(mapped, place, value & 0xFFFFFFFFFFFFFFFF)
        elif kind == _R_X86_64_PC64:
            _QWORD.pack_into(mapped, place, (value - address - r_offset) & 0xFFFFFFFFFFFFFFFF)
        elif kind in (_R_X86_64_PC32, _R_X86_64_PLT32):
            delta = value - address - r_offset
            if not -2**31 <= delta < 2**31:
                raise UnsupportedObject("a 32-bit relative relocation out of range")
            _SDWORD.pack_into(mapped, place, delta)
        else:
            raise UnsupportedObject(f"relocation type {kind}")


def _mprotect(address: int, size: int, prot: int) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.mprotect.restype = ctypes.c_int
    return libc.mprotect(address, size, prot)


_process: ctypes.CDLL | None = None


def process_symbol(name: str) -> int | None:
    """The address of ``name`` among the symbols the process has loaded (``dlsym``)."""
    global _process
    if _process is None:
        try:
            _process = ctypes.CDLL(None)
        except (OSError, TypeError):  # no handle on the process itself (Windows)
            return None
    try:
        fn = _process[name]
    except AttributeError:
        return None
    return ctypes.cast(fn, ctypes.c_void_p).value
