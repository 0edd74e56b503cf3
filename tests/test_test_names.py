"""The test files' basenames are unique: the tests folders are not packages, so pytest's
default import mode (prepend) imports each test module by its basename, and a second file of
the same name in another folder fails collection ("import file mismatch") in a fresh clone."""
import collections
import pathlib


def test_test_module_basenames_are_unique():
    tests = pathlib.Path(__file__).resolve().parent
    names = collections.defaultdict(list)
    for path in tests.rglob("test_*.py"):
        names[path.name].append(str(path.relative_to(tests)))
    clashes = {name: paths for name, paths in names.items() if len(paths) > 1}
    assert clashes == {}
