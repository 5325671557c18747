"""The command line: documented options, one-line errors with exit code 2."""

from __future__ import annotations

import importlib.metadata
import io
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from rich.console import Console

from intellagent.cli import main, parser
from intellagent.llm import Usage
from intellagent.progress import RunProgress

ROOT = Path(__file__).resolve().parents[2]

OPTIONS = ["--config", "--output", "--llm", "--chatbot-llm", "--samples", "--seed", "--workers", "--max-cost",
           "--replay", "--fresh", "--fail-under", "--baseline", "--trials", "--gate-on", "--calibrate",
           "--min-detection", "--min-outcome", "--debug", "--help", "--version"]


def test_help_documents_every_option():
    text = parser().format_help()
    for option in OPTIONS:
        assert option in text
    assert "openai:MODEL@BASE_URL" in text and "PROVIDER:MODEL" in text
    codes = text[text.index("exit codes"):]
    assert all(f"{code} " in codes for code in (0, 1, 2, 3, 4, 130))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--config", "nowhere.yml"], "config file nowhere.yml not found"),
        (["--samples", "3"], "--config"),
        (["--config", "airline.yml", "--llm", "gpt-4o"], "model SPEC 'gpt-4o' not understood"),
        (["--config", "airline.yml", "--samples", "zero"], "invalid int value"),
        (["--config", "airline.yml", "--fail-under", "1.5"], "report.fail_under"),
        (["--config", "airline.yml", "--stages", "judge"], "unknown stage"),
        (["--config", "airline.yml", "--min-detection", "2"], "report.min_detection"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(argv, expected, capsys, tmp_path):
    code = main([*argv, "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert expected in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_bad_config_file_names_the_key_and_file(tmp_path, capsys):
    config = tmp_path / "bad.yml"
    config.write_text("environment:\n  policy: p.md\n  schema: s\n  tools: t\nturns: 3\n")
    (tmp_path / "p.md").write_text("policy")
    assert main(["--config", str(config)]) == 2
    assert f"{config}: unknown key `turns`" in capsys.readouterr().err


def test_run_py_is_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "run.py", "--config", "nowhere.yml"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("error: config file nowhere.yml not found")


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"intellagent {importlib.metadata.version('intellagent')}"


@pytest.mark.parametrize(("failed", "shown"), [(0, "0 errors"), (1, "1 error"), (2, "2 errors")])
def test_a_progress_bar_counts_its_errors_in_words(failed, shown):
    console = Console(record=True, width=160, force_terminal=False)
    with RunProgress(Usage(), console=console) as progress:
        bar = progress.stage("simulate", total=3)
        for number in range(3):
            bar.advance(error=number < failed)
    assert f" {shown} " in console.export_text()


def test_a_step_with_nothing_to_do_draws_no_bar_until_it_has_something():
    console = Console(record=True, width=160, force_terminal=False)
    with RunProgress(Usage(), console=console) as progress:
        progress.stage("graph", total=0)  # the weights come from the flows: no call to make
        later = progress.stage("describe", total=0)
        later.set_total(2)
        later.advance()
        later.advance()
    shown = console.export_text()
    assert "graph" not in shown and "0/0" not in shown
    assert "describe" in shown and "2/2" in shown


def test_a_log_line_during_the_bars_prints_above_them_and_not_past_the_display(capfd):
    """A handler made before the display (as the command line's is) writes through the display's stream:
    written past it, the line left a second copy of the bars below."""
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    handler = logging.StreamHandler(sys.__stderr__)
    logging.getLogger().addHandler(handler)
    try:
        with RunProgress(Usage(), console=console) as progress:
            progress.stage("simulate", total=2)
            logging.getLogger("intellagent").warning("a tool timed out")
        logging.getLogger("intellagent").warning("after the bars")
    finally:
        logging.getLogger().removeHandler(handler)
    assert "a tool timed out" in screen.getvalue() and "after the bars" not in screen.getvalue()
    err = capfd.readouterr().err
    assert "a tool timed out" not in err and "after the bars" in err  # its own stream again once the bars are gone


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_cancelled_run_stops_cleanly_with_130_and_says_so_in_run_json(tmp_path, stop):
    """CI cancels a job with SIGTERM, a person with Ctrl-C: either way no traceback, exit 130, resumable."""
    asked = threading.Event()

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self):
            asked.set()
            time.sleep(30)  # a model that never answers in time

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        # The run starts as a terminal starts it, with Ctrl-C handled. A suite started in the background of a
        # script (as a CI runner may start it) ignores SIGINT, every process of it inherits that, and so
        # would the run: it then never sees the signal.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            job = subprocess.Popen(
                [sys.executable, "run.py", "--config", "airline.yml", "--output", str(tmp_path / "run"),
                 "--no-progress", "--llm", f"openai:gpt-test@http://127.0.0.1:{httpd.server_address[1]}/v1"],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "OPENAI_API_KEY": "test", "PYTHONFAULTHANDLER": "1"},
            )
        finally:
            signal.signal(signal.SIGINT, previous)
        assert asked.wait(60), job.communicate()
        job.send_signal(stop)
        try:
            _, err = job.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            # Say how the run's threads handle signals, and where they stood.
            handling = _signal_handling(job.pid)
            job.send_signal(signal.SIGABRT)
            pytest.fail(f"the run went on 60 s after {stop.name}; its threads: {handling}\n"
                        f"{job.communicate()[1][-6000:]}")
    finally:
        httpd.shutdown()
    assert job.returncode == 130
    assert "run the same command again to resume" in err
    assert "Traceback" not in err and "Warning" not in err
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["status"] == "interrupted" and info["stages"]["describe"]["status"] == "interrupted"


def _signal_handling(pid: int) -> str:
    """Each thread's pending, blocked, ignored and caught signals (hex masks), as Linux shows them."""
    lines = []
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        lines.append(" ".join(f"{name}={fields.get(name, '?').strip()}" for name in ("Name", "SigPnd", "ShdPnd",
                                                                                    "SigBlk", "SigIgn", "SigCgt")))
    return "; ".join(lines)


def test_a_key_written_into_a_base_url_appears_in_no_file_log_or_message(tmp_path):
    class Failing(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(500)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    planted = "sk-PLANTED-7c1e"
    try:
        done = subprocess.run(
            [sys.executable, "run.py", "--config", "airline.yml", "--output", str(tmp_path / "run"), "--no-progress",
             "--debug", "--llm", f"openai:gpt-test@http://user:{planted}@127.0.0.1:{httpd.server_address[1]}/v1",
             "--chatbot-llm", f"openai:bot@https://{planted}@bot.invalid/v1"],
            cwd=ROOT, capture_output=True, text=True, env={**os.environ, "OPENAI_API_KEY": "test"}, timeout=300,
        )
    finally:
        httpd.shutdown()
    assert done.returncode != 0 and "***@127.0.0.1" in done.stdout + done.stderr
    assert planted not in done.stdout + done.stderr
    written = [path for path in (tmp_path / "run").rglob("*") if path.is_file()]
    assert written and not [path for path in written if planted.encode() in path.read_bytes()]


def test_help_loads_neither_the_models_nor_the_pipeline():
    heavy = "('openai', 'langchain_core', 'langgraph', 'intellagent.runner')"
    probe = (f"import sys\nfrom intellagent.cli import parser\nparser().format_help()\n"
             f"print(sorted(m for m in {heavy} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
