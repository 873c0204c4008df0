"""A newcomer's first hour: the README's commands, as CI runs them, install what they say.

Why: a newcomer runs the README's "Set up" commands top to bottom (or only the second
one). A torch pin explained *after* the command that needs it is read too late: pip has then
resolved a multi-GB CUDA build. CI (``.ci/run``) runs exactly these commands on a clean
clone, so the two must not drift apart, and CONTRIBUTING.md's setup block is the same check.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TORCH_PIN = "torch==2.13.0"


def _bash_blocks(text: str) -> list[list[str]]:
    """The command lines of every ```bash block (comments and blank lines dropped)."""
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [
        [line.split("#", 1)[0].rstrip() for line in b.splitlines() if line.split("#", 1)[0].strip()]
        for b in blocks
    ]


def _section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def readme_quick_start() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return [line for block in _bash_blocks(_section(readme, "Set up")) for line in block]


def ci_commands() -> list[str]:
    """``.ci/run`` without its shell preamble (set, cd, export) and comments."""
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        code = line.split("#", 1)[0].strip()
        if not code or code.startswith(("set ", "cd ", "export ")):
            continue
        out.append(code)
    return out


def test_ci_runs_exactly_the_readme_quick_start() -> None:
    commands = readme_quick_start()
    assert len(commands) == 3, commands
    assert ci_commands() == commands


def test_the_torch_pin_is_in_the_command_that_needs_it() -> None:
    """Every command that installs the test extra (which pulls torch in) carries the pin in
    itself: a newcomer who runs only that command gets the CPU build too."""
    first, slurm, second = readme_quick_start()
    assert slurm.startswith("apt-get install") and "pip" not in slurm
    assert ".[test]" not in first and "torch" not in first  # pip install . needs no torch
    assert TORCH_PIN in second and ".[test]" in second
    assert second.index(TORCH_PIN) < second.index("&&")  # one pip call, before the checks
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"pip install {TORCH_PIN}` first" not in readme  # the old after-the-fact advice


def test_contributing_setup_is_the_readme_command() -> None:
    guide = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    setup = _bash_blocks(guide)[0]
    assert setup == [readme_quick_start()[-1]]


def test_the_demo_needs_only_the_core_install(tmp_path: Path) -> None:
    """``pip install . && polyprobe demo`` (the first command of the README) installs no
    extra: the demo's UD build must not touch the raw-text extra (segtok, spaCy) nor the
    evaluation one (torch). Run with those libraries made unimportable."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from importlib import metadata\n"
        "extras = ('segtok', 'spacy', 'torch', 'mwparserfromhell', 'datatrove')\n"
        "for m in extras:\n"
        "    sys.modules[m] = None  # not importable ...\n"
        "real = metadata.version\n"
        "def version(name):  # ... and not installed, as the library's metadata would say\n"
        "    if name in extras:\n"
        "        raise metadata.PackageNotFoundError(name)\n"
        "    return real(name)\n"
        "metadata.version = version\n"
        "from polyprobe.cli import main\n"
        f"sys.exit(main(['demo', '--out', {str(tmp_path / 'demo')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "demo" / "README.md").is_file()
