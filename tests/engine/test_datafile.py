"""pruner.engine.datafile: only regular files are opened, never waited on, and a mapped file modified
in place is reported before it is read."""

import os
import threading

import pytest

from pruner.engine import datafile
from pruner.engine.datafile import FileChanged, MappedFile, UnusableFile

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs")


def opened_within(path: str, seconds: float = 10.0):
    """``MappedFile.open(path)`` on a thread: (the file or the exception, whether it returned)."""
    outcome = []

    def run():
        try:
            outcome.append(MappedFile.open(path))
        except Exception as exc:  # the outcome under test
            outcome.append(exc)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return (outcome[0] if outcome else None), not thread.is_alive()


@posix_only
def test_a_fifo_is_never_opened(tmp_path):
    path = str(tmp_path / "fifo")
    os.mkfifo(path)
    outcome, returned = opened_within(path)
    assert returned and isinstance(outcome, UnusableFile) and str(outcome) == "not a regular file (a FIFO)"


@posix_only
@pytest.mark.parametrize("swapped_in", ["fifo", "file"])
def test_a_path_swapped_between_stat_and_open_is_refused_without_blocking(tmp_path, monkeypatch, swapped_in):
    # What a rename between the two calls does: stat sees one file, open gets another.
    regular = tmp_path / "book.bin"
    regular.write_bytes(b"\x01" * 32)
    other = tmp_path / "other"
    if swapped_in == "fifo":
        os.mkfifo(str(other))
    else:
        other.write_bytes(b"\x02" * 32)
    stat_of_regular = datafile.regular_file(str(regular))
    monkeypatch.setattr(datafile, "regular_file", lambda path: stat_of_regular)
    outcome, returned = opened_within(str(other))
    assert returned, "open waited for a writer"
    assert isinstance(outcome, UnusableFile)
    assert str(outcome) == "the file changed while it was being opened (now %s)" % (
        "a FIFO" if swapped_in == "fifo" else "another file")


def test_a_file_modified_in_place_is_reported_one_renamed_over_or_deleted_is_not(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"a" * 8192)
    mapped = MappedFile.open(str(path))
    mapped.check()  # unchanged
    replacement = tmp_path / "new.bin"
    replacement.write_bytes(b"b" * 100)
    os.replace(str(replacement), str(path))  # renamed over: the mapping keeps the old file
    mapped.check()
    assert mapped.data[:1] == b"a" and mapped.data[8191:] == b"a"
    path.unlink()
    mapped.check()
    mapped.close()
    path.write_bytes(b"c" * 8192)
    mapped = MappedFile.open(str(path))
    os.truncate(str(path), 100)
    with pytest.raises(FileChanged, match=r"changed on disk since it was loaded \(100 bytes, was 8192\)"):
        mapped.check()
    mapped.close()


def test_empty_files_and_refused_sizes_are_never_mapped(tmp_path):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    with pytest.raises(UnusableFile, match="empty file"):
        MappedFile.open(str(path))

    def refuse(size):
        raise ValueError("%d bytes: no" % size)
    path.write_bytes(b"x" * 10)
    with pytest.raises(ValueError, match="10 bytes: no"):
        MappedFile.open(str(path), accept_size=refuse)
