"""Saving and loading with pickle, as Theano's ``theano.misc.pkl_utils``.

:func:`dump` writes a zip file: the pickle of the object under the entry ``pkl`` and every NumPy
array the object holds as an entry of its own in ``.npy`` format, named after the shared variable
that holds it (``W``, a second ``W`` as ``W_2``) or ``array_0``, ``array_1``, ... An array held
in several places is stored once. The file opens with ``numpy.load`` too (one key per entry), and
:func:`load` rebuilds the object, shared variables and compiled functions included::

    with open("model.zip", "wb") as f:
        dump({"params": [W, b], "train": train_fn}, f)
    with open("model.zip", "rb") as f:
        saved = load(f)

The layout is Theano 1.0's, so a file written by Theano's ``dump`` that holds arrays, containers
and shared variables loads here (see :mod:`jitgraph.misc.theano_pickles`).
"""

from __future__ import annotations

import copyreg
import pickle
import zipfile
from collections import defaultdict
from contextlib import closing
from io import BytesIO
from typing import IO, Any, Callable

import numpy as np

from jitgraph.backend_gpu.types import to_device
from jitgraph.config import config
from jitgraph.graph.basic import Scratchpad
from jitgraph.misc.theano_pickles import TheanoClassesMixin

__all__ = ["CompatUnpickler", "DEFAULT_PROTOCOL", "HIGHEST_PROTOCOL", "PersistentGpuArrayID",
           "PersistentNdarrayID", "PersistentNdarrayLoad", "PersistentSharedVariableID",
           "StripPickler", "dump", "load", "zipadd"]

DEFAULT_PROTOCOL = pickle.DEFAULT_PROTOCOL
HIGHEST_PROTOCOL = pickle.HIGHEST_PROTOCOL

#: the zip entry that holds the pickle itself; no array may be stored under this name
PICKLE_ENTRY = "pkl"


class StripPickler(pickle.Pickler):
    """A pickler that leaves out what a variable only carries for debugging: the ``trace``
    (creation stack) and ``test_value`` of every variable's and node's ``tag``, plus the tag
    names in ``extra_tag_to_remove``. The objects themselves are not changed.

    The default protocol is 0, as Theano's (text, larger and slower to write than the binary
    protocols; pass ``protocol=-1`` for the highest). Only the stripped pickle can use protocols
    0 and 1: the creation stacks it drops hold objects those protocols cannot pickle.

    ::

        with open("graph.pkl", "wb") as f:
            StripPickler(f, protocol=-1).dump(dict(inputs=inputs, outputs=outputs))
    """

    def __init__(self, file: IO[bytes], protocol: int | None = 0,
                 extra_tag_to_remove: list[str] | tuple[str, ...] | None = None) -> None:
        super().__init__(file, protocol)
        self.tag_to_remove = ["trace", "test_value", *(extra_tag_to_remove or ())]
        self._scratchpad = Scratchpad

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is self._scratchpad and any(t in obj.__dict__ for t in self.tag_to_remove):
            kept = {k: v for k, v in obj.__dict__.items() if k not in self.tag_to_remove}
            return (self._scratchpad, (), kept)
        return NotImplemented


def zipadd(func: Callable[[IO[bytes]], Any], zip_file: zipfile.ZipFile, name: str) -> None:
    """Call ``func`` with a writable file whose content becomes the entry ``name`` of
    ``zip_file`` (streamed into the archive; nothing is written to a temporary file)."""
    with zip_file.open(name, "w", force_zip64=True) as entry:
        func(entry)


#: types whose instances are never stored apart (persistent ids are asked about every object)
_NEVER_ARRAYS = frozenset({str, int, float, bool, type(None), tuple, list, dict, bytes, type})


def _is_device_array(obj: Any) -> bool:
    return type(obj).__module__.startswith("cupy") and hasattr(obj, "__cuda_array_interface__")


class PersistentNdarrayID:
    """A pickler's ``persistent_id`` that stores each NumPy array in ``zip_file`` as a ``.npy``
    entry (``array_0``, ``array_1``, ...) and puts ``"ndarray.<entry>"`` in the pickle instead.

    Only exact ``numpy.ndarray`` instances are stored apart (subclasses such as ``np.matrix``
    and masked arrays, NumPy scalars and arrays of Python objects stay in the pickle). An array
    met twice is stored once. A persistent id is ``"<kind>.<entry>"``: the kind tells the
    loader what to rebuild, the entry name is for people.
    """

    def __init__(self, zip_file: zipfile.ZipFile) -> None:
        self.zip_file = zip_file
        self.count = 0
        # id(array) -> (persistent id, the array): holding the array keeps its id from being
        # reused by a temporary array pickled later (a __getstate__ may build such arrays)
        self.seen: dict[int, tuple[str, Any]] = {}
        self.used_names = {PICKLE_ENTRY}

    def _resolve_name(self, obj: Any) -> str:
        """The entry name for ``obj``: the next free ``array_<n>``."""
        while True:
            name = f"array_{self.count}"
            self.count += 1
            if name not in self.used_names:
                return name

    def _store(self, obj: Any, kind: str, to_host: Callable[[Any], np.ndarray]) -> str:
        if id(obj) not in self.seen:
            name = self._resolve_name(obj)
            self.used_names.add(name)
            host = to_host(obj)
            zipadd(lambda f: np.lib.format.write_array(f, host, allow_pickle=False),
                   self.zip_file, name)
            self.seen[id(obj)] = (f"{kind}.{name}", obj)
        return self.seen[id(obj)][0]

    def __call__(self, obj: Any) -> str | None:
        if type(obj) is np.ndarray and not obj.dtype.hasobject:
            return self._store(obj, "ndarray", np.asarray)
        return None


