"""The Theano facade's module paths: one table (:mod:`.paths`) of Theano module paths ->
jitgraph objects, served by one import finder (:mod:`.finder`) that ``jitgraph/__init__.py``
installs first. This package is the top floor: it imports the layers below it, and no
implementation package imports it."""
