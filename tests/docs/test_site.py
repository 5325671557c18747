"""The documentation site builds strictly (a broken link, a missing page or a stale reference fails it), its
reference tables hold what the code accepts, and the README's links lead to pages that exist."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo

from intellagent.cli import parser
from intellagent.config import Config
from tests.docs.site_hook import reference_hook

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")
# Every element a page of the site may hold: a docstring's `<id>` outside a code span would be one more.
ELEMENTS = {
    "a", "abbr", "article", "aside", "b", "blockquote", "body", "br", "button", "caption", "code", "col",
    "colgroup", "dd", "del", "details", "div", "dl", "dt", "em", "figcaption", "figure", "footer", "form", "h1",
    "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "i", "img", "input", "kbd", "label", "li",
    "link", "main", "mark", "meta", "nav", "ol", "p", "path", "pre", "script", "section", "small", "span",
    "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td", "th", "thead", "title", "tr", "u",
    "ul",
}


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


def test_the_configuration_reference_names_every_key_of_every_section(site: Path) -> None:
    page = (site / "reference" / "configuration" / "index.html").read_text()
    sections = {"": Config} | {name: _section(field) for name, field in Config.model_fields.items() if _section(field)}
    keys = [f"{prefix}.{field.alias or name}".lstrip(".") for prefix, model in sections.items()
            for name, field in model.model_fields.items()]
    missing = [key for key in keys if f"<code>{key}</code>" not in page]
    assert len(keys) > 80 and not missing, f"keys the configuration reference lacks: {missing}"


def test_the_command_line_reference_names_every_option(site: Path) -> None:
    page = (site / "reference" / "cli" / "index.html").read_text()
    options = [option for action in parser()._actions for option in action.option_strings]
    missing = [option for option in options if f"<code>{option}" not in page]
    assert len(options) > 20 and not missing, f"options the command-line reference lacks: {missing}"


def test_no_page_holds_an_element_html_does_not_have(site: Path) -> None:
    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.unknown: set[str] = set()

        def handle_starttag(self, tag: str, attrs: object) -> None:
            if tag not in ELEMENTS:
                self.unknown.add(tag)

    found = {}
    for page in site.rglob("*.html"):
        tags = Tags()
        tags.feed(page.read_text())
        if tags.unknown:
            found[str(page.relative_to(site))] = sorted(tags.unknown)
    assert not found, f"text taken for HTML elements (write it in a code span): {found}"


def test_a_configuration_key_without_a_description_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    class Section(BaseModel):
        told: int = Field(default=1, description="Said.")
        untold: int = 2

    with caplog.at_level(logging.WARNING, logger="mkdocs"):
        rows = [key.row() for _, keys in reference_hook().sections(Section, "section.") for key in keys]

    assert rows[0] == "| `section.told` | int | `1` | Said. |"
    assert [record.getMessage() for record in caplog.records] == [
        "configuration key section.untold has no description: give its Field one"]


def test_a_marker_no_table_answers_is_a_warning_and_stays(caplog: pytest.LogCaptureFixture) -> None:
    page = type("Page", (), {"file": type("File", (), {"src_path": "x.md"})()})()
    with caplog.at_level(logging.WARNING, logger="mkdocs"):
        markdown = reference_hook().on_page_markdown("<!-- reference: nothing -->\n", page=page)

    assert markdown == "<!-- reference: nothing -->\n"
    assert "x.md: no reference table is named 'nothing'" in caplog.text


def _section(field: FieldInfo) -> type[BaseModel] | None:
    """The model of a top-level key that is a section of keys (`simulate`), else None."""
    kind = field.annotation
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None
