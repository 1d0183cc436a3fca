"""``jitgraph-cache`` on whole compiledirs as users have them: one filled by real use (CPU
kernels, native objects, a Numba-cached function, a GPU module compiled by NVRTC, rewritten
graphs) and one written by the previous release, before metadata had a schema (issue 32: ``list``
and ``stats`` crashed on its GPU entries, whose compile time is one float)."""

from __future__ import annotations

import re

from compiledir_testing import cli, copy_compiledir
from jitgraph.cache import metadata
from jitgraph.cache.survey import survey

COMMANDS = (["list"], ["list", "--graphs"], ["stats"], ["explain"])


def _stats_row(output: str, label: str) -> list[str]:
    """The cells of the ``stats`` row ``label``."""
    for line in output.splitlines():
        if line.strip().startswith(label) and re.match(r"\s*" + re.escape(label) + r"\s+\d",
                                                       line):
            return re.split(r"\s{2,}", line.strip())
    raise AssertionError(f"no row {label!r} in:\n{output}")


def _check_clean(status: int, output: str) -> None:
    assert status == 0, output
    assert "Traceback" not in output and "could not read" not in output, output


def test_every_writer_writes_the_current_schema(real_use_compiledir):
    root, has_gpu = real_use_compiledir
    seen = set()
    for path in root.glob("k*/info.json"):
        info = metadata.parse(path.read_bytes(), metadata.ENTRY)
        assert info.schema == metadata.SCHEMA_VERSION and info.written_by
        seen.add(info.kind)
        if info.kind == metadata.GPU_KERNEL:
            assert info.details["arch"] == "sm_90" and re.fullmatch(r"\d+\.\d+",
                                                                    info.details["nvrtc"])
            assert info.compile_seconds["module"] > 0
    for path in root.glob("k*/native-*.json"):
        seen.add(metadata.parse(path.read_bytes(), metadata.FUNCTION).kind)
    for path in root.glob("graphs/g*.json"):
        info = metadata.parse(path.read_bytes(), metadata.GRAPH_FILE)
        assert info.details["bytes"] == path.with_suffix(".pkl").stat().st_size
        assert info.compile_seconds["rewrite"] > 0
        seen.add(info.kind)
    assert seen == {metadata.CPU_KERNEL, metadata.NATIVE_OBJECT, metadata.NUMBA_KERNEL,
                    metadata.GRAPH} | ({metadata.GPU_KERNEL} if has_gpu else set())


def test_real_use_is_listed_and_counted_by_kind(real_use_compiledir):
    root, has_gpu = real_use_compiledir
    for command in COMMANDS:
        _check_clean(*cli("--compiledir", str(root), *command))
    status, listing = cli("--compiledir", str(root), "list", "--graphs")
    if has_gpu:
        (gpu_line,) = [line for line in listing.splitlines() if line.startswith("GPU ")]
        assert re.search(r"sm_90, NVRTC \d+\.\d+", gpu_line), listing
        assert "scale a vector by 2" in gpu_line
    assert re.search(r"\d+ native", listing) and "1 Numba" in listing, listing
    assert len([line for line in listing.splitlines() if line.startswith("graph ")]) == 2
    status, stats = cli("--compiledir", str(root), "stats")
    found = survey(root)
    cpu = found.of_kind(metadata.CPU_KERNEL)
    assert _stats_row(stats, "CPU kernels")[1] == str(len(cpu))
    natives = sum(f.kind == metadata.NATIVE_OBJECT for r in cpu for f in r.functions)
    assert natives >= 2 and _stats_row(stats, "native objects")[1] == str(natives)
    assert _stats_row(stats, "Numba-cached")[1] == "1"
    assert _stats_row(stats, "GPU kernels")[1] == ("1" if has_gpu else "0")
    if has_gpu:
        assert re.search(r"sm_90, NVRTC \d+\.\d+\s+1 ", stats), stats
    assert _stats_row(stats, "rewritten graphs")[1] == "2"
    compile_time = float(_stats_row(stats, "CPU kernels")[3].split()[0])
    assert compile_time > 0


def test_real_use_is_cleaned_and_cleared(real_use_compiledir, tmp_path):
    root = copy_compiledir(real_use_compiledir[0], tmp_path)
    status, output = cli("--compiledir", str(root), "cleanup")
    _check_clean(status, output)
    assert "removed 0 old entries" in output
    entries = len(survey(root).of_kind(metadata.CPU_KERNEL, metadata.GPU_KERNEL))
    status, output = cli("--compiledir", str(root), "clear")
    _check_clean(status, output)
    assert f"removed {entries} entries and 2 rewritten graphs" in output
    assert not survey(root).records


def test_previous_release_is_read_listed_and_cleaned(previous_release_compiledir, tmp_path):
    """A compiledir of the previous release: every entry is read (its GPU module with the
    architecture from info.json and the NVRTC version from its key), nothing is reported as
    unreadable, and cleanup and clear delete what they should."""
    root = copy_compiledir(previous_release_compiledir, tmp_path)
    for command in COMMANDS:
        _check_clean(*cli("--compiledir", str(root), *command))
    status, listing = cli("--compiledir", str(root), "list")
    (gpu_line,) = [line for line in listing.splitlines() if line.startswith("GPU ")]
    assert re.search(r"sm_80, NVRTC \d+\.\d+", gpu_line) and "scale a vector by 2" in gpu_line
    status, stats = cli("--compiledir", str(root), "stats")
    assert _stats_row(stats, "GPU kernels")[1] == "1"
    assert float(_stats_row(stats, "GPU kernels")[3].split()[0]) > 0  # the float compile time
    assert _stats_row(stats, "Numba-cached")[1] == "1"
    assert int(_stats_row(stats, "native objects")[1]) >= 2
    assert _stats_row(stats, "rewritten graphs")[1] == "2"
    found = survey(root)
    assert all(r.readable for r in found.records) and not found.problems
    assert {r.info.schema for r in found.records if r.info is not None} == {1}
    entry = found.of_kind(metadata.GPU_KERNEL)[0].name
    status, explained = cli("--compiledir", str(root), "explain", entry)
    _check_clean(status, explained)
    assert "schema 1" in explained and "nvrtc" in explained
    before = len(found.records)
    status, output = cli("--compiledir", str(root), "cleanup")
    _check_clean(status, output)
    assert len(survey(root).records) == before
    status, output = cli("--compiledir", str(root), "clear")
    _check_clean(status, output)
    assert not survey(root).records


def test_previous_release_entries_are_loaded_by_the_runtime(previous_release_compiledir,
                                                            tmp_path):
    """The readers of the runtime take the unversioned documents too: a native object's
    description and a Numba-cached function's record, as the previous release wrote them."""
    from jitgraph.cache.modules import CachedModule
    from jitgraph.cache.store import Entry
    from jitgraph.cache.survey import entry_key

    root = copy_compiledir(previous_release_compiledir, tmp_path)
    for record in survey(root).of_kind(metadata.CPU_KERNEL):
        cached = CachedModule.__new__(CachedModule)
        cached.entry, cached.root = Entry(record.path), root
        for function in record.functions:
            stored = cached.read_native(function.name)
            assert stored is not None, function
            meta, code = stored
            if function.kind == metadata.NATIVE_OBJECT:
                assert code and meta["export"] and meta["version"] >= 1
            else:
                assert code is None and meta["native"] is False
        assert entry_key(record.path).as_dict()["backend"] == "numba"
