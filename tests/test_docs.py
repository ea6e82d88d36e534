"""The documentation: the README is a front page whose links all work in a clone, and the
site in docs/ builds with ``mkdocs build --strict`` (the docs extra, in ``.venv-docs`` as
``.ci/run`` makes it), which fails on a page left out of the navigation.

Without mkdocs these builds are skipped with the reason; under ``CI=true`` they fail."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDES = {
    "docs/run/discord-application.md": "# The Discord application",  # running the bot
    "docs/run/live-board.md": "# Turning on the live board",
    "docs/develop/a-click.md": "# How a click travels",
}
"""The pages the README must link to, each with the title that shows it is that page."""
LINK = re.compile(r"\]\(([^)\s]+)\)|<img [^>]*src=\"([^\"]+)\"")


def readme_links(text: str) -> list[str]:
    """The targets of the Markdown links and images and of the ``<img>`` tags in ``text``,
    leaving out what is inside code blocks."""
    prose = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return [a or b for a, b in LINK.findall(prose)]


def slug(heading: str) -> str:
    """A heading's anchor as MkDocs makes it (Python-Markdown's ``toc.slugify``): ASCII,
    punctuation dropped, lower case, spaces and hyphens to one hyphen."""
    text = unicodedata.normalize("NFKD", re.sub(r"[`*]", "", heading))
    text = re.sub(r"[^\w\s-]", "", text.encode("ascii", "ignore").decode()).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"),
                  flags=re.MULTILINE | re.DOTALL)  # fmt: skip
    return {slug(m) for m in re.findall(r"^#{1,6} (.+)$", text, flags=re.MULTILINE)}


def test_the_readme_links_to_the_guides() -> None:
    """A newcomer finds from the front page how to run the bot, how to turn on the live
    board and how a click travels through the layers."""
    links = {link.split("#")[0] for link in readme_links(README.read_text(encoding="utf-8"))}
    for page, title in GUIDES.items():
        assert page in links, f"the README does not link to {page}"
        assert (ROOT / page).read_text(encoding="utf-8").startswith(title + "\n"), page


def test_every_relative_link_of_the_readme_leads_to_a_file_of_the_clone() -> None:
    """The docs are hosted nowhere: each link must work in a clone (and an anchor must
    be a heading of its page)."""
    broken = []
    for link in readme_links(README.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", link):
            continue  # https:, mailto:: outside the clone
        path, _, anchor = link.partition("#")
        target = ROOT / path if path else README
        found = target.is_file() and target.resolve().is_relative_to(ROOT)
        if not found or (anchor and anchor not in anchors(target)):
            broken.append(link)
    assert broken == []


def test_the_link_checker_can_fail() -> None:
    """Links in code blocks are no links; a heading's anchor drops its punctuation."""
    text = '[a](docs/x.md#y) ![b](docs/i.png)\n```\n[c](no.md)\n```\n<img src="d.png">\n'
    assert readme_links(text) == ["docs/x.md#y", "docs/i.png", "d.png"]
    assert slug("A server's own settings: `/ttt config`") == "a-servers-own-settings-ttt-config"


def mkdocs() -> str:
    """The mkdocs of the docs venv, or the one on PATH; a skip with the reason (a failure
    under CI=true, where .ci/run installs it) without either."""
    found = ROOT / ".venv-docs" / "bin" / "mkdocs"
    if found.is_file():
        return str(found)
    on_path = shutil.which("mkdocs")
    if on_path is not None:
        return on_path
    reason = (
        "mkdocs is not installed: python3 -m venv .venv-docs && .venv-docs/bin/pip install "
        "'mkdocs>=1.6,<2' 'mkdocs-material>=9.5,<10' (see docs/develop/docs-site.md)"
    )
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason + " - CI must build the documentation", pytrace=False)
    pytest.skip(reason)


def build(folder: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of a copy of the docs in ``folder``."""
    return subprocess.run(
        [mkdocs(), "build", "--strict", "--site-dir", str(folder / "site")],
        cwd=folder, capture_output=True, text=True, timeout=120,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip


def copy_of_the_docs(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    return tmp_path


@pytest.mark.slow  # mkdocs in a process of its own, about 2 s
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    result = build(copy_of_the_docs(tmp_path))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "develop" / "a-click.html").is_file()


@pytest.mark.slow  # mkdocs in a process of its own, about 2 s
def test_a_page_missing_from_the_navigation_fails_the_build(tmp_path: Path) -> None:
    """validation.nav.omitted_files in mkdocs.yml, made an error by --strict: a page
    nobody can reach from the navigation is a page lost."""
    folder = copy_of_the_docs(tmp_path)
    (folder / "docs" / "run" / "orphan.md").write_text("# Orphan\n\nIn no nav.\n")
    result = build(folder)
    assert result.returncode != 0
    assert 'not included in the "nav"' in result.stderr and "run/orphan.md" in result.stderr
