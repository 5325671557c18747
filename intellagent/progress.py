"""The live progress display: one bar per stage with items done, errors, tokens and cost so far."""

from __future__ import annotations

import logging
import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from intellagent.llm.accounting import Usage


class _UsageColumn(ProgressColumn):
    """Tokens and cost of the task's stage, read live from the run's accounting."""

    def __init__(self, usage: Usage) -> None:
        super().__init__()
        self.usage = usage

    def render(self, task: Task) -> Text:
        tally = self.usage.report().stages.get(task.fields["stage"])
        if tally is None:
            return Text("")
        tokens = tally.input_tokens + tally.output_tokens
        cached = f", {tally.cached} cached" if tally.cached else ""
        return Text(f"{tokens:,} tok ${tally.cost_usd:.4f}{cached}", style="dim")


def errors_text(count: int) -> str:
    """A bar's error count, in words ("1 error", "3 errors")."""
    return f"{count} error{'' if count == 1 else 's'}"


class StageProgress:
    """The bar of one stage, drawn once the stage has an item to do: a bar of nothing to do would sit at 0/0
    with its clock running, as if a step were still working."""

    def __init__(self, progress: Progress | None, name: str, total: int) -> None:
        self._progress = progress
        self._name = name
        self._task: TaskID | None = None
        self.done = 0
        self.errors = 0
        self.set_total(total)

    def advance(self, *, error: bool = False) -> None:
        """Count one finished item (an `error` one is counted apart)."""
        self.done += 1
        self.errors += int(error)
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, advance=1, errors=errors_text(self.errors))

    def set_total(self, total: int) -> None:
        """Change how many items the stage expects (e.g. when a sample is redrawn)."""
        if self._progress is None:
            return
        if self._task is not None:
            self._progress.update(self._task, total=total)
        elif total > 0:
            self._task = self._progress.add_task(self._name, total=total, completed=self.done,
                                                 errors=errors_text(self.errors), stage=self._name)


class RunProgress:
    """The display of a whole run; silent when disabled (API use, tests)."""

    def __init__(self, usage: Usage, *, enabled: bool = True, console: Console | None = None) -> None:
        self._progress: Progress | None = None
        self._moved: list[tuple[logging.StreamHandler, object]] = []  # log handlers and their own streams
        if enabled:
            self._progress = Progress(
                TextColumn("{task.description:<9}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[errors]}", style="red"),
                _UsageColumn(usage),
                TimeElapsedColumn(),
                console=console or Console(stderr=True),
            )

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
            self._log_above_the_bars()
        return self

    def __exit__(self, *_: object) -> None:
        if self._progress is not None:
            self._progress.stop()
            for handler, stream in self._moved:
                handler.setStream(stream)
            self._moved.clear()

    def _log_above_the_bars(self) -> None:
        """Point the log handlers that write to the terminal at the live display's own stream.

        The display redirects `sys.stderr` so that whatever is written prints above the bars; but a log
        handler keeps the stream it was made with, and its lines, written past the display, left a second
        copy of the bars below them.
        """
        for handler in logging.getLogger().handlers:
            terminal = isinstance(handler, logging.StreamHandler) and handler.stream in (sys.__stderr__, sys.__stdout__)
            if terminal and sys.stderr is not handler.stream:  # not redirected when the output is no terminal
                self._moved.append((handler, handler.setStream(sys.stderr)))

    def stage(self, name: str, total: int) -> StageProgress:
        """A new bar for a stage expecting `total` items (drawn once it expects one)."""
        return StageProgress(self._progress, name, total)
