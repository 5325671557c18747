"""The wheel: built offline, it installs one top-level package holding every source file, and works.

The checkout keeps graphs/, db_schemas/, prompts/, policies/ and configs/ at the top level; the wheel
must map each inside `intellagent/` and leave none out (pyproject.toml lists the packages by hand).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from intellagent.config import load_config
from intellagent.environment.loading import load_environment
from intellagent.prompt_files import PROMPTS_DIR

ROOT = Path(__file__).resolve().parents[2]
MAPPED = {"intellagent": "intellagent", "graphs": "intellagent/graphs", "db_schemas": "intellagent/db_schemas",
          "prompts": "intellagent/prompts", "policies": "intellagent/policies", "configs": "intellagent/configs"}
SHIPPED = ("*.py", "*.md", "*.mmd", "*.pseudo", "*.yml", "*.html")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of a copy of the sources (building in place would leave build/ in the checkout)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in MAPPED:  # a link is copied as the link it is (intellagent/graphs), as a checkout holds it
        shutil.copytree(ROOT / folder, source / folder, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "--quiet", "-w", str(out), str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (path,) = out.glob("intellagent-*.whl")
    return path


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed; the dependencies are this environment's."""
    home = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(home)], check=True)
    python = home / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "--quiet", str(wheel)], check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # A plain path in a .pth file: the dependencies are found there, but that folder's own .pth files
    # (the checkout's editable install among them) are not run.
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return home


def _run(venv: Path, *command: str, cwd: Path) -> str:
    done = subprocess.run([str(venv / "bin" / command[0]), *command[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_wheel_installs_one_top_level_package(wheel):
    names = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {name for name in names if not name.endswith(".dist-info")} == {"intellagent"}


def test_every_source_file_of_the_checkout_is_in_the_wheel_inside_the_package(wheel):
    inside = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"{target}/{path.relative_to(ROOT / folder).as_posix()}"
                for folder, target in MAPPED.items() for pattern in SHIPPED
                for path in (ROOT / folder).rglob(pattern) if "__pycache__" not in path.parts}
    assert len(expected) > 100
    assert sorted(expected - inside) == []


def test_the_installed_command_line_answers_help_and_version(venv, tmp_path):
    assert "--config" in _run(venv, "intellagent", "--help", cwd=tmp_path)
    assert _run(venv, "intellagent", "--version", cwd=tmp_path).startswith("intellagent ")


def test_the_installed_package_loads_the_example_config_and_domain_from_inside_itself(venv, tmp_path):
    script = """
import importlib.util, intellagent
from pathlib import Path
from intellagent.config import load_config
from intellagent.environment.loading import load_environment
package = Path(intellagent.__file__).parent
config = load_config("airline.yml")
environment = load_environment(config.environment)
print(config.environment.policy.resolve().is_relative_to(package), len(environment.tables), len(environment.tools))
print(*(importlib.util.find_spec(name) is None for name in ("graphs", "db_schemas", "prompts", "policies", "configs")))
from intellagent.prompt_files import PROMPTS_DIR
print(PROMPTS_DIR.is_relative_to(package), len(list(PROMPTS_DIR.rglob("*.md"))))
"""
    here = load_environment(load_config("airline.yml").environment)
    lines = _run(venv, "python", "-c", script, cwd=tmp_path).splitlines()
    assert lines[0].split() == ["True", str(len(here.tables)), str(len(here.tools))]
    assert lines[1].split() == ["True"] * 5
    assert lines[2].split() == ["True", str(len(list(PROMPTS_DIR.rglob("*.md"))))]


def test_a_config_naming_the_example_domain_by_its_former_top_level_name_still_loads(venv, tmp_path):
    script = """
from intellagent.config import load_config
from intellagent.environment.loading import load_environment
config = load_config({"environment": {"policy": "policy.md", "schema": "db_schemas.airline.schema",
                                      "tools": "db_schemas.airline.tools"}})
environment = load_environment(config.environment)
print(environment.tables[0].__module__)
"""
    (tmp_path / "policy.md").write_text("Be kind.\n")
    assert _run(venv, "python", "-c", script, cwd=tmp_path).strip() == "intellagent.db_schemas.airline.schema"


def test_the_installed_pytest_plugin_is_loaded(venv, tmp_path):
    assert "--intellagent-llm" in _run(venv, "python", "-m", "pytest", "--help", cwd=tmp_path)
