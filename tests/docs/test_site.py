"""The documentation site builds strictly (a broken link, a missing page or a stale reference fails it), and
the README's links lead to pages that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `mkdocs build --strict` writes it, into a folder of its own (offline: no plugin fetches)."""
    folder = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(folder)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return folder


def built_page(site: Path, source: Path) -> Path:
    """Where the site holds the page written from docs/<source> (mkdocs' directory URLs)."""
    stem = source.with_suffix("")
    return site / (stem.parent if stem.name == "index" else stem) / "index.html"


def test_the_site_builds_strictly_with_every_page_of_the_docs_folder(site: Path) -> None:
    sources = [path.relative_to(ROOT / "docs") for path in (ROOT / "docs").rglob("*.md")]
    missing = [str(source) for source in sources if not built_page(site, source).is_file()]
    assert sources and not missing, f"pages not built: {missing}"


def test_getting_started_shows_the_summary_the_readme_shows(site: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    first_line = re.search(r"<!-- --8<-- \[start:summary\] -->\n```\n(.+)\n", readme)
    assert first_line is not None, "README.md lacks its summary between the snippet markers"
    page = (site / "getting-started" / "index.html").read_text()
    assert first_line.group(1).split(";")[0] in page


def test_every_link_of_the_readme_leads_to_a_file_of_the_repository() -> None:
    targets = [link for link in LINK.findall((ROOT / "README.md").read_text()) if "://" not in link]
    missing = [link for link in targets if not (ROOT / link.split("#")[0]).exists()]
    assert targets and not missing, f"README.md links to files that do not exist: {missing}"
