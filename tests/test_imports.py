"""The import graph of engine/, protocol/ and the lab (scripts/ and its libraries matchlib,
tunelib, nnuelib): no cycle, and the layers of the house rules.

Every module is parsed with ``ast`` and every import in it counts, wherever it stands: at
module level or inside a function (an import moved into a function only hides a cycle),
``import a.b``, ``from a import b`` (the submodule ``a.b`` when there is one, else ``a``'s
``__init__``), relative imports, and a string constant that names a project module
(``importlib.import_module``, the subcommand table of protocol/__main__.py). An import counts
for the most specific project module it names: importing ``a.b`` runs ``a``'s ``__init__``
first, but every submodule does that, so it is no edge (else each package that imports its
own submodules would be a cycle).
"""

import ast
import os
import re
import subprocess
import sys
from typing import Dict, Iterable, List, Optional, Tuple

import pytest

from paths import FAKE_ENGINE, ROOT, SCRIPTS

pytestmark = pytest.mark.one_interpreter

SOURCES: List[Tuple[str, Optional[str]]] = [
    (os.path.join(ROOT, "protocol"), "pruner"), (os.path.join(ROOT, "engine"), "pruner.engine"),
    (os.path.join(SCRIPTS, "lab"), "pruner.lab"), (SCRIPTS, None)]
"""Where modules are found: (folder, the package it is, as pyproject's package-dir maps it;
None: every module and package in it, a folder named here itself excepted). A module's name
is its package and its path from the folder."""

Graph = Dict[str, Dict[str, Tuple[str, int]]]
"""Module -> {module it imports: (its file, the line of the first such import)}."""


def _package_modules(path: str, package: str, modules: Dict[str, str], skip: Iterable[str] = ()) -> None:
    """The modules of the package in folder ``path``, named ``package``, into ``modules``
    (``skip``: folders that are packages of their own source)."""
    for where, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(where, d, "__init__.py"))
                         and os.path.join(where, d) not in skip)
        relative = os.path.relpath(where, path)
        name = package if relative == "." else package + "." + relative.replace(os.sep, ".")
        for file in files:
            if file.endswith(".py"):
                modules[name if file == "__init__.py" else name + "." + file[:-3]] = os.path.join(where, file)


def find_modules(sources: Iterable[Tuple[str, Optional[str]]]) -> Dict[str, str]:
    """Every module's dotted name -> its file. A folder is a package when it has an
    ``__init__.py``; other folders (scripts/books) hold no modules."""
    sources = list(sources)
    mapped = [folder for folder, package in sources if package is not None]
    modules: Dict[str, str] = {}
    for folder, package in sources:
        if package is not None:
            _package_modules(folder, package, modules, mapped)
            continue
        for top in sorted(os.listdir(folder)):
            path = os.path.join(folder, top)
            if top.endswith(".py") and os.path.isfile(path):
                modules[top[:-3]] = path
            elif os.path.isfile(os.path.join(path, "__init__.py")) and path not in mapped:
                _package_modules(path, top, modules, mapped)
    return modules


