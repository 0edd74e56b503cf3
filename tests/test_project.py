"""The project's contract files agree: `.ci/run` runs the README's test command verbatim; the
repository names no path outside itself and notes the origin of each data file."""

import os
import subprocess
import re
import sys

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
    assert "pytest" in test and "pypy_tests.sh" in test


def test_ci_runs_the_readme_test_command_verbatim():
    test = readme_commands()[1]
    ci_lines = [line.strip() for line in read(".ci/run").splitlines()]
    assert test in ci_lines
    assert ci_lines[-1] == test  # the last command, so its status is CI's status


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
    for folder in ("tests/data", "scripts/books"):
        with open(os.path.join(ROOT, folder, "README.md"), encoding="utf-8") as handle:
            readme = handle.read()
        for top, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                if name != "README.md" and not name.endswith(".pyc"):
                    relative = os.path.relpath(os.path.join(top, name), os.path.join(ROOT, folder))
                    stem_in_its_folder = os.path.splitext(name)[0] in readme and os.path.dirname(relative) in readme
                    assert relative in readme or name in readme or stem_in_its_folder, \
                        "%s/%s: origin not noted" % (folder, relative)


def test_a_non_editable_install_carries_every_subpackage(tmp_path):
    """`pip install .` (the README's first command) installs a `pruner` whose every subcommand
    imports: a package list that names only the top level builds one without protocol.uci."""
    source = tmp_path / "source"
    for name in subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.splitlines():
        if name.endswith(".py") or name in ("pyproject.toml", "README.md"):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes(open(os.path.join(ROOT, name), "rb").read())
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                    str(source)], check=True, capture_output=True)
    packages = sorted(os.path.relpath(top, ROOT).replace(os.sep, ".")
                      for top, _, names in os.walk(ROOT) if "__init__.py" in names
                      and os.path.relpath(top, ROOT).split(os.sep)[0] in ("engine", "protocol"))
    for package in packages:
        assert (target / package.replace(".", os.sep) / "__init__.py").is_file(), package
    env = dict(os.environ, PYTHONPATH=str(target))
    run = subprocess.run([sys.executable, "-m", "protocol"], input="uci\nquit\n", cwd=str(tmp_path),
                         env=env, capture_output=True, text=True, timeout=60)
    assert "uciok" in run.stdout, run.stderr
    run = subprocess.run([sys.executable, "-m", "protocol", "analyse", "--help"], cwd=str(tmp_path),
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "--depth" in run.stdout, run.stderr
