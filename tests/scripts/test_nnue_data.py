"""scripts/nnue.py gen (issue 47): the data generator streams complete games, resumes to the
very games an uninterrupted run makes, refuses other settings, and keeps only what it says; a
run directory another run is appending to is refused (issue 51)."""

import os

import chess
import pytest

from pruner.lab.nnuelib import datagen, dataset
from tests.paths import ROOT

pytestmark = pytest.mark.one_interpreter

BOOK = os.path.join(ROOT, "scripts", "books", "noob_3moves_5000.epd")


def _settings(**changes):
    values = dict(seed=3, nodes=60, teacher="pruner:1", jobs=1, book="noob_3moves_5000.epd")
    values.update(changes)
    return datagen.Settings(**values)


def _run(directory, settings, games):
    datagen.prepare_run(str(directory), settings)
    for worker in range(settings.jobs):
        datagen.run_worker(str(directory), settings, worker, BOOK, "stockfish", games)


def test_records_are_complete_games_with_labels_from_whites_view(tmp_path):
    _run(tmp_path, _settings(), 3)
    rows = list(dataset.records(str(tmp_path)))
    assert rows, "three games keep some positions"
    for fen, result, teacher, search, ply, move, _child in rows:
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_check()
        assert result in (0.0, 0.5, 1.0)
        assert ply >= 16 and abs(teacher) <= datagen.TEACHER_MATE
        assert chess.Move.from_uci(move) in board.legal_moves
    with open(tmp_path / "w0.txt") as handle:
        assert sum(line.startswith("#g ") for line in handle) <= 3


def test_resume_makes_the_same_games_as_one_run(tmp_path):
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    _run(whole, _settings(), 4)
    _run(parts, _settings(), 2)
    with open(parts / "w0.txt", "a") as handle:  # a game cut short by a kill
        handle.write("8/8/8/8/8/8/8/K1k5 w - - 0 1|0.5|0|0|20\nrnbq")
    _run(parts, _settings(), 4)
    assert (whole / "w0.txt").read_text() == (parts / "w0.txt").read_text()


def test_two_workers_split_the_game_numbers(tmp_path):
    _run(tmp_path, _settings(jobs=2), 4)
    assert all(n % 2 == 0 for n in _game_numbers(tmp_path / "w0.txt"))
    assert all(n % 2 == 1 for n in _game_numbers(tmp_path / "w1.txt"))


def _game_numbers(path):
    with open(path) as handle:
        return [int(line[3:]) for line in handle if line.startswith("#g ")]


@pytest.mark.parametrize("command", ["gen", "games"])
def test_a_run_directory_another_run_is_writing_is_refused(tmp_path, capsys, command):
    import nnue
    from pruner.output_files import EXIT_BUSY, lock_path, locked
    if command == "gen":
        command = ["gen", "--games", "1", "--nodes", "60", "--teacher", "pruner:1"]
    else:
        pgn = tmp_path / "a.pgn"
        pgn.write_text('[Event "t"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 '
                       '6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 1-0\n\n')
        command = ["games", str(pgn), "--teacher", "pruner:1"]
    run = tmp_path / "run"
    run.mkdir()
    with locked([("--out", str(run))]):
        assert nnue.main(command + ["--out", str(run)]) == EXIT_BUSY
    assert capsys.readouterr().err == "error: --out %s: another run (pid %d) is writing it (lock %s); try again " \
                                      "when it has ended\n" % (run, os.getpid(), lock_path(str(run)))
    assert os.listdir(str(run)) == []
    assert nnue.main(command + ["--out", str(run)]) == 0  # once it has ended
    assert os.listdir(str(run)) and not os.path.exists(lock_path(str(run)))


def test_a_resume_with_other_settings_is_refused(tmp_path):
    _run(tmp_path, _settings(), 1)
    with pytest.raises(datagen.SettingsMismatch, match="nodes"):
        datagen.prepare_run(str(tmp_path), _settings(nodes=61))


def test_stats_count_games_positions_and_duplicates(tmp_path):
    _run(tmp_path, _settings(), 2)
    lines = dataset.run_stats(str(tmp_path))
    assert lines[0] == "games: %d" % len(_game_numbers(tmp_path / "w0.txt"))
    assert lines[1].startswith("positions: %d (" % len(list(dataset.records(str(tmp_path)))))


def test_children_are_the_positions_after_the_teachers_best_moves(tmp_path):
    _run(tmp_path, _settings(children=3), 2)
    rows = list(dataset.records(str(tmp_path)))
    parents = [r for r in rows if not r.child]
    children = [r for r in rows if r.child]
    assert parents and children and len(children) <= 3 * len(parents)
    after = set()
    for parent in parents:
        board = chess.Board(parent.fen)
        for move in board.legal_moves:
            board.push(move)
            after.add(board.fen())
            board.pop()
    assert all(child.fen in after and child.search == 0 for child in children)
    assert all(not chess.Board(child.fen).is_check() for child in children)


def test_finished_games_are_read_from_plain_and_gzipped_pgn_and_resume_by_number(tmp_path):
    """``nnue.py games``: the positions of finished PGN games (plain or .gz, numbered across the
    files), from ``min_ply`` on, quiet moves only, the mover's comment as the search column; a
    second call skips the games the shard holds."""
    import gzip
    moves = "1. e4 {+0.30/5 0.1s} e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 1-0"
    game = '[Event "t"]\n[Result "1-0"]\n\n%s\n\n' % moves
    unfinished = '[Event "t"]\n[Result "*"]\n\n1. d4 d5 2. c4 e6 *\n\n'
    plain = tmp_path / "a.pgn"
    plain.write_text(game + unfinished)
    packed = tmp_path / "b.pgn.gz"
    with gzip.open(str(packed), "wt") as handle:
        handle.write(game)
    run = tmp_path / "run"
    made = datagen.import_games([str(plain), str(packed)], str(run), "pruner:1", "stockfish", min_ply=1)
    text = (run / "w0.txt").read_text()
    assert [line for line in text.splitlines() if line.startswith("#g")] == ["#g 0", "#g 2"]  # 1: unfinished
    rows = [line.split("|") for line in text.splitlines() if not line.startswith("#")]
    # plies 1-11 of each game, all quiet, none in check: 11 a game
    assert made == len(rows) == 22 and all(row[1] == "1" for row in rows)
    assert rows[0][0] == chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").fen()
    assert datagen.import_games([str(plain), str(packed)], str(run), "pruner:1", "stockfish", min_ply=1) == made
    assert (run / "w0.txt").read_text() == text
