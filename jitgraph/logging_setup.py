"""The ``jitgraph`` logger, set up as Theano set up ``theano``'s.

On import, the ``jitgraph`` logger gets level WARNING, and, unless the application already
configured logging (a handler on the root logger), a stderr handler printing
``LEVEL (logger name): message``. :func:`disable_log_handler` removes that handler;
:func:`has_handlers` says whether a logger's records reach any handler.
"""

from __future__ import annotations

import logging

jitgraph_logger = logging.getLogger("jitgraph")
default_handler = logging.StreamHandler()
default_handler.setFormatter(logging.Formatter(fmt="%(levelname)s (%(name)s): %(message)s"))


def has_handlers(logger: logging.Logger) -> bool:
    """Whether ``logger`` or an ancestor its records propagate to has a handler."""
    return logger.hasHandlers()


def disable_log_handler(logger: logging.Logger = jitgraph_logger,
                        handler: logging.Handler = default_handler) -> None:
    """Removes ``handler`` (by default the one jitgraph installed) from ``logger``."""
    if has_handlers(logger):
        logger.removeHandler(handler)


def _install() -> None:
    jitgraph_logger.setLevel(logging.WARNING)
    if not has_handlers(jitgraph_logger):
        jitgraph_logger.addHandler(default_handler)


_install()
