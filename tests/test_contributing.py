"""CONTRIBUTING.md's walk-throughs, run as written: each code block that names a file
(``# polyprobe/...py`` on its first line) is written to that path in a scratch tree and
imported as that module of the package; the other blocks run as scripts. A new task added to
the UD family, and a new toy source family of three files — found by the command line with no
edit anywhere else — each built and loaded with ``datasets.load_dataset``."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from polyprobe.cards.validate import validate

GUIDE = Path(__file__).resolve().parent.parent / "CONTRIBUTING.md"
FILE = re.compile(r"# (polyprobe/[\w/]+\.py)\n")


def _blocks() -> list[tuple[str | None, str]]:
    """(the file a block names, or None; its code), in the guide's order."""
    text = GUIDE.read_text(encoding="utf-8")
    out = []
    for code in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        named = FILE.match(code)
        out.append((named.group(1) if named else None, code))
    return out


def _install(files: list[tuple[str, str]], root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Write each block to its file under ``root`` and import it as the module it names: its
    package's ``__path__`` is extended with the scratch folder for the test's duration."""
    names = []
    for path, code in files:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code, encoding="utf-8")
        package = importlib.import_module(".".join(Path(path).parent.parts))
        if str(target.parent) not in package.__path__:
            monkeypatch.setattr(package, "__path__", [*package.__path__, str(target.parent)])
        names.append(".".join(Path(path).with_suffix("").parts))
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)
        importlib.import_module(name)
        monkeypatch.setitem(sys.modules, name, sys.modules[name])  # removed afterwards


def _script(code: str, title: str, ns: dict[str, Any]) -> None:
    exec(compile(code, f"CONTRIBUTING.md: {title}", "exec", dont_inherit=True), ns)


def test_the_guide_has_the_walk_throughs() -> None:
    files = [path for path, _ in _blocks() if path]
    assert files == [
        "polyprobe/builders/sentence/root_upos.py",
        "polyprobe/loaders/toy_tsv.py",
        "polyprobe/builders/downstream/toy.py",
        "polyprobe/builders/families/toy.py",
    ]
    assert len(_blocks()) == 6, "the test runs six python blocks; update it with the guide"


def test_adding_a_task(
    ud_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hf_offline: None
) -> None:
    from polyprobe.builders.families.ud import UdFamily
    from polyprobe.builders.family import TaskSet

    (task_file, build_block) = [b for b in _blocks() if "root_upos" in b[1]][:2]
    assert task_file[0] is not None and build_block[0] is None
    _install([task_file], tmp_path / "tree", monkeypatch)  # type: ignore[list-item]
    from polyprobe.builders.sentence.root_upos import RootUpos  # type: ignore[import-not-found]

    # step 1 of the guide: the task joins the UD family's task set
    tasks = UdFamily.tasks
    assert tasks is not None
    monkeypatch.setattr(
        UdFamily,
        "tasks",
        TaskSet(
            (*tasks.tasks, RootUpos), default=tasks.default, groups=tasks.groups, maker=None
        ),
    )
    ns: dict[str, Any] = {"treebank": ud_dir / "UD_English-EWT", "out": tmp_path}
    _script(build_block[1], "build root_upos", ns)
    result = ns["result"]
    assert validate(result.out).ok
    assert [s.task for s in result.tasks] == ["root_upos"]
    # its options are validated like every task's
    from polyprobe.builders.task import TaskContext
    from polyprobe.errors import UsageError

    with pytest.raises(UsageError, match="valid options: top"):
        RootUpos.configure({"tpo": 3}, TaskContext())


def test_adding_a_source_family_takes_three_files(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    hf_offline: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from polyprobe.builders.families import families
    from polyprobe.cli import main

    blocks = _blocks()
    start = next(i for i, (path, _) in enumerate(blocks) if path and "toy_tsv" in path)
    family_blocks = blocks[start:]
    files = [(path, code) for path, code in family_blocks if path]
    assert len(files) == 3  # loader, task, family: nothing else is edited
    _install(files, tmp_path / "tree", monkeypatch)  # type: ignore[arg-type]

    # the command line finds it (no table lists the families), its options from its Config
    assert "toy" in families()
    with pytest.raises(SystemExit) as done:
        main(["build", "toy", "--help"])
    assert done.value.code == 0
    help_text = capsys.readouterr().out
    assert "the toy TSV file" in help_text and "toy_sentiment" in help_text

    ns: dict[str, Any] = {"out": tmp_path}
    (script,) = [code for path, code in family_blocks if path is None]
    _script(script, "build the toy", ns)
    result = ns["result"]
    assert validate(result.out).ok
    assert [s.task for s in result.tasks] == ["toy_sentiment"]
    card = (result.out / "README.md").read_text(encoding="utf-8")
    assert "toy-tsv" in card and "CC0-1.0" in card  # the source, as its info says

    # the shared skip policy and the input layer reach the new loader
    import polyprobe
    from polyprobe.errors import InputError

    bad = tmp_path / "toy.tsv"
    bad.write_text(bad.read_text(encoding="utf-8") + "oops\n", encoding="utf-8")
    common: dict[str, Any] = {"lang": "en", "min_per_class": (1, 1, 1)}
    skipped = polyprobe.build_toy(bad, out=tmp_path / "skip", on_invalid="skip", **common)
    assert skipped.skipped_invalid == {"bad-line": 1}
    with pytest.raises(InputError, match=r"toy.tsv:19: expected id, split"):
        polyprobe.build_toy(bad, out=tmp_path / "raise", **common)
    assert not (tmp_path / "raise").exists()
    # ... and the command line, with the same options
    assert main(["build", "toy", str(bad), "--lang", "en", "--min-per-class", "1",
                 "--on-invalid", "skip", "--out", str(tmp_path / "cli"), "--quiet"]) == 0  # fmt: skip
    # a misspelt profile key is refused for it too
    profile = tmp_path / "p.toml"
    profile.write_text("[family]\npaht = 1\n", encoding="utf-8")
    assert main(["build", "toy", str(bad), "--lang", "en", "--profile", str(profile),
                 "--out", str(tmp_path / "p")]) == 2  # fmt: skip
    assert "[family]: unknown option(s) paht" in capsys.readouterr().err
