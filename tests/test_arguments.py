"""Command lines: no option is taken by a prefix of its name (argparse's ``allow_abbrev``), an
unknown option gets the nearest known one as a suggestion, and ``pruner --depth 3`` says whose
option ``--depth`` is (protocol/arguments.py, protocol/__main__.py)."""

import os
import re
import subprocess

import pytest

from paths import ROOT, SCRIPTS
from pruner import __main__ as command_line
from pruner.analyse_app import cli as analyse_cli
from pruner.arguments import ArgumentParser, is_option, nearest, unknown_option_message


def analyse_like() -> ArgumentParser:
    parser = ArgumentParser(prog="demo")
    parser.add_argument("inputs", nargs="*")
    group = parser.add_argument_group("limits")
    group.add_argument("--depth", type=int)
    parser.add_argument("--multipv", type=int)
    return parser


@pytest.mark.parametrize("argv, message", [
    (["--dept", "3"], "unknown option --dept; did you mean --depth?"),  # a prefix: no longer --depth
    (["--deph", "3"], "unknown option --deph; did you mean --depth?"),
    (["--deph=3"], "unknown option --deph; did you mean --depth?"),
    (["--multpv", "2", "x"], "unknown option --multpv; did you mean --multipv?"),
    (["--colour", "white"], "unknown option --colour"),
])
def test_unknown_options_get_the_nearest_one(capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        analyse_like().parse_args(argv)
    assert stop.value.code == 2  # as argparse exits on a usage error
    assert capsys.readouterr().err.splitlines()[-1] == "demo: error: " + message


def test_the_full_names_and_negative_numbers_still_parse(capsys):
    args = analyse_like().parse_args(["--depth", "3", "--multipv=2", "a", "-5"])
    assert (args.depth, args.multipv, args.inputs) == (3, 2, ["a", "-5"])
    assert not is_option("-5") and not is_option("-0.5") and not is_option("-") and is_option("-j")


def test_a_stray_value_is_still_an_unrecognized_argument(capsys):
    parser = ArgumentParser(prog="demo")
    parser.add_argument("--depth", type=int)
    with pytest.raises(SystemExit):
        parser.parse_args(["--depth", "3", "extra"])
    assert capsys.readouterr().err.splitlines()[-1] == "demo: error: unrecognized arguments: extra"


def test_a_subcommands_options_are_the_suggestions_after_it(capsys):
    parser = ArgumentParser(prog="tool")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("fit").add_argument("--steps", type=int)
    commands.add_parser("gen").add_argument("--games", type=int)
    with pytest.raises(SystemExit):
        parser.parse_args(["fit", "--stesp", "3"])
    assert capsys.readouterr().err.splitlines()[-1] == "tool: error: unknown option --stesp; did you mean --steps?"
    assert parser.parse_args(["gen", "--games", "4"]).games == 4
    with pytest.raises(SystemExit):
        parser.parse_args(["gen", "--game", "4"])
    assert "did you mean --games?" in capsys.readouterr().err


def test_nearest_and_message_helpers():
    assert nearest("--deph", ["--depth", "--nodes"]) == "--depth"
    assert nearest("--zzz", ["--depth", "--nodes"]) is None
    assert unknown_option_message("--nodse=5", ["--nodes"]) == "unknown option --nodse; did you mean --nodes?"


# -- pruner and its subcommands ---------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--depth", "3", "game.pgn"],
     "pruner: --depth is an option of `pruner analyse`; options go after the command: pruner analyse --depth 3 "
     "game.pgn"),
    (["-j", "2"], "pruner: -j is an option of `pruner analyse`; options go after the command: pruner analyse -j 2"),
    (["--deph", "3"], "pruner: unknown option --deph; did you mean pruner analyse --depth?"),
    (["--vers"], "pruner: unknown option --vers; did you mean --version?"),
    (["--interpeter", "pypy"], "pruner: unknown option --interpeter; did you mean --interpreter?"),
    (["--zzz"], "pruner: unknown option --zzz (see pruner --help)"),
])
def test_an_option_before_the_command_says_whose_it_is(capsys, argv, message):
    assert command_line.main(argv) == 2
    assert capsys.readouterr().err == message + "\n"


def test_pruner_analyse_takes_no_prefix_and_suggests(capsys):
    assert analyse_cli.main(["--dept", "3", "startpos"]) == analyse_cli.EXIT_USAGE
    assert "unknown option --dept; did you mean --depth?" in capsys.readouterr().err
    assert analyse_cli.main(["--depth", "1", "--multpv", "2", "startpos"]) == analyse_cli.EXIT_USAGE
    assert "unknown option --multpv; did you mean --multipv?" in capsys.readouterr().err


def test_pruner_bench_suggests_too(capsys):
    with pytest.raises(SystemExit) as stop:
        command_line.main(["bench", "--hepl"])
    assert stop.value.code == 2 and "unknown option --hepl; did you mean --help?" in capsys.readouterr().err


def test_every_command_line_parser_is_prefix_free():
    """Every ``ArgumentParser`` of the engine's commands and of scripts/ is pruner.arguments'
    (or says ``allow_abbrev=False`` itself)."""
    offending = []
    for folder in ("protocol", "scripts"):
        for top, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in names:
                path = os.path.join(top, name)
                if not name.endswith(".py") or path == os.path.join(ROOT, "protocol", "arguments.py"):
                    continue
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                for found in re.finditer(r"argparse\.ArgumentParser\((.*?)\)\n", text, re.S):
                    if "allow_abbrev=False" not in found.group(1):
                        offending.append(os.path.relpath(path, ROOT))
    assert offending == []


def test_a_script_refuses_a_prefix(tmp_path):
    run = subprocess.run([command_line.sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", "x",
                          "--tc", "1+0", "--gam", "2"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.splitlines()[-1] == \
        "match.py: error: unknown option --gam; did you mean --games?"
