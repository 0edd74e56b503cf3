"""scripts/profile_bench.py: cProfile on any interpreter, vmprof where it is installed."""

import importlib.util

import pytest

import profile_bench


def test_cprofile_mode_prints_the_bench_signature_and_the_top_functions(capsys):
    assert profile_bench.main(["--depth", "2", "--top", "15"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Nodes searched: ") and "_negamax" in out and "ncalls" in out


def test_params_choose_the_evaluation_the_bench_is_profiled_with(capsys):
    """``--params evalfile=classical`` profiles the classical evaluation: another node count
    than the net's (the bench alone always runs the engine's own evaluation)."""
    counts = []
    for extra in ([], ["--params", "evalfile=classical"]):
        assert profile_bench.main(["--depth", "3", "--top", "5"] + extra) == 0
        counts.append(capsys.readouterr().out.split()[2])
    assert counts[0] != counts[1]


def test_vmprof_names_are_shortened():
    assert profile_bench.short_name("py:_negamax:585:/somewhere/engine/search.py") == "_negamax (search.py:585)"
    assert profile_bench.short_name("n:native_symbol:0:-") == "n:native_symbol:0:-"


@pytest.mark.skipif(importlib.util.find_spec("vmprof") is not None, reason="vmprof is installed here")
def test_vmprof_mode_without_vmprof_says_how_to_get_it(capsys):
    assert profile_bench.main(["--vmprof", "--depth", "1"]) == 2
    assert "pip install '.[profile]'" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("vmprof") is None, reason="vmprof is not installed (the profile extra)")
def test_vmprof_mode_samples_the_search(capsys):
    assert profile_bench.main(["--vmprof", "--depth", "6", "--top", "40"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Nodes searched: ") and "_negamax (search.py:" in out
