"""Theano's ``theano.sandbox.multinomial``: the ops turning uniform draws into categorical ones
(:mod:`jitgraph.random.multinomial`), with the deprecated name of ``ChoiceFromUniform``."""

from __future__ import annotations

import warnings

from jitgraph.random.multinomial import ChoiceFromUniform, MultinomialFromUniform


class MultinomialWOReplacementFromUniform(ChoiceFromUniform):
    """Theano 1.0's deprecated name of :class:`ChoiceFromUniform` (it warns, then behaves the
    same)."""

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn("MultinomialWOReplacementFromUniform is deprecated, use "
                      "ChoiceFromUniform instead.", DeprecationWarning, stacklevel=2)
        super().__init__(*args, **kwargs)


__all__ = ["ChoiceFromUniform", "MultinomialFromUniform", "MultinomialWOReplacementFromUniform"]