class PersistentGpuArrayID(PersistentNdarrayID):
    """Also stores CuPy (device) arrays, as ``"gpuarray.<entry>"``: the entry holds the array's
    host copy, and :class:`PersistentNdarrayLoad` puts it back on the device when one is in use."""

    def __call__(self, obj: Any) -> str | None:
        kind = type(obj)
        if kind is not np.ndarray and kind not in _NEVER_ARRAYS and _is_device_array(obj):
            return self._store(obj, "gpuarray", lambda device_array: device_array.get())
        return super().__call__(obj)


class PersistentSharedVariableID(PersistentGpuArrayID):
    """Names each array's entry after the shared variable that holds it.

    A shared variable named ``W`` has its value stored as ``W``, a second variable named ``W``
    as ``W_2``, and so on; arrays of unnamed variables and other arrays are ``array_<n>``.

    ``allow_unnamed=False`` makes an unnamed shared variable an error, ``allow_duplicates=False``
    two shared variables of the same name (ValueError). The name ``pkl`` is the pickle's own
    entry: a shared variable of that name is refused too.
    """

    def __init__(self, zip_file: zipfile.ZipFile, allow_unnamed: bool = True,
                 allow_duplicates: bool = True) -> None:
        from jitgraph.graph.shared import SharedVariable

        super().__init__(zip_file)
        self._shared_class = SharedVariable  # called for every object pickled: no import there
        self.name_counter: defaultdict[str, int] = defaultdict(int)
        self.ndarray_names: dict[int, tuple[str, Any]] = {}
        self.allow_unnamed = allow_unnamed
        self.allow_duplicates = allow_duplicates

    def _resolve_name(self, obj: Any) -> str:
        if id(obj) not in self.ndarray_names:
            return super()._resolve_name(obj)
        base = self.ndarray_names[id(obj)][0]
        count = self.name_counter[base]
        if count and not self.allow_duplicates:
            raise ValueError(f"dump: two shared variables are named {base!r} "
                             "(allow_duplicates=False)")
        name = base if count == 0 else f"{base}_{count + 1}"
        while name in self.used_names:  # e.g. a variable named 'W_2' beside two named 'W'
            count += 1
            name = f"{base}_{count + 1}"
        self.name_counter[base] = count + 1
        return name

    def __call__(self, obj: Any) -> str | None:
        if type(obj) in _NEVER_ARRAYS:
            return None
        if isinstance(obj, self._shared_class):
            if obj.name:
                if obj.name == PICKLE_ENTRY:
                    raise ValueError(f"dump: a shared variable named {PICKLE_ENTRY!r} cannot be "
                                     "saved: that is the name of the pickle's own zip entry; "
                                     "rename the variable")
                value = obj.get_value(borrow=True, return_internal_type=True)
                self.ndarray_names[id(value)] = (obj.name, value)
            elif not self.allow_unnamed:
                raise ValueError(f"dump: unnamed shared variable {obj} ({obj.type}); name it, "
                                 "or pass allow_unnamed=True")
        return super().__call__(obj)


class _ZipPickler(pickle.Pickler):
    """The pickler of :func:`dump`. A shared variable on the GPU pickles a host copy of its
    value (a new array each time); here its state keeps the device array itself, so that the
    persistent ids see the array the variable holds: it is stored once, named after the
    variable, as a ``gpuarray`` entry (Theano's layout for GPU shared variables)."""

    def __init__(self, file: IO[bytes], protocol: int | None) -> None:
        from jitgraph.graph.shared import SharedVariable

        super().__init__(file, protocol)
        self._shared_class = SharedVariable  # called for every object pickled: no import there

    def reducer_override(self, obj: Any) -> Any:
        SharedVariable = self._shared_class
        if not isinstance(obj, SharedVariable):
            return NotImplemented
        value = obj.get_value(borrow=True, return_internal_type=True)
        if not _is_device_array(value):
            return NotImplemented
        # SharedVariable's own state (the subclass's __getstate__ would copy the value to the
        # host), with the device array in the value's slot
        state = SharedVariable.__getstate__(obj)
        state["_value"] = value
        return (copyreg.__newobj__, (type(obj),), state)


