"""Every ``jitgraph-cache`` command on damaged compiledirs (issue 32): hypothesis picks which
file of which kind of entry is damaged how (or which leftover of a crash, a newer jitgraph,
another Python or program lies in the compiledir), in a copy of a compiledir filled by real use
or written by the previous release. Every command must exit 0 without a traceback, name the
damaged path in its report, never load a pickle it does not need (a hostile one would create a
marker), never follow a link out of the compiledir, and delete what it could not read only
under ``cleanup --unreadable``."""

from __future__ import annotations

import json
import os
import pickle
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from compiledir_testing import cli, copy_compiledir, files_under
from jitgraph.cache import metadata
from jitgraph.cache.survey import survey

#: what reads the compiledir and must name what it could not read
READING = (["list"], ["list", "--graphs"], ["stats"], ["explain"])


@dataclass(frozen=True)
class Target:
    """A file of an entry of a template compiledir, and how it may be damaged."""

    template: int          # 0: filled by real use, 1: the previous release's
    record: str            # the entry's name (a graph's stem)
    relpath: str
    role: str              # key, json, source, object, cubin, graph
    legacy: bool           # the previous release wrote it (no checksums, no graph descriptions)


def _targets(template: int, root: Path) -> list[Target]:
    targets = []
    legacy = template == 1
    for record in survey(root).records:
        rel = record.path.relative_to(root)
        if record.kind == metadata.GRAPH:
            stem = record.path.stem
            targets.append(Target(template, stem, str(rel), "graph", legacy))
            if record.path.with_suffix(".json").exists():
                targets.append(Target(template, stem, str(rel.with_suffix(".json")), "json",
                                      legacy))
            continue
        files = {"key.pkl": "key", "info.json": "json"}
        files.update({"mod.cubin": "cubin"} if record.kind == metadata.GPU_KERNEL
                     else {"mod.py": "source"})
        for path in record.path.glob("native-*"):
            files[path.name] = "json" if path.suffix == ".json" else "object"
        targets += [Target(template, record.name, str(rel / name), role, legacy)
                    for name, role in sorted(files.items())]
    return targets


DAMAGES = {"key": ["delete", "empty", "folder", "link", "truncate", "garbage", "hostile"],
           "json": ["delete", "empty", "folder", "link", "truncate", "garbage", "shape",
                    "newer", "field"],
           "source": ["delete", "folder", "link"],
           "object": ["delete", "empty", "folder", "link", "truncate", "garbage"],
           "cubin": ["delete", "empty", "folder", "link", "truncate", "garbage"],
           "graph": ["delete", "empty", "folder", "link", "truncate", "garbage", "hostile"]}
#: JSON documents of a shape no metadata file has ever had
SHAPES = [[], 3, "text", None, [{"schema": 2}], {"schema": "2"}, {"schema": 1},
          {"schema": 2, "kind": 5}, {"compile_seconds": "fast"}, {"ops": {"a": 1}},
          {"native": "maybe"}, {"schema": 2, "kind": "graph", "details": []}]
#: per kind of document, fields set to a value of the wrong type
BAD_FIELDS = {"current": [("compile_seconds", "fast"), ("compile_seconds", {"f": -1}),
                          ("entry", "warp-drive"), ("entry", 5), ("description", 5),
                          ("schema", "2"), ("written_by", 7)],
              "entry": [("compile_seconds", "fast"), ("compile_seconds", {"f": "x"}),
                        ("ops", {"a": 1}), ("kind", 7)],
              "object": [("export", 5), ("imports", "x"), ("native", "maybe"), ("version", "2")],
              "numba": [("why", 5), ("native", 0)]}
SCENARIOS = ["half-published", "old-half-published", "quarantined", "stale-lock",
             "unreadable-owner", "future-folder", "foreign-compiledir", "entry-link",
             "tmp-file-in-entry", "stray-files"]


