"""The command line: parse, load the config, run, and turn the outcome into an exit code.

Exit codes: 0 done; 1 the quality gate failed; 2 usage or configuration error; 3 the run was
aborted (budget exhausted, too many errors, a refused LLM call). Errors are one line on stderr; the
traceback is shown only with --debug.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import logging
import signal
import sys
import threading
import warnings
from pathlib import Path

from intellagent.artifacts import FROZEN_STAGES, STAGES
from intellagent.config import apply_overrides, load_config, scenario_source
from intellagent.errors import IntellAgentError, RunAborted, UsageError
from intellagent.llm.spec import without_credentials
from intellagent.overrides import add_flags, given

EPILOG = """\
model SPECs:
  local                   the embedded model (default; no key, no network)
  openai:MODEL            OpenAI (key from OPENAI_API_KEY)
  azure:DEPLOYMENT        Azure OpenAI (AZURE_OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT, OPENAI_API_VERSION)
  openai:MODEL@BASE_URL   any OpenAI-compatible server (vLLM, Ollama, LM Studio, llama.cpp)
  PROVIDER:MODEL          any provider LangChain's init_chat_model knows (anthropic:, ollama:,
                          google_genai:, bedrock:, ...), once its integration package is installed

intellagent view [DIR]     every run under DIR (default results) in the browser: figures, each
                          policy's history, two runs compared (see intellagent view --help)
rules as code: intellagent rules test|compile --config CONFIG  (see intellagent rules --help)

exit codes: 0 done, 1 quality gate failed, 2 usage or config error, 3 run aborted,
  4 a file could not be read or written, 130 interrupted; after 3, 4 or 130 the same command resumes
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line and exit 2, like every other usage error
        raise UsageError(f"{message}; see --help")


def _version() -> str:
    try:
        return importlib.metadata.version("intellagent")
    except importlib.metadata.PackageNotFoundError:  # a checkout run without installing
        return "(not installed)"


def parser() -> argparse.ArgumentParser:
    """The argument parser of `run.py` (and of the installed `intellagent` command)."""
    p = _Parser(
        description="Stress-test a chatbot against its own policy: describe → populate → simulate → report.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"intellagent {_version()}")
    p.add_argument("--config", metavar="CONFIG",
                   help="a config file, or the name of an example config in configs/ (required to run)")
    p.add_argument("--output", type=Path, metavar="DIR", help="run folder (default: results/<config name>)")
    p.add_argument("--replay", action="store_true",
                   help="answer every LLM call from the run's cache; a call it cannot answer is an error")
    p.add_argument("--fresh", action="store_true",
                   help="replace an earlier run in DIR instead of resuming it (its recorded LLM calls are kept)")
    p.add_argument("--scenarios-from", metavar="DIR|tau:DIR",
                   help="reuse the scenarios and databases of a frozen test set (a run where describe and "
                        "populate ran, or a run's regression/) and record this run's LLM calls in its cache; runs "
                        "simulate and report (and production, with --transcripts). "
                        "tau:DIR plays the tasks of a τ-bench task set instead and grades them as τ-bench does")
    p.add_argument("--stages", metavar="LIST",
                   help=f"run only these stages, comma-separated ({','.join(STAGES)}); earlier ones must be done")
    p.add_argument("--world", type=Path, metavar="DELTA",
                   help="write the complete SQLite database that a stored world (events/<id>.delta.json, "
                        "dialogs/<id>.delta.json) stands for next to it, as <id>.sqlite, print its path, and stop")
    p.add_argument("--label", metavar="TEXT",
                   help="what to call the run in run.json and in the run viewer (a build number, a branch)")
    p.add_argument("--no-progress", action="store_true", help="no live progress bars")
    p.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    add_flags(p)
    return p


# The shell's code for a process stopped by Ctrl-C (128 + SIGINT); SIGTERM ends the same way.
INTERRUPTED = 130
# A file could not be read or written (a full disk, a read-only folder): distinct from the gate's 1.
FILE_ERROR = 4


def view_parser() -> argparse.ArgumentParser:
    """The argument parser of `intellagent view` (`python run.py view`)."""
    from intellagent.config import ReportConfig
    from intellagent.view.server import DEFAULT_PORT, HOST

    p = _Parser(
        prog="intellagent view",
        description=f"Serve, on {HOST} only and read-only, pages over every run folder under DIR: each run's "
                    "figures and report, each policy's history over the runs, and two runs compared.",
    )
    p.add_argument("dir", nargs="?", type=Path, default=Path("results"), metavar="DIR",
                   help="the folder that holds the run folders (default: results)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="N",
                   help=f"the port on {HOST} (default {DEFAULT_PORT}; 0: any free one)")
    p.add_argument("--significance", type=float, default=ReportConfig.model_fields["significance"].default,
                   metavar="ALPHA", help="level of the test that calls a policy significantly worse or better "
                   "(as --baseline's report.significance; default %(default)s)")
    p.add_argument("--open", action="store_true", help="open the index in the browser")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    arguments = sys.argv[1:] if argv is None else argv
    debug = "--debug" in arguments
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, format="%(levelname)s %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(_mask_credentials)
    # A run interrupted while graph tasks wait for a free worker leaves their coroutines unstarted (langgraph's
    # gate on `max_concurrency` does not close them), and Python warns as each is collected: after Ctrl-C that is
    # noise, not a fault of the run.
    warnings.filterwarnings("ignore", message="coroutine 'arun_with_retry' was never awaited", category=RuntimeWarning)
    on_main_thread = threading.current_thread() is threading.main_thread()  # where signals can be handled
    previous = signal.signal(signal.SIGTERM, _interrupt) if on_main_thread else None  # CI's cancel, as Ctrl-C
    try:
        if arguments[:1] == ["view"]:
            return _view(view_parser().parse_args(arguments[1:]))
        if arguments[:1] == ["rules"]:
            from intellagent.rules.command import main as rules_main

            return rules_main([word for word in arguments[1:] if word != "--debug"])
        args = parser().parse_args(arguments)
        if args.world is not None:
            return _write_world(args.world)
        if args.config is None:
            raise UsageError("the following arguments are required: --config; see --help")
        return _run(args)
    except IntellAgentError as error:
        if debug:
            raise
        label = "aborted" if isinstance(error, RunAborted) else "error"
        print(f"{label}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted; run the same command again to resume", file=sys.stderr)
        return INTERRUPTED
    except OSError as error:  # a full disk, a read-only folder: the machine's problem, not the chatbot's
        if debug:
            raise
        where = f": {error.filename}" if error.filename else ""
        print(f"error: cannot read or write{where} ({error.strerror or error}); fix it (free space, "
              "permissions) and run the same command again to resume", file=sys.stderr)
        return FILE_ERROR
    finally:
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous)


