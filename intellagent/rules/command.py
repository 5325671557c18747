"""`intellagent rules`: test a domain's rules file, or compile a proposal of one.

    intellagent rules test --config CONFIG      every rule checked: its names against the domain, its citation
                                                against the policy, its examples; exit 1 if one is refused
    intellagent rules compile --config CONFIG   the describe stage with the compiler on, in a run folder of its
                                                own (results/<name>-rules): the rules it compiles are written
                                                beside the reviewed file (rules.proposed.yml, with
                                                rules.proposed.diff), never over it
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from intellagent.errors import UsageError

if TYPE_CHECKING:
    from intellagent.config import Config

REFUSED = 1
"""The exit code of `rules test` when a rule is refused: a gate that failed, as a run's."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        raise UsageError(f"rules: {message}; see intellagent rules --help")


def parser() -> argparse.ArgumentParser:
    """The parser of `intellagent rules`."""
    p = _Parser(prog="intellagent rules", description=__doc__.split("\n\n")[0],
                epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("test", "compile"))
    p.add_argument("--config", required=True, metavar="CONFIG", help="a config file, or an example's name")
    p.add_argument("--output", type=Path, metavar="DIR",
                   help="compile: its run folder, made anew (default: results/<name>-rules; its LLM calls are kept)")
    p.add_argument("--llm", metavar="SPEC", help="compile: the model of every framework role")
    return p


def main(argv: list[str]) -> int:
    """Run `intellagent rules` and return its exit code."""
    from intellagent.config import apply_overrides, load_config

    args = parser().parse_args(argv)
    config = apply_overrides(load_config(args.config), llm=args.llm)
    return _test(config) if args.action == "test" else _compile(config, args)


def _test(config: Config) -> int:
    from intellagent.environment import load_environment
    from intellagent.rules.review import reviewed
    from intellagent.rules.rules_file import read_rules

    path = config.environment.rules
    if path is None:
        raise UsageError("rules test: the config names no rules file; set environment.rules")
    environment = load_environment(config.environment)
    found = reviewed(read_rules(path), environment, folder=path.parent)
    for rule in found.held:
        print(f"ok       {rule.id} ({rule.kind}): keeps {len(rule.examples.keeps)}, breaks "
              f"{len(rule.examples.breaks)} examples")
    for refused in found.refused:
        print(f"refused  {refused.id}: {refused.reason}")
    print(f"{len(found.held)} rules in force, {len(found.refused)} refused ({path})")
    return REFUSED if found.refused else 0


def _compile(config: Config, args: argparse.Namespace) -> int:
    from intellagent.rules.proposed_rules import proposed_path
    from intellagent.run_folder import RunFolder
    from intellagent.runner import run

    config.describe.assertions = "yes"
    output = args.output or Path("results") / f"{config.name}-rules"
    result = run(config, output=output, fresh=True, stages=("describe",))
    reviewed_file = config.environment.rules
    target = proposed_path(reviewed_file) if reviewed_file else RunFolder(result.folder).proposed_rules.path
    print(f"proposed rules in {target}" + (f"; beside {reviewed_file}, unchanged" if reviewed_file else ""))
    return 0
