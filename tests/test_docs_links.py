"""Every relative link in the README and the docs pages leads somewhere: the file it names
exists, and the `#anchor` it names is a heading of that page (GitHub's anchors), so a page
moved or a heading renamed cannot leave a dead link behind."""

import os
import re
import sys

import pytest

from paths import ROOT

pytestmark = pytest.mark.one_interpreter

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
"""An inline Markdown link or image, `[text](target "title")`; group 1 is the target."""
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
"""A target with a scheme (https:, mailto:, ...): not a file of the repository."""
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
"""A fenced code block, where neither `#` lines nor brackets are Markdown."""


def markdown_pages() -> list:
    """README.md, CHANGELOG.md and every .md file under docs/, as paths relative to the root."""
    pages = ["README.md", "CHANGELOG.md"]
    for folder, _, files in os.walk(os.path.join(ROOT, "docs")):
        pages += [os.path.relpath(os.path.join(folder, name), ROOT) for name in files if name.endswith(".md")]
    return sorted(pages)


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code, where brackets are not links."""
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", FENCE.sub("", text), flags=re.S)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text without markup, lower case, punctuation
    other than `-` and `_` dropped, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: str) -> set:
    """The anchors of a Markdown page: its headings' (a repeated one numbered -1, -2, ... as
    GitHub numbers them) and any `<a name>`/`id` of its HTML."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        text = handle.read()
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", FENCE.sub("", text), re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else "%s-%d" % (base, count))
    found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return found


def dead_links(page: str) -> list:
    """The relative links of one page that name a missing file or a missing heading, each as
    `page: target (reason)`."""
    with open(os.path.join(ROOT, page), encoding="utf-8") as handle:
        targets = LINK.findall(prose(handle.read()))
    dead = []
    for target in targets:
        if EXTERNAL.match(target):
            continue
        name, _, anchor = target.partition("#")
        path = os.path.normpath(os.path.join(os.path.dirname(page), name)) if name else page
        if not os.path.exists(os.path.join(ROOT, path)):
            dead.append("%s: %s (no file %s)" % (page, target, path))
        elif anchor and path.endswith(".md") and anchor not in anchors(path):
            dead.append("%s: %s (no heading #%s in %s)" % (page, target, anchor, path))
    return dead


def test_slug_follows_github_anchors():
    assert slug("xboard / WinBoard through PolyGlot") == "xboard--winboard-through-polyglot"
    assert slug("Issue 47's targets (2026-11-28, commit 5578c34)") == "issue-47s-targets-2026-11-28-commit-5578c34"
    assert slug("`UCI_Elo` calibration check") == "uci_elo-calibration-check"
    assert slug("Fuzzing `pruner analyse`") == "fuzzing-pruner-analyse"


def test_the_checker_finds_a_dead_file_and_a_dead_anchor(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "here.md").write_text("# Here\n\n## A `code` heading\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "[ok](docs/here.md#a-code-heading) [gone](docs/gone.md) [bad](docs/here.md#nowhere)\n"
        "`[not a link](docs/gone.md)` [web](https://example.org/x.md) [self](#top)\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", str(tmp_path))
    assert dead_links("README.md") == ["README.md: docs/gone.md (no file docs/gone.md)",
                                       "README.md: docs/here.md#nowhere (no heading #nowhere in docs/here.md)",
                                       "README.md: #top (no heading #top in README.md)"]


def test_every_relative_link_of_the_docs_leads_to_a_file_and_heading():
    pages = markdown_pages()
    assert "README.md" in pages and "docs/architecture.md" in pages
    dead = [link for page in pages for link in dead_links(page)]
    assert dead == []