def _mask_credentials(record: logging.LogRecord) -> bool:
    """Every log line without the credentials of a URL in it (a key may be given in a base URL)."""
    record.msg, record.args = without_credentials(record.getMessage()), ()
    return True


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _view(args: argparse.Namespace) -> int:
    from intellagent.view.server import serve

    if not 0 < args.significance < 1:
        raise UsageError(f"--significance {args.significance}: give a level between 0 and 1, e.g. 0.05")
    return serve(args.dir, port=args.port, alpha=args.significance, open_browser=args.open)


def _write_world(delta: Path) -> int:
    from intellagent.environment import worlds

    if not worlds.is_delta(delta):
        raise UsageError(f"--world {delta}: give a stored world, a file named <id>{worlds.DELTA_SUFFIX}")
    target = worlds.whole_path(delta)
    try:
        worlds.materialize(delta, target)
    except FileNotFoundError as missing:
        raise UsageError(f"--world: {missing}") from None
    print(target)
    return 0


def _run(args: argparse.Namespace) -> int:
    from intellagent.runner import run  # the pipeline: not loaded for --help, --version or a usage error

    frozen, tau_data = scenario_source(args.scenarios_from)
    named = tuple(s.strip() for s in args.stages.split(",")) if args.stages is not None else None
    settings = given(args)
    for stage, setting in (("rollouts", "rollouts"), ("redteam", "red_team")):
        if named is not None and stage in named:  # --stages rollouts (or redteam) asks for them
            settings[setting] = True
    config = apply_overrides(load_config(args.config), tau_data=tau_data, **settings)
    default_stages = FROZEN_STAGES if frozen else STAGES
    stages = named if named is not None else default_stages
    result = run(
        config,
        output=args.output,
        fresh=args.fresh,
        replay=args.replay,
        stages=stages,
        scenarios_from=frozen,
        progress=not args.no_progress,
        debug=args.debug,
        label=args.label,
    )
    if result.report is not None:
        from intellagent.reports.summary import summary_text

        print(summary_text(result))
    else:
        print(f"artifacts in {result.folder}")
    for failure in result.gate_failures:
        print(f"gate: {failure}", file=sys.stderr)
    return result.exit_code
