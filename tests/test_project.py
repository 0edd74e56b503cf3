"""The project's contract files agree: `.ci/run` runs the README's test command verbatim; the
repository names no path outside itself and notes the origin of each data file."""

import importlib.metadata
import os
import re
import subprocess
import sys

import chess
import pytest

from pruner import engine
import pruner.engine.openings
from pruner import engine

pytestmark = pytest.mark.one_interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(path: str) -> str:
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


def readme_commands() -> list:
    """The shell commands of the README's 'Two commands' section, in order."""
    section = read("README.md").split("## Two commands", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def test_readme_has_two_commands():
    install, test = readme_commands()
    assert "pip install" in install and install.endswith("pruner")
    assert "pip install -e '.[test]'" in test and test.endswith("sh scripts/run_tests.sh")
    runner = read("scripts/run_tests.sh")
    assert "pytest_phases.sh python3" in runner and "pypy_tests.sh" in runner  # both interpreters


def test_the_clock_phase_runs_alone_after_the_parallel_one():
    phases = [line for line in read("scripts/pytest_phases.sh").splitlines() if "-m pytest" in line]
    assert phases == ['"$python" -m pytest -n auto --dist worksteal -m "($markers) and not clock"',
                      '"$python" -m pytest -m "($markers) and clock"']
    listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "clock"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300).stdout
    clocked = {line.split("::")[-1] for line in listed.splitlines() if "::" in line}
    assert clocked >= {"test_a_large_input_starts_at_once_with_the_memory_of_a_small_one",
                       "test_isready_is_answered_during_go_infinite_and_bestmove_waits_for_stop",
                       "test_play_with_movetime_and_with_clocks", "test_self_play_game_on_a_one_second_clock"}, listed


def test_ci_runs_the_readme_test_command_verbatim():
    test = readme_commands()[1]
    ci_lines = [line.strip() for line in read(".ci/run").splitlines()]
    assert test in ci_lines
    assert ci_lines[-1] == test  # the last command, so its status is CI's status



def test_the_readme_options_table_is_what_uci_declares():
    """README's options table: every option `uci` lists, in its order, with its type, default and range."""
    from pruner.uci.options import declared_options

    section = read("README.md").split("## UCI options", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| Option")]
    documented = [(name, kind, default.strip("`"), limits) for name, kind, default, limits, _ in rows]
    declared = [(option.name, option.kind,
                 "" if option.kind == "button" else
                 ("<empty>" if option.default == "" else str(option.default).lower()),
                 "%d\u2013%d" % (option.minimum, option.maximum) if option.kind == "spin" else "")
                for option in declared_options()]
    assert documented == declared

# Spelled in pieces so that this file does not match itself.
OUTSIDE = ["..%sshared" % "/", "/wo" + "rk/", "/ro" + "ot/", "/ho" + "me/", "/ch" + "eck/"]


def tracked_text_files() -> list:
    """The repository's files (git's list in a checkout, else a walk), text only."""
    try:
        names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        names = [os.path.relpath(os.path.join(top, name), ROOT) for top, dirs, files in os.walk(ROOT)
                 if not any(part.startswith(".") for part in os.path.relpath(top, ROOT).split(os.sep)[1:])
                 for name in files]
    out = []
    for name in names:
        try:
            with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
                out.append((name, handle.read()))
        except (UnicodeDecodeError, OSError):
            continue  # binary (tables, pictures)
    return out


def test_nothing_names_a_path_outside_the_repository():
    files = tracked_text_files()
    assert any(name == "README.md" for name, _ in files)
    offending = ["%s:%d: %s" % (name, number, line.strip())
                 for name, text in files if not name.startswith("tests/data/")
                 for number, line in enumerate(text.splitlines(), 1)
                 if any(path in line for path in OUTSIDE)]
    assert offending == []


def test_every_data_file_has_its_origin_noted():
    """Each data directory has a README naming each of its files."""
    for folder in ("tests/data", "scripts/books", "engine/data"):
        with open(os.path.join(ROOT, folder, "README.md"), encoding="utf-8") as handle:
            readme = handle.read()
        for top, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                if name != "README.md" and not name.endswith(".pyc"):
                    relative = os.path.relpath(os.path.join(top, name), os.path.join(ROOT, folder))
                    stem_in_its_folder = os.path.splitext(name)[0] in readme and os.path.dirname(relative) in readme
                    assert relative in readme or name in readme or stem_in_its_folder, \
                        "%s/%s: origin not noted" % (folder, relative)


DISTRIBUTION = "pruner-chess"
"""The name on PyPI (``pruner`` there is another project); pyproject's ``[project] name``."""


LAB_PACKAGES = sorted(name for name in os.listdir(os.path.join(ROOT, "scripts", "lab"))
                      if os.path.isfile(os.path.join(ROOT, "scripts", "lab", name, "__init__.py")))
"""The match lab's libraries (scripts/lab/matchlib, tunelib, nnuelib): pruner.lab's packages."""
PACKAGE_DIRS = {"protocol": "pruner", "engine": "pruner.engine", os.path.join("scripts", "lab"): "pruner.lab"}
"""pyproject's package-dir: the folder of each package the distribution maps."""


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A non-editable ``pip install`` of the tracked sources into a fresh directory: the path."""
    tmp_path = tmp_path_factory.mktemp("install")
    source = tmp_path / "source"
    for name in subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = name.split("/")
        if parts[0] in ("engine", "protocol") or name in ("pyproject.toml", "README.md", "LICENSE") \
                or parts[:2] == ["scripts", "lab"] and len(parts) > 2:
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes(open(os.path.join(ROOT, name), "rb").read())
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                    str(source)], check=True, capture_output=True)
    return target


def run_installed(installed, *argv, stdin=""):
    """``python -m pruner ARGV`` from the installed copy (not from this checkout)."""
    env = dict(os.environ, PYTHONPATH=str(installed))
    return subprocess.run([sys.executable, "-m", "pruner"] + list(argv), input=stdin, cwd=str(installed.parent),
                          env=env, capture_output=True, text=True, timeout=60)


def test_a_non_editable_install_carries_every_subpackage(installed):
    """`pip install .` (the README's first command) installs a `pruner` whose every subcommand
    imports: a package list that names only the top level builds one without pruner.uci.
    The lab's libraries come with it (from scripts/), and import from the install alone."""
    packages = []
    for folder, package in PACKAGE_DIRS.items():
        for top, _, names in os.walk(os.path.join(ROOT, folder)):
            relative = os.path.relpath(top, os.path.join(ROOT, folder))
            if "__init__.py" in names:
                packages.append(package if relative == "." else package + "." + relative.replace(os.sep, "."))
    assert {"pruner.uci", "pruner.engine", "pruner.lab.matchlib", "pruner.lab.tunelib",
            "pruner.lab.nnuelib"} <= set(packages)
    for package in packages:
        assert (installed / package.replace(".", os.sep) / "__init__.py").is_file(), package
    assert not (installed / "scripts").exists() and not (installed / "match.py").exists()  # the scripts are programs
    code = "import pruner.lab.matchlib.runner, pruner.lab.tunelib.fit, pruner.lab.nnuelib.datagen as d; print(d.__file__)"
    lab = subprocess.run([sys.executable, "-c", code], cwd=str(installed.parent), capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(installed)), timeout=60)
    assert lab.returncode == 0 and lab.stdout.startswith(str(installed)), lab.stderr
    run = run_installed(installed, stdin="uci\nquit\n")
    assert "uciok" in run.stdout, run.stderr
    run = run_installed(installed, "analyse", "--help")
    assert run.returncode == 0 and "--depth" in run.stdout, run.stderr


def test_the_install_carries_its_licence_and_type_marker(installed):
    (dist,) = importlib.metadata.distributions(path=[str(installed)])
    assert dist.metadata["Name"] == DISTRIBUTION
    assert dist.metadata["License"] == "MIT" and "MIT License" in read("LICENSE")
    assert any(str(path).endswith("LICENSE") for path in dist.files), "LICENSE not in the wheel"
    assert (installed / "pruner" / "engine" / "py.typed").is_file()  # PEP 561


def test_the_install_carries_the_opening_names(installed):
    """The review and the annotated PGN name openings from engine/data/openings.tsv.gz: an
    installed copy reads its own."""
    code = ("import chess, pruner.engine.openings as o; b = chess.Board(); [b.push_san(m) for m in 'e4 e5 f4'.split()]; "
            "print(o.DATA_FILE); print(o.opening_at(b).text)")
    run = subprocess.run([sys.executable, "-c", code], cwd=str(installed.parent), capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(installed)), timeout=60)
    assert run.returncode == 0, run.stderr
    path, name = run.stdout.splitlines()
    board = chess.Board()
    for san in ("e4", "e5", "f4"):
        board.push_san(san)
    assert path.startswith(str(installed)) and name == engine.openings.opening_at(board).text


