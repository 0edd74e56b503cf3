"""The project's contract files agree: `.ci/run` runs the README's test command verbatim."""

import os
import re

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
