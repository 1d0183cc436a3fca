"""Installed by theano-on-jitgraph: ``import theano`` gives jitgraph in every process of this
environment (see ``jitgraph.theano_compat``).

The ``theano_on_jitgraph.pth`` file next to this module imports it when Python starts; it only
puts a small finder on ``sys.meta_path`` and imports nothing else, so processes that never
import ``theano`` pay nothing. On the first ``import theano`` the finder turns on jitgraph's
alias -- unless ``JITGRAPH_THEANO_ALIAS=0`` is set, which lets a real Theano load instead. A
real Theano installed beside it is left as it is; while the alias is on, importing ``theano``
warns once that jitgraph is the one used.
"""

import os
import sys


class TheanoOnJitgraph:
    """Turns jitgraph's Theano alias on at the first ``import theano``, then steps aside."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "theano" and not fullname.startswith("theano."):
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        switch = os.environ.get("JITGRAPH_THEANO_ALIAS", "1").strip().lower()
        if switch in ("0", "false", "no", "off"):
            return None
        from jitgraph.theano_compat import provide_theano

        return provide_theano().find_spec(fullname, path, target)


def install():
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, TheanoOnJitgraph) for f in sys.meta_path):
        sys.meta_path.insert(0, TheanoOnJitgraph())


install()
