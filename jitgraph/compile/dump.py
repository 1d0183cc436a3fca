"""``function_dump``: save what a ``function`` call was given, to rebuild it elsewhere.

The file is a pickle of a dict of ``function``'s keyword arguments, so that::

    with open(filename, "rb") as f:
        kwargs = pickle.load(f)
    fn = jitgraph.function(**kwargs)

compiles the same function (for bug reports, or to move a graph to another process). Variable
annotations that tie a graph to the process that built it (the creation ``trace``, the
``test_value``, and any tag named in ``extra_tag_to_remove``) are left out of the pickle; the
graph itself is not modified.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, Sequence

from jitgraph.graph.basic import Scratchpad

#: tags dropped from every variable when dumping
DEFAULT_TAGS_TO_REMOVE = ("trace", "test_value")


def _scratchpad(state: dict) -> Scratchpad:
    pad = Scratchpad()
    pad.__dict__.update(state)
    return pad


class StripPickler(pickle.Pickler):
    """A pickler that writes variable tags without the annotations named in ``tags``."""

    def __init__(self, file: Any, protocol: int = pickle.HIGHEST_PROTOCOL,
                 extra_tag_to_remove: Sequence[str] | None = None) -> None:
        super().__init__(file, protocol=protocol)
        self.tags = set(DEFAULT_TAGS_TO_REMOVE) | set(extra_tag_to_remove or ())

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Scratchpad:
            kept = {k: v for k, v in obj.__dict__.items() if k not in self.tags}
            return (_scratchpad, (kept,))
        return NotImplemented


def function_dump(filename: str, inputs: Sequence[Any], outputs: Any = None, mode: Any = None,
                  updates: Any = None, givens: Any = None, no_default_updates: Any = False,
                  accept_inplace: bool = False, name: str | None = None,
                  rebuild_strict: bool = True, allow_input_downcast: bool | None = None,
                  profile: Any = None, on_unused_input: str | None = None,
                  extra_tag_to_remove: Sequence[str] | None = None) -> None:
    """Write ``function``'s arguments to ``filename`` (a pickle of a dict that
    ``jitgraph.function(**pickle.load(f))`` compiles); see the module docstring."""
    if not isinstance(filename, str):
        raise TypeError(f"function_dump needs a file name (str), got {type(filename).__name__}")
    kwargs = {"inputs": inputs, "outputs": outputs, "mode": mode, "updates": updates,
              "givens": givens, "no_default_updates": no_default_updates,
              "accept_inplace": accept_inplace, "name": name, "rebuild_strict": rebuild_strict,
              "allow_input_downcast": allow_input_downcast, "profile": profile,
              "on_unused_input": on_unused_input}
    buffer = io.BytesIO()  # pickle fully before touching the file: no half-written dump
    StripPickler(buffer, extra_tag_to_remove=extra_tag_to_remove).dump(kwargs)
    with open(filename, "wb") as f:
        f.write(buffer.getvalue())


__all__ = ["function_dump", "StripPickler"]