def _project_module(name: str, modules: Dict[str, str]) -> Optional[str]:
    """The most specific project module ``name`` is in (``pruner.engine.search.Searcher`` ->
    ``pruner.engine.search``); None for another library's."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: str, modules: Dict[str, str]) -> Dict[str, int]:
    """The project modules that module ``name`` (file ``path``) imports -> the first line."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found: Dict[str, int] = {}
    for node in ast.walk(tree):
        named: List[str] = []
        if isinstance(node, ast.Import):
            named = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            named = [base + "." + alias.name if base + "." + alias.name in modules else base for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value \
                and node.value in modules:
            named = [node.value]
        for target in named:
            module = _project_module(target, modules)
            if module is not None and module != name:
                found.setdefault(module, node.lineno)
    return found


def import_graph(sources=SOURCES) -> Graph:
    """The project's import graph (see the module docstring)."""
    modules = find_modules(sources)
    return {name: {target: (path, line) for target, line in imports_of(name, path, modules).items()}
            for name, path in modules.items()}


def find_cycle(graph: Graph) -> Optional[List[str]]:
    """One cycle of the graph as its modules, the first repeated at the end; None without one."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done (no cycle through it)
    path: List[str] = []

    def visit(module: str) -> Optional[List[str]]:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, {})):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def describe(cycle: List[str], graph: Graph) -> str:
    """``a (a.py:3) -> b (b.py:7) -> a``: each import with where it stands."""
    steps = []
    for module, target in zip(cycle, cycle[1:]):
        path, line = graph[module][target]
        steps.append("%s (%s:%d)" % (module, os.path.relpath(path, ROOT), line))
    return " -> ".join(steps + [cycle[-1]])


def _crossings(graph: Graph, source, target) -> List[str]:
    """The imports from a module for which ``source(name)`` holds of one for which
    ``target(name)`` does, as ``file:line module -> module``."""
    return sorted("%s:%d %s -> %s" % (os.path.relpath(path, ROOT), line, module, imported)
                  for module, targets in graph.items() if source(module)
                  for imported, (path, line) in targets.items() if target(imported))


def _top(name: str) -> str:
    return name.split(".")[0]


def _is_lab(name: str) -> bool:
    return _top(name) != "pruner" or _under("pruner.lab")(name)


def _under(package: str):
    return lambda name: name == package or name.startswith(package + ".")


@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph()


def test_the_graph_holds_the_engine_the_programs_and_the_lab(graph):
    assert {"pruner.engine.search", "pruner.uci.loop", "pruner.analyse_app.review.model", "pruner.lab.matchlib.runner",
            "pruner.lab.tunelib.fit", "pruner.lab.nnuelib.train", "match", "tune"} <= set(graph)
    assert "pruner.engine.search" in graph["pruner.uci.engine_state"]
    assert "pruner.analyse_app.cli" in graph["pruner.__main__"]  # named in the subcommand table
    assert "pruner.lab.tunelib.gradient" in graph["pruner.lab.tunelib.fit"] and "pruner.lab.matchlib.pgnread" in graph["pruner.lab.tunelib.extract"]


def test_no_import_cycle(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + describe(cycle, graph)


def test_engine_imports_neither_protocol_nor_the_lab(graph):
    assert _crossings(graph, _under("pruner.engine"), lambda name: not _under("pruner.engine")(name)) == []


def test_protocol_imports_no_lab_module(graph):
    assert _crossings(graph, lambda name: not _is_lab(name), _is_lab) == []


def test_the_uci_server_and_analyse_do_not_import_each_other(graph):
    uci, analyse = _under("pruner.uci"), _under("pruner.analyse_app")
    assert _crossings(graph, uci, analyse) + _crossings(graph, analyse, uci) == []


def test_no_module_imports_a_script(graph):
    """A script (scripts/NAME.py) is a program: what two of them share is a library module."""
    scripts = {name for name, path in find_modules([(SCRIPTS, None)]).items()
               if os.path.dirname(path) == SCRIPTS}
    assert "match" in scripts and "matchlib" not in scripts
    assert _crossings(graph, lambda name: True, lambda name: name in scripts) == []


# Spelled in pieces so that this file does not match itself.
PATH_EDIT = re.compile(r"sys\.path\s*(?:\.\s*(?:insert|append|extend|remove|pop|clear)\s*\("
                       r"|\[[^\]]*\]\s*=(?!=)|=(?!=)|\+=)|sys" + r"path_prepend")
NOQA_E402 = re.compile(r"noqa\s*:[^\n]*\bE" + r"402\b")


def test_the_lab_and_the_tests_import_without_editing_sys_path(tmp_path):
    """The lab's libraries and the engine are installed packages: no module of scripts/ or
    tests/ edits sys.path to reach them, or silences flake8's E402 for an import after one."""
    assert PATH_EDIT.search("sys.pa" + "th.insert(0, root)") and PATH_EDIT.search("sys.pa" + "th[:0] = [x]")
    assert PATH_EDIT.search("monkeypatch.sys" + "path_prepend(x)") and not PATH_EDIT.search("if sys.path == []")
    assert NOQA_E402.search("import x  # noqa: F401,E" + "402")
    offending = []
    for folder in (SCRIPTS, os.path.join(ROOT, "tests")):
        for where, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(where, name)
                    with open(path, encoding="utf-8") as handle:
                        for number, line in enumerate(handle, 1):
                            if PATH_EDIT.search(line) or NOQA_E402.search(line):
                                offending.append("%s:%d: %s" % (os.path.relpath(path, ROOT), number, line.strip()))
    assert offending == []


def test_the_graph_sees_imports_in_functions_relative_ones_and_submodules(tmp_path):
    """The checks above can fail: a cycle closed only by an import inside a function, through
    a relative import and ``from package import submodule``, is found and named."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("import os\n\n\ndef late():\n    from .sub import b\n    return b\n")
    (package / "sub" / "b.py").write_text("from .. import c\n")
    (package / "c.py").write_text('import importlib\nMODULE = "pkg.a"\n')
    (tmp_path / "script.py").write_text("from pkg import a\n")
    sources = [(str(tmp_path), None)]
    graph = import_graph(sources)
    assert graph["pkg.a"] == {"pkg.sub.b": (str(package / "a.py"), 5)}
    assert set(graph["pkg.sub.b"]) == {"pkg.c"} and set(graph["pkg.c"]) == {"pkg.a"}
    assert find_cycle(graph) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]
    assert "pkg.a (" in describe(find_cycle(graph), graph) and ":5) -> pkg.sub.b" in describe(find_cycle(graph), graph)
    (package / "c.py").write_text("import importlib\n")
    assert find_cycle(import_graph(sources)) is None


def test_every_script_runs_from_any_directory(tmp_path):
    """After the install (``pip install -e .``), ``python scripts/NAME.py`` finds its libraries,
    ``engine`` and ``protocol`` wherever it is started: each script's ``--help`` from a folder
    outside the checkout, and a two-game match.py match there."""
    scripts = sorted(name for name in os.listdir(SCRIPTS) if name.endswith(".py"))
    assert "match.py" in scripts and "tune.py" in scripts
    runs = {name: subprocess.Popen([sys.executable, os.path.join(SCRIPTS, name), "--help"], cwd=str(tmp_path),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in scripts}
    failed = []
    for name, process in runs.items():
        out, err = process.communicate(timeout=120)
        if process.returncode != 0 or not out.startswith("usage: "):
            failed.append("%s: status %s, %s" % (name, process.returncode, (err or out).strip()[-300:]))
    assert failed == []
    engine = "%s %s" % (sys.executable, FAKE_ENGINE)
    match = subprocess.run([sys.executable, os.path.join(SCRIPTS, "match.py"), "--engine", engine, "--engine", engine,
                            "--depth", "1", "--games", "2", "--openings", "startpos", "--max-moves", "20"],
                           cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    assert match.returncode == 0 and "Final: W " in match.stdout, match.stdout + match.stderr
