"""The lowering modules of optional op families (sparse, linear algebra, random, scan, ifelse,
convolution, pooling, extra ops) are imported only when a node of such an op is lowered, and
lowering lazily picks exactly the lowering that importing everything picks, for every op class."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from jitgraph.backend_cpu.lowering.registry import FAMILY_LOWERINGS

#: every op class jitgraph defines (after importing every lowering and the op packages) and the
#: lowering its class dispatches to: ``{module:qualname: lowering module.qualname}``; and, for
#: each family lowering module, the classes whose registry entry its import added or changed
EAGER = textwrap.dedent('''
    import json, importlib
    import jitgraph.sparse, jitgraph.scan, jitgraph.ifelse, jitgraph.random, jitgraph.tensor
    from jitgraph.graph.op import Op
    from jitgraph.backend_cpu.lowering import registry
    from jitgraph.backend_cpu.lowering.registry import load_all_lowerings, load_lowerings, lower

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    def name(cls):
        return f"{cls.__module__}:{cls.__qualname__}"

    load_lowerings()
    registered = {}
    for family in dict.fromkeys(registry.FAMILY_LOWERINGS.values()):
        before = dict(lower.registry)
        importlib.import_module(f"jitgraph.backend_cpu.lowering.{family}")
        registered[family] = sorted(name(cls) for cls, fn in lower.registry.items()
                                    if before.get(cls) is not fn)
    load_all_lowerings()
    dispatch = {}
    for cls in set(subclasses(Op)):
        if cls.__module__.startswith("jitgraph.") and "<locals>" not in cls.__qualname__:
            fn = lower.dispatch(cls)
            dispatch[name(cls)] = f"{fn.__module__}.{fn.__qualname__}"
    families = {n: sorted({registry._family_of(c.__module__) for c in cls.__mro__} - {None})
                for n, cls in ((name(c), c) for cls0 in [Op] for c in subclasses(cls0))}
    print(json.dumps({"dispatch": dispatch, "registered": registered, "families": families}))
''')

#: the same classes, each looked up the way the driver does (its family loaded on demand)
LAZY = textwrap.dedent('''
    import json, sys, importlib
    from jitgraph.backend_cpu.lowering.registry import load_lowerings_for, lower
    names = json.loads(sys.stdin.read())
    classes = {}
    for name in names:
        module, qualname = name.split(":")
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        classes[name] = obj
    out = {}
    for name in names:
        load_lowerings_for(classes[name])
        fn = lower.dispatch(classes[name])
        out[name] = f"{fn.__module__}.{fn.__qualname__}"
    print(json.dumps(out))
''')

#: a dense training step compiled cold: which lowering modules did it import?
DENSE = textwrap.dedent('''
    import json, sys
    import numpy as np
    import jitgraph, jitgraph.tensor as T
    x, y = T.matrix("x"), T.vector("y")
    w = jitgraph.shared(np.zeros(3), name="w")
    cost = ((T.dot(x, w) - y) ** 2).mean()
    step = jitgraph.function([x, y], cost, updates=[(w, w - 0.1 * T.grad(cost, w))])
    step(np.ones((4, 3)), np.ones(4))
    print(json.dumps(sorted(m for m in sys.modules
                            if m.startswith("jitgraph.backend_cpu.lowering."))))
''')


def _child(source: str, stdin: str = "") -> object:
    env = dict(os.environ, JITGRAPH_GRAPH_CACHE="0")  # lower the graph, not load its program
    proc = subprocess.run([sys.executable, "-c", source], input=stdin, capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_family_lowerings_register_only_their_families_ops():
    """Each family module registers lowerings only for op classes that load it on demand."""
    eager = _child(EAGER)
    stray = {family: [n for n in names if family not in eager["families"].get(n, [])]
             for family, names in eager["registered"].items()}
    stray = {family: names for family, names in stray.items() if names}
    assert all(eager["registered"].values()), eager["registered"]
    assert not stray, ("these family lowering modules register lowerings for op classes that "
                       f"do not load them (list the classes' modules in FAMILY_LOWERINGS): {stray}")


def test_lazy_family_lowerings_dispatch_as_eager_loading():
    eager = _child(EAGER)["dispatch"]
    assert len(eager) > 200, "the op classes were not found"
    for order in (sorted(eager), sorted(eager, reverse=True)):
        lazy = _child(LAZY, json.dumps(order))
        differ = {n: (eager[n], lazy[n]) for n in eager if eager[n] != lazy[n]}
        assert not differ, ("these op classes lower differently when their family's lowering "
                            f"is loaded on demand (eager, lazy): {differ}; list the modules "
                            "defining them under their lowering module in FAMILY_LOWERINGS")


def test_dense_compile_imports_no_family_lowering():
    loaded = set(_child(DENSE))
    families = {f"jitgraph.backend_cpu.lowering.{name}" for name in FAMILY_LOWERINGS.values()}
    assert "jitgraph.backend_cpu.lowering.elemwise" in loaded
    assert not loaded & families, f"a dense graph imported {sorted(loaded & families)}"