class _Hostile:
    """Unpickling it creates the marker folder: proof that something loaded a pickle."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return os.mkdir, (str(self.marker),)


def _bad_field(doc: dict, path: str) -> str:
    if "schema" in doc:
        return "current"
    if path.endswith("info.json"):
        return "entry"
    return "numba" if doc.get("native") is False else "object"


def _damage(data: st.DataObject, root: Path, target: Target, outside: Path,
            marker: Path) -> str | None:
    """Damage ``target`` in ``root``; the text the report must contain (None: the damage
    cannot be seen without loading what the command must not load)."""
    path = root / target.relpath
    content = path.read_bytes()
    damage = data.draw(st.sampled_from(DAMAGES[target.role]), label="damage")
    mention = target.relpath
    if damage == "delete":
        path.unlink()
        if target.role == "graph":  # what is left: the description of a graph that is gone
            return target.record if path.with_suffix(".json").exists() else None
        if target.role == "json" and "native-" in target.relpath:
            obj = path.with_suffix(".o")
            return str(obj.relative_to(root)) if obj.exists() else None
        if target.role == "json" and target.relpath.startswith("graphs/"):
            return None  # a graph as the previous release stored it: nothing is missing
        return mention
    if damage == "empty":
        path.write_bytes(b"")
    elif damage == "folder":
        path.unlink()
        path.mkdir()
        (path / "inside").write_bytes(content)
    elif damage == "link":
        copy = outside / f"link-target-{path.name}"
        copy.write_bytes(content)
        path.unlink()
        path.symlink_to(copy)
    elif damage == "truncate":
        cut = data.draw(st.integers(1, len(content) - 1), label="bytes kept")
        path.write_bytes(content[:cut])
        if target.role == "cubin" and target.legacy and cut >= 4:
            return None  # no checksum then: only the ELF header is checked
        if target.role == "graph" and target.legacy and content[cut - 1:cut] == b".":
            return None  # no recorded size then: only the pickle's ends are checked
    elif damage == "garbage":
        path.write_bytes(data.draw(st.sampled_from([b"\x00garbage\xff", b"not json at all",
                                                    b"{\"schema\": 2, \"kind\""]),
                                   label="garbage"))
    elif damage == "hostile":
        path.write_bytes(pickle.dumps(_Hostile(marker), protocol=pickle.HIGHEST_PROTOCOL))
        if target.role == "graph" and target.legacy:
            return None  # a whole pickle, and no recorded size to compare it with
    elif damage == "shape":
        path.write_text(json.dumps(data.draw(st.sampled_from(SHAPES), label="shape")))
    elif damage == "newer":
        doc = json.loads(content)
        doc["schema"] = data.draw(st.integers(3, 1000), label="schema")
        path.write_text(json.dumps(doc))
    elif damage == "field":
        doc = json.loads(content)
        name, value = data.draw(st.sampled_from(BAD_FIELDS[_bad_field(doc, target.relpath)]),
                                label="field")
        doc[name] = value
        path.write_text(json.dumps(doc))
    return mention


def _scenario(data: st.DataObject, base: Path, root: Path, outside: Path, used: set) -> str:
    """Leave a leftover of a crash, a newer jitgraph, another Python or program (one not in
    ``used``); the text the report must contain."""
    scenario = data.draw(st.sampled_from([s for s in SCENARIOS if s not in used]),
                         label="scenario")
    used.update({scenario, *(s for s in SCENARIOS if "half-published" in s
                             and "half-published" in scenario)})
    entry = data.draw(st.sampled_from(sorted(p for p in root.glob("k*")
                                             if p.is_dir() and not p.is_symlink())),
                      label="entry")
    if scenario in ("half-published", "old-half-published"):
        tmp = root / "tmp-0123456789abcdef0123456789abcdef"
        tmp.mkdir()
        (tmp / "mod.py").write_text("def f(): pass\n")
        if scenario.startswith("old"):
            old = time.time() - 3 * 24 * 3600
            os.utime(tmp, (old, old))
        return tmp.name
    if scenario == "quarantined":
        target = root / "quarantine" / f"{entry.name}-0badf00d"
        target.parent.mkdir(exist_ok=True)
        (target).mkdir()
        (target / "key.pkl").write_bytes(b"")
        return str(target.relative_to(root))
    if scenario in ("stale-lock", "unreadable-owner"):
        (root / "lock_dir").mkdir(exist_ok=True)
        (root / "lock_dir" / f"{entry.name}-f.lock").write_text("")
        owner = root / "lock_dir" / f"{entry.name}-f.owner"
        owner.write_text(f"{2 ** 22 + 4321}\n{os.uname().nodename}\nabc\n{time.time() - 9e4}\n"
                         if scenario == "stale-lock" else "garbage")
        return str(owner.relative_to(root))
    if scenario == "future-folder":
        future = root / f"v3-{entry.name}"
        future.mkdir()
        (future / "entry.cbor").write_bytes(b"\xa1\x01\x02")
        return future.name
    if scenario == "foreign-compiledir":
        other = base / "compiledir_Other-Platform-arm64-3.99.0-64"
        copy_compiledir(root, base / "other-tmp").rename(other)
        (other / entry.name / "key.pkl").write_bytes(b"\x80\x05truncated")
        return other.name
    if scenario == "entry-link":
        target = outside / "an-entry-elsewhere"
        copy_compiledir(entry, outside).rename(target)
        (root / f"k{'0' * 20}-{'1' * 20}").symlink_to(target)
        return f"k{'0' * 20}-{'1' * 20}"
    if scenario == "tmp-file-in-entry":
        partial = entry / "tmp-00112233445566778899aabbccddeeff-info.json"
        partial.write_text('{"sche')
        return str(partial.relative_to(root))
    (root / "notes.txt").write_text("mine")
    return "notes.txt"


def _run(*args: str) -> str:
    status, output = cli(*args)
    assert status == 0, output
    assert "Traceback" not in output, output
    return output


@given(data=st.data())
def test_every_command_reads_any_damaged_compiledir(data, real_use_compiledir,
                                                    previous_release_compiledir):
    templates = [real_use_compiledir[0], previous_release_compiledir]
    with tempfile.TemporaryDirectory() as scratch:
        base, outside = Path(scratch) / "base", Path(scratch) / "outside"
        base.mkdir()
        outside.mkdir()
        marker = Path(scratch) / "a-pickle-was-loaded"
        template = data.draw(st.sampled_from([0, 1]), label="template")
        root = copy_compiledir(templates[template], base)
        mentions, damaged, named, in_base, used = [], [], set(), [], set()
        for _ in range(data.draw(st.integers(1, 3), label="damages")):
            if data.draw(st.booleans(), label="a file of an entry"):
                # one damaged file per entry: two would hide each other
                choices = [t for t in _targets(template, root) if t.record not in named
                           and (root / t.relpath).is_file()
                           and not (root / t.relpath).is_symlink()]
                target = data.draw(st.sampled_from(choices), label="target")
                mention = _damage(data, root, target, outside, marker)
                named.add(target.record)
                if mention is not None and os.path.lexists(root / target.relpath):
                    damaged.append(root / target.relpath)
            else:
                mention = _scenario(data, base, root, outside, used)
                if mention.startswith("compiledir_"):
                    in_base.append(mention)
                    continue
            if mention is not None:
                mentions.append(mention)
        outside_before = files_under(outside)
        siblings = {p.name: files_under(p) for p in base.iterdir() if p != root}
        where = ["--compiledir", str(root), "--base-compiledir", str(base), "--all"]

        for command in READING:
            output = _run(*where, *command)
            for mention in mentions:
                assert mention in output, (command, mention, output)
        for name in sorted(named):
            if os.path.lexists(root / name) or os.path.lexists(root / "graphs" / f"{name}.pkl"):
                _run(*where, "explain", name)
        listing = _run(*where, "basecompiledir", "list")
        for name in in_base:
            assert f"{name}  (another Python" in listing, listing

        output = _run(*where, "cleanup")
        for mention in mentions:
            assert mention in output, ("cleanup", mention, output)
        for path in damaged:  # never deleted by cleanup without --unreadable, nor by clear
            assert os.path.lexists(path), path
        _run(*where, "clear")
        for path in damaged:
            assert os.path.lexists(path), path
        _run(*where, "cleanup", "--unreadable")
        left = survey(root)
        assert all(p.category not in ("damaged", "quarantined") for p in left.problems), \
            left.problems
        _run(*where, "unlock")
        _run(*where, "purge")

        assert not marker.exists(), "a command loaded a pickle it had no need to load"
        assert files_under(outside) == outside_before, "a command followed a link outside"
        for name, files in siblings.items():
            assert files_under(base / name) == files, f"a command changed {name}"
