"""``theano.misc.cpucount``: the number of CPUs."""

import os


def cpuCount() -> int:  # noqa: N802  (Theano's name)
    """The number of CPUs this process may run on (its affinity set where the OS tells it,
    else the machine's count); -1 when it cannot be found."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or -1


__all__ = ["cpuCount"]
