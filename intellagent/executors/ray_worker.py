"""A Ray worker of a run: it does the stages' items in a folder of its own, with models that ask the run's process.

The worker keeps a mirror of the files of the run folder that its items read (the background world once,
then each event's few rows), sent by the run's process as Ray objects. An item runs exactly as in the run's
process, against the mirror; the files it writes there are read back, removed, and returned with its
result, for the run's process to write in the run folder and record.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.config import Config
from intellagent.context import RunContext
from intellagent.executors.local import LocalExecutor
from intellagent.executors.local import opened as opened_work
from intellagent.executors.shipping import travelling, unpack
from intellagent.llm import Usage
from intellagent.llm.relayed import ModelRequest, Outcome, RelayedModels
from intellagent.progress import RunProgress
from intellagent.run_folder import RunFolder

if TYPE_CHECKING:
    from ray.actor import ActorHandle

    from intellagent.context import StageWork


def work_name(work: type[StageWork[Any, Any]]) -> str:
    """How the run's process and its workers name a stage's work."""
    return f"{work.__module__}:{work.__qualname__}"


class Worker:
    """One Ray worker process of a run (a Ray actor: `RayExecutor` starts it with `ray.remote`).

    Args:
        config: the run's config.
        chatbot: the chatbot given through the Python API, packed (`shipping.pack`), or None.
        relay: the actor through which the run's process answers model requests.
        debug: as the run's.
    """

    def __init__(self, config: Config, chatbot: bytes | None, relay: ActorHandle, *, debug: bool) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="intellagent-worker-"))

        async def ask(request: ModelRequest) -> Outcome:
            return await relay.ask.remote(request)

        usage = Usage()  # each item's share is what counts here; the run's totals are kept by the run's process
        self.ctx = RunContext(config=config, folder=RunFolder(self.folder), usage=usage, debug=debug,
                              llms=RelayedModels(config, ask=ask, usage=usage),
                              progress=RunProgress(usage, enabled=False), executor=LocalExecutor())
        self.ctx.chatbot = unpack(chatbot, self.ctx) if chatbot is not None else None
        self.mirrored: dict[str, asyncio.Future[None]] = {}
        self.opened: dict[str, tuple[AsyncExitStack, Any]] = {}

    async def open(self, work: type[StageWork[Any, Any]], given: bytes, files: dict[str, Any]) -> None:
        """Set a stage's work up, once its shared files are here."""
        await self._mirror(files)
        stack = AsyncExitStack()
        opened = await stack.enter_async_context(opened_work(work, self.ctx, unpack(given, self.ctx)))
        self.opened[work_name(work)] = (stack, opened)

    async def do(self, name: str, item: Any, files: dict[str, Any]) -> tuple[Any, dict[str, str]]:
        """One item of an open work: its result (or the exception it raised), and the files it wrote by name."""
        opened = self.opened[name][1]
        try:
            await self._mirror(files)
            outcome = await opened.do(item)
        except Exception as error:  # the item's failure, recorded by the run's process as it would its own
            outcome = travelling(error)
        written = {}
        for name_written in type(opened).writes(self.ctx.folder, item):
            path = self.ctx.folder.path(name_written)
            if path.exists():
                written[name_written] = path.read_text(encoding="utf-8")
                path.unlink()
        return outcome, written

    async def close(self, name: str) -> None:
        """Close a stage's work (its MCP server, say)."""
        stack, _ = self.opened.pop(name)
        await stack.aclose()

    async def leave(self) -> None:
        """Close whatever is open and remove the worker's folder."""
        for name in list(self.opened):
            await self.close(name)
        shutil.rmtree(self.folder, ignore_errors=True)

    async def _mirror(self, files: dict[str, Any]) -> None:
        """Have the files here; the items that need a file at once all wait for its one copy."""
        for name, ref in files.items():
            if name not in self.mirrored:
                self.mirrored[name] = asyncio.ensure_future(self._copy(name, ref))
            try:
                await asyncio.shield(self.mirrored[name])
            except Exception:
                self.mirrored.pop(name, None)  # the next item that needs it tries again
                raise

    async def _copy(self, name: str, ref: Any) -> None:
        path = self.ctx.folder.path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(await ref)

