"""The Ray executor (`executor: {type: ray}`): a stage's items as Ray tasks, on a local or a remote cluster.

The run's process (the driver) starts, on first use:

- `Relay`, an actor that carries the workers' model requests to the driver and the answers back. The
  driver takes the requests as they come and answers each with its own model of that role (see
  `llm.relayed`), so the cache, the budget, the rate limits and the accounting stay in one place.
- `processes` `Worker` actors (see `ray_worker`), each with its own folder and models.

For each stage, every worker opens the stage's work; each item then goes to the least busy worker, with
the Ray objects of the run folder's files it reads (each file is put in Ray's object store once, and a
worker fetches it once). The files an item writes come back with its result and are written here before
the stage records the item, as in a local run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from itertools import count
from typing import TYPE_CHECKING, Any

import ray
from ray.exceptions import RayTaskError

from intellagent.executors.ray_worker import Worker, work_name
from intellagent.executors.shipping import pack, travelling
from intellagent.files import write_atomic
from intellagent.llm.relayed import ModelRequest, Outcome, answer

if TYPE_CHECKING:
    from ray import ObjectRef
    from ray.actor import ActorHandle

    from intellagent.config import ExecutorConfig
    from intellagent.context import ItemWork, RunContext, StageWork
    from intellagent.llm import RoleModels


class Relay:
    """The actor between the workers' model requests and the driver that answers them."""

    def __init__(self) -> None:
        self.requests: asyncio.Queue[tuple[int, ModelRequest]] = asyncio.Queue()
        self.waiting: dict[int, asyncio.Future[Outcome]] = {}
        self.numbers = count()

    async def ask(self, request: ModelRequest) -> Outcome:
        """A worker's request, answered once the driver has answered it."""
        number = next(self.numbers)
        self.waiting[number] = asyncio.get_running_loop().create_future()
        await self.requests.put((number, request))
        return await self.waiting[number]

    async def take(self) -> list[tuple[int, ModelRequest]]:
        """The requests waiting for the driver (at least one: this waits for it)."""
        taken = [await self.requests.get()]
        while not self.requests.empty():
            taken.append(self.requests.get_nowait())
        return taken

    async def answer(self, number: int, outcome: Outcome) -> None:
        """The driver's outcome of a request, handed to the worker that asked (unless it stopped waiting)."""
        waiting = self.waiting.pop(number)
        if not waiting.done():
            waiting.set_result(outcome)


class RayExecutor:
    """Every item as a task of a Ray worker; the driver keeps the run folder, the cache and the accounting.

    Args:
        config: the run's `executor:` settings.
        workers: the run's `workers`: the items in flight at once, over all the Ray workers.
    """

    def __init__(self, config: ExecutorConfig, *, workers: int) -> None:
        self.config = config
        self.workers = workers
        self.chatbot: bytes | None = None
        self.started_ray = False
        self.relay: ActorHandle | None = None
        self.actors: list[ActorHandle] = []
        self.busy: list[int] = []
        self.shipped: dict[tuple[str, int, int], ObjectRef] = {}
        self.serving: asyncio.Task[None] | None = None
        self.answering: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def running(self, ctx: RunContext) -> AsyncIterator[None]:
        """The run's stages; Ray and the workers start with the first stage that has items to do."""
        # A chatbot that cannot travel is refused now, before any stage spends a model call.
        self.chatbot = pack(ctx.chatbot, what="the chatbot") if ctx.chatbot is not None else None
        try:
            yield
        finally:
            await self._stop()

    @asynccontextmanager
    async def stage(self, ctx: RunContext, work: type[StageWork[Any, Any]], given: Any = None
                    ) -> AsyncIterator[ItemWork]:
        if not self.actors:
            self._start(ctx)
        name = work_name(work)
        shared = self._files(ctx, [f for f in work.shared_files if ctx.folder.path(f).exists()])
        packed = pack(given, what="the stage's chatbots")
        try:
            await asyncio.gather(*(actor.open.remote(work, packed, shared) for actor in self.actors))
        except RayTaskError as failed:  # a bad chatbot target, say: the reason, as a local run gives it
            raise failed.cause from None

        async def do(item: Any) -> Any:
            worker = min(range(len(self.actors)), key=self.busy.__getitem__)
            self.busy[worker] += 1
            try:
                outcome, written = await self.actors[worker].do.remote(
                    name, item, self._files(ctx, work.reads(ctx.folder, item)))
            finally:
                self.busy[worker] -= 1
            for path, text in written.items():
                write_atomic(ctx.folder.path(path), text)
            if isinstance(outcome, BaseException):
                raise outcome
            return outcome

        try:
            yield do
        finally:
            await asyncio.gather(*(actor.close.remote(name) for actor in self.actors), return_exceptions=True)

    def _start(self, ctx: RunContext) -> None:
        if not ray.is_initialized():  # else the program that runs this one has joined or started a cluster
            quiet = {"include_dashboard": False, "log_to_driver": ctx.debug,
                     "logging_level": logging.DEBUG if ctx.debug else logging.WARNING}
            if self.config.address is None:  # a local cluster for the run, of `processes` CPUs (default: all)
                ray.init(num_cpus=self.config.processes, **quiet)
            else:
                ray.init(address=self.config.address, **quiet)
            self.started_ray = True
        processes = self.config.processes or max(1, min(int(ray.cluster_resources().get("CPU", 1)), self.workers))
        self.relay = ray.remote(Relay).options(max_concurrency=10_000).remote()
        worker = ray.remote(Worker).options(max_concurrency=self.workers + 4)
        self.actors = [worker.remote(ctx.config, self.chatbot, self.relay, debug=ctx.debug) for _ in range(processes)]
        self.busy = [0] * processes
        self.serving = asyncio.create_task(self._serve(ctx.llms))

    async def _serve(self, models: RoleModels) -> None:
        """Answer the workers' model requests as they come, each in a task of its own."""
        assert self.relay is not None
        while True:
            for number, request in await self.relay.take.remote():
                task = asyncio.create_task(self._answer(models, number, request))
                self.answering.add(task)
                task.add_done_callback(self.answering.discard)

    async def _answer(self, models: RoleModels, number: int, request: ModelRequest) -> None:
        assert self.relay is not None
        outcome = await answer(models, request)
        await self.relay.answer.remote(number, travelling(outcome) if isinstance(outcome, Exception) else outcome)

    def _files(self, ctx: RunContext, names: list[str]) -> dict[str, ObjectRef]:
        """The Ray objects of run-folder files, each put in the object store once (per version of the file)."""
        refs = {}
        for name in names:
            stat = ctx.folder.path(name).stat()
            key = (name, stat.st_mtime_ns, stat.st_size)
            if key not in self.shipped:
                self.shipped[key] = ray.put(ctx.folder.path(name).read_bytes())
            refs[name] = self.shipped[key]
        return refs

    async def _stop(self) -> None:
        for task in (self.serving, *self.answering):
            if task is not None:
                task.cancel()
        if self.actors:
            await asyncio.wait([asyncio.ensure_future(actor.leave.remote()) for actor in self.actors], timeout=10)
        for actor in [*self.actors, *([self.relay] if self.relay else [])]:
            ray.kill(actor)
        self.actors, self.relay = [], None
        if self.started_ray:
            ray.shutdown()