def test_one_version_everywhere(installed):
    """The package metadata, ``pruner --version`` and the UCI ``id name`` all say engine.__version__."""
    (dist,) = importlib.metadata.distributions(path=[str(installed)])
    assert dist.version == engine.__version__
    version = run_installed(installed, "--version")
    assert version.stdout.startswith("Pruner %s (" % engine.__version__), version.stdout + version.stderr
    uci = run_installed(installed, stdin="uci\nquit\n")
    assert "id name Pruner %s" % engine.__version__ in uci.stdout.splitlines(), uci.stdout
    assert re.search(r"^## \[%s\] - \d{4}-\d\d-\d\d$" % re.escape(engine.__version__), read("CHANGELOG.md"), re.M)
    assert 'version = "' not in read("pyproject.toml")  # dynamic: read from engine/__init__.py


# Spelled in pieces so that this file does not match itself.
OLD_HINTS = re.compile(r"pip3? install(?: -\S+)* ['\"]?" + "pru" + r"ner(?:\[|['\"]|\s|$)|['\"]" + "pru" + r"ner\[")


def test_no_install_hint_names_the_other_projects_distribution():
    """Installing an extra of the distribution named like the command, outside a checkout, would
    install an unrelated project from PyPI: every hint names pruner-chess."""
    assert OLD_HINTS.search("pip install 'pru" + "ner[plots]'") and not OLD_HINTS.search("pip install 'pruner-chess[x]'")
    offending = ["%s:%d: %s" % (name, number, line.strip())
                 for name, text in tracked_text_files()
                 for number, line in enumerate(text.splitlines(), 1) if OLD_HINTS.search(line)]
    assert offending == []


def test_pruner_analyse_help_names_every_documented_exit_status():
    table = read("docs/analysis.md").split("| Exit status |", 1)[1].split("\n\n", 1)[0]
    codes = re.findall(r"^\| ([\d-]+) \|", table, re.M)
    assert "0" in codes and "69" in codes
    help_text = subprocess.run([sys.executable, "-m", "pruner", "analyse", "--help"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout
    epilog = " ".join(help_text.split("Exit status:", 1)[1].split())
    missing = [code for code in codes if not re.search(r"(^|[ ;])%s " % re.escape(code), epilog)]
    assert missing == [], epilog
