"""The conda recipe (``recipe/meta.yaml``) and the users' ``environment.yml`` ask for what
``pyproject.toml`` asks for, so that neither drifts from it: the same version, Python bound,
runtime requirements, command, and optional extras (run-constrained in the recipe); the CuPy and
CUDA constraints span the ``cuda12``/``cuda13`` extras' CuPy and CUDA majors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

yaml = pytest.importorskip("yaml", reason="PyYAML reads the recipe (dask and myst-parser "
                                          "depend on it)")
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
#: optional extras whose package the recipe constrains and the environment installs
OPTIONAL = {"scipy": "scipy", "pydot": "pydot", "dask": "dask"}


def recipe() -> dict:
    """meta.yaml with its Jinja set-statements evaluated (the recipe uses only ``version``)."""
    text = (ROOT / "recipe" / "meta.yaml").read_text()
    values = dict(re.findall(r'{%\s*set\s+(\w+)\s*=\s*"([^"]*)"\s*%}', text))
    text = re.sub(r"{%.*?%}", "", text)
    text = re.sub(r"{{\s*(\w+)\s*}}", lambda m: values.get(m.group(1), m.group(1)), text)
    return yaml.safe_load(text)


def conda_specs(items: list) -> dict[str, SpecifierSet]:
    """``["numpy >=1.24", ...]`` -> name -> specifier (no spec: any version)."""
    out = {}
    for item in items:
        if isinstance(item, str):
            name, _, spec = item.partition(" ")
            out[name] = SpecifierSet(spec.replace(" ", ""))
    return out


def pip_specs(requirements: list[str]) -> dict[str, SpecifierSet]:
    return {Requirement(r).name: Requirement(r).specifier for r in requirements}


def extra(name: str) -> dict[str, SpecifierSet]:
    return pip_specs(PYPROJECT["optional-dependencies"][name])


def span(specs: list[SpecifierSet]) -> SpecifierSet:
    """The smallest ``>=lo,<hi`` range holding every ``>=a,<b`` of ``specs``."""
    lows = [s.version for spec in specs for s in spec if s.operator == ">="]
    highs = [s.version for spec in specs for s in spec if s.operator == "<"]
    key = lambda v: tuple(int(p) for p in v.split("."))  # noqa: E731
    return SpecifierSet(f">={min(lows, key=key)},<{max(highs, key=key)}")


def expected_runtime() -> dict[str, SpecifierSet]:
    return {"python": SpecifierSet(PYPROJECT["requires-python"]),
            **pip_specs(PYPROJECT["dependencies"])}


def expected_optional() -> dict[str, SpecifierSet]:
    return {package: extra(name)[package] for name, package in OPTIONAL.items()}


def gpu_extras() -> list[dict[str, SpecifierSet]]:
    return [extra(name) for name in ("cuda12", "cuda13")]


def test_recipe_version_and_command_are_pyprojects() -> None:
    meta = recipe()
    assert meta["package"]["version"] == PYPROJECT["version"]
    assert meta["build"]["noarch"] == "python"
    scripts = [f"{name} = {target}" for name, target in PYPROJECT["scripts"].items()]
    assert meta["build"]["entry_points"] == scripts


def test_recipe_run_requirements_are_pyprojects_dependencies() -> None:
    assert conda_specs(recipe()["requirements"]["run"]) == expected_runtime()


def test_recipe_constrains_the_optional_extras_and_the_gpu_stack() -> None:
    constrained = conda_specs(recipe()["requirements"]["run_constrained"])
    cupy = span([spec for e in gpu_extras() for name, spec in e.items()
                 if name.startswith("cupy-")])
    cuda = span([spec for e in gpu_extras() for name, spec in e.items()
                 if name.startswith("nvidia-cuda-nvrtc")])
    assert constrained == {"cupy": cupy, "cuda-version": cuda, **expected_optional()}


def test_environment_installs_the_same_requirements() -> None:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    specs = conda_specs(deps)
    for name, spec in {**expected_runtime(), **expected_optional()}.items():
        assert specs.get(name) == spec, (name, specs.get(name), spec)
    pip_section = next(d["pip"] for d in deps if isinstance(d, dict))
    assert pip_section == ["-e ."]


def test_span_is_the_union_of_the_ranges() -> None:
    """The helper the constraints are checked with (so the checks can fail)."""
    assert span([SpecifierSet(">=13,<15"), SpecifierSet(">=14,<15")]) == SpecifierSet(">=13,<15")
    assert span([SpecifierSet(">=12,<13"), SpecifierSet(">=13,<14")]) == SpecifierSet(">=12,<14")
