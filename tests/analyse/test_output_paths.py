"""Where ``pruner analyse`` writes: no output destroys what is at its path (issue 44).

A regular file is replaced through a temporary file; a symbolic link is written through (the
link stays); a FIFO or a device is written in place, never replaced by a regular file; an
output that names an input (the same path, a symbolic or hard link to it, standard input) or
another output is refused before anything is written, and the input is left as it was.
"""

import io
import os
import stat

import pytest

from pruner.analyse_app.cli import EXIT_USAGE, main

from os_helpers import NULL_DEVICE, SAME_FILE_NAMES, device_node, fifo_with_reader, same_file
from sample_games import SCHOLAR

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and links as POSIX has them")


def run(argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err, stdin=stdin)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "g.pgn"
    path.write_text(SCHOLAR)
    return path


def report(target, *inputs):
    return run(["--depth", "1", "-q", "--report", str(target)] + [str(item) for item in inputs])


# -- what is at the output's path survives -----------------------------------------------------

def test_a_report_through_a_symbolic_link_keeps_the_link(tmp_path):
    target = tmp_path / "real.html"
    target.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(target.name)
    status, _, err = report(link, "startpos")
    assert status == 0, err
    assert link.is_symlink() and os.readlink(str(link)) == target.name
    assert target.read_text().startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(str(tmp_path))) == ["link.html", "real.html"]  # no temporary file left


def test_a_dangling_link_is_written_through_to_its_target(tmp_path):
    link = tmp_path / "link.html"
    link.symlink_to("made.html")
    status, _, err = report(link, "startpos")
    assert status == 0, err
    assert link.is_symlink() and (tmp_path / "made.html").read_text().startswith("<!DOCTYPE html>")


def test_a_report_into_a_fifo_reaches_its_reader_and_the_fifo_stays(tmp_path):
    fifo = tmp_path / "report.html"
    thread, received = fifo_with_reader(str(fifo))
    status, _, err = report(fifo, "startpos")
    thread.join(30)
    assert status == 0, err
    assert stat.S_ISFIFO(os.lstat(str(fifo)).st_mode)
    assert received and received[0].startswith(b"<!DOCTYPE html>")


def test_a_device_stays_a_device(tmp_path):
    """A node like /dev/null of our own (making one needs root, as replacing the real one did)."""
    device = device_node(str(tmp_path / "null"), NULL_DEVICE)
    status, _, err = report(device, "startpos")
    assert status == 0, err
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_a_link_to_dev_null_stays_a_link(tmp_path):
    link = tmp_path / "discard.html"
    link.symlink_to(os.devnull)
    status, _, err = report(link, "startpos")
    assert status == 0, err
    assert link.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_replaced_file_keeps_its_permissions_and_a_hard_link_sees_the_new_content(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("old")
    os.chmod(str(page), 0o640)
    other = tmp_path / "other-name.html"
    os.link(str(page), str(other))
    status, _, err = report(page, "startpos")
    assert status == 0, err
    assert stat.S_IMODE(os.stat(str(page)).st_mode) == 0o640
    assert other.read_text() == page.read_text() and page.read_text().startswith("<!DOCTYPE html>")


def test_a_failed_replacement_leaves_the_old_file_and_no_temporary(tmp_path):
    from pruner.output_files import replaced, write_file
    page = tmp_path / "page.html"
    page.write_text("old")
    with pytest.raises(RuntimeError):
        with replaced(str(page)) as handle:
            handle.write(b"half")
            raise RuntimeError("the drawing failed")
    assert page.read_text() == "old" and os.listdir(str(tmp_path)) == ["page.html"]
    write_file(str(page), b"new")
    assert page.read_text() == "new" and os.listdir(str(tmp_path)) == ["page.html"]


# -- an output that is an input is refused before anything is written -------------------------

@pytest.mark.parametrize("how", SAME_FILE_NAMES + ("relative path",))
@pytest.mark.parametrize("option", [["--format", "pgn", "-o"], ["--report"]])
def test_an_output_that_is_the_input_is_refused(game, tmp_path, monkeypatch, how, option):
    if how == "relative path":
        monkeypatch.chdir(str(tmp_path))
        output = os.path.join(".", "sub", "..", "g.pgn")
        os.mkdir(str(tmp_path / "sub"))
    else:
        output = same_file(str(game), how)
    status, out, err = run(["--depth", "1", "-q"] + option + [output, str(game)])
    assert status == EXIT_USAGE
    assert "is the input %s: writing it would destroy it" % game in err and "usage:" not in err
    assert game.read_text() == SCHOLAR and out == ""


def test_an_output_that_is_standard_input_is_refused(game):
    with open(str(game)) as stdin:
        status, _, err = run(["--depth", "1", "-q", "--format", "pgn", "-o", str(game), "-"], stdin=stdin)
    assert status == EXIT_USAGE and "is the input - (standard input)" in err
    assert game.read_text() == SCHOLAR


def test_two_outputs_on_one_file_are_refused(tmp_path):
    page = str(tmp_path / "new.html")  # not there yet: compared by path
    status, _, err = run(["--depth", "1", "-q", "-o", page, "--report", page, "startpos"])
    assert status == EXIT_USAGE and "--report %s is the same file as -o %s" % (page, page) in err
    assert not os.path.exists(page)


def test_a_device_may_be_input_and_output():
    """/dev/stdin and /dev/stdout on one terminal are one device: writing it destroys nothing."""
    from pruner.output_files import same_file_problem
    assert same_file_problem([("-o", os.devnull)], [("input", os.devnull)]) is None
    assert "is the input" in same_file_problem([("-o", "a.pgn")], [("input", "./a.pgn")])