class PersistentNdarrayLoad:
    """A unpickler's ``persistent_load`` that reads the arrays :class:`PersistentNdarrayID`
    (and Theano's ``dump``) stored in ``zip_file``; each entry is read once."""

    def __init__(self, zip_file: zipfile.ZipFile) -> None:
        self.zip_file = zip_file
        self.cache: dict[str, Any] = {}

    def __call__(self, persid: str | bytes) -> Any:
        if isinstance(persid, bytes):
            persid = persid.decode("utf-8")
        kind, sep, name = persid.partition(".")
        if not sep or kind not in ("ndarray", "gpuarray", "cuda_ndarray"):
            raise pickle.UnpicklingError(f"load: unknown persistent id {persid!r} (expected "
                                         "'ndarray.<entry>' or 'gpuarray.<entry>')")
        if name not in self.cache:
            with self.zip_file.open(name) as f:
                # the archive is as trusted as the pickle beside it, which can run any code
                value = np.lib.format.read_array(f, allow_pickle=True)
            if kind != "ndarray":
                value = _to_device_if_active(value)
            self.cache[name] = value
        return self.cache[name]


def _to_device_if_active(value: np.ndarray) -> Any:
    """A device array for ``value`` when a GPU is in use (and ``experimental.unpickle_gpu_on_cpu``
    is off), else ``value`` itself."""
    import sys

    device = sys.modules.get("jitgraph.backend_gpu.device")
    if config.experimental.unpickle_gpu_on_cpu or device is None or device.active() is None:
        return value

    return to_device(value)


class _ZipUnpickler(TheanoClassesMixin, pickle.Unpickler):
    """The unpickler of :func:`load`: also reads the Theano classes of a Theano-written file."""


class CompatUnpickler(TheanoClassesMixin, pickle.Unpickler):
    """An unpickler for pickles written by older programs: by Python 2 (its NumPy arrays are
    byte strings, read here as latin-1 unless ``encoding`` says otherwise) and by Theano (its
    shared variables load as jitgraph's; see :mod:`jitgraph.misc.theano_pickles`)::

        with open("model_py2.pkl", "rb") as f:
            model = CompatUnpickler(f, encoding="latin1").load()
    """

    def __init__(self, file: IO[bytes], *, encoding: str = "latin1", **kwargs: Any) -> None:
        super().__init__(file, encoding=encoding, **kwargs)


def dump(obj: Any, file_handler: IO[bytes] | str, protocol: int = DEFAULT_PROTOCOL,
         persistent_id: Callable[[zipfile.ZipFile], Callable[[Any], Any]]
         = PersistentSharedVariableID) -> None:
    """Pickle ``obj`` into a zip file (an open binary file, or a path), each array apart.

    ``persistent_id(zip_file)`` makes the pickler's persistent-id callable: the default,
    :class:`PersistentSharedVariableID`, names the arrays after their shared variables;
    :class:`PersistentNdarrayID` numbers them all.

    >>> foo_1 = jitgraph.shared(0, name='foo')
    >>> foo_2 = jitgraph.shared(1, name='foo')
    >>> with open('model.zip', 'wb') as f:
    ...     dump((foo_1, foo_2, np.array(2)), f)
    >>> sorted(np.load('model.zip').keys())
    ['array_0', 'foo', 'foo_2', 'pkl']
    """
    with closing(zipfile.ZipFile(file_handler, "w", zipfile.ZIP_DEFLATED,
                                 allowZip64=True)) as zip_file:
        # pickled into memory first: the arrays become entries of their own while the pickler
        # runs, and a zip file has only one entry open for writing at a time
        buffer = BytesIO()
        pickler = _ZipPickler(buffer, protocol=protocol)
        pickler.persistent_id = persistent_id(zip_file)
        pickler.dump(obj)
        zipadd(lambda entry: entry.write(buffer.getbuffer()), zip_file, PICKLE_ENTRY)


def load(f: IO[bytes] | str, persistent_load: Callable[[zipfile.ZipFile], Callable[[Any], Any]]
         = PersistentNdarrayLoad) -> Any:
    """The object saved by :func:`dump` (or by Theano's ``dump``) in the zip file ``f`` (an
    open binary file, or a path).

    Loading runs the pickle: load only files you trust.
    """
    with closing(zipfile.ZipFile(f, "r")) as zip_file:
        if PICKLE_ENTRY not in zip_file.namelist():
            raise ValueError(f"load: {getattr(f, 'name', f)!r} has no {PICKLE_ENTRY!r} entry; "
                             "it was not written by dump() (a plain pickle file is read with "
                             "pickle.load)")
        unpickler = _ZipUnpickler(BytesIO(zip_file.read(PICKLE_ENTRY)))
        unpickler.persistent_load = persistent_load(zip_file)
        return unpickler.load()
