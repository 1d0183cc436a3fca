"""``theano.version``: the version of the installed package as strings.

The values are jitgraph's own version (:data:`jitgraph.__version__`), not Theano's: code that
prints or records the version should see what is installed. ``theano_version`` says which
Theano release jitgraph follows.
"""

from jitgraph import __version__

version: str = __version__
short_version: str = __version__
full_version: str = __version__
#: jitgraph's releases are tagged releases, never development snapshots
release: bool = True
#: jitgraph is not built from a git checkout at install time; the revision is not recorded
git_revision: str = "unknown"
#: what Theano's module reports when its version cannot be read: the version plus "+unknown"
FALLBACK_VERSION: str = __version__ + "+unknown"
#: the Theano release whose API jitgraph follows
theano_version: str = "1.0.5"

__all__ = ["version", "short_version", "full_version", "release", "git_revision",
           "FALLBACK_VERSION", "theano_version"]
