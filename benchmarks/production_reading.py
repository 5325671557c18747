"""How fast production conversations are read and masked, for a file of them or for a made-up log of many.

    python benchmarks/production_reading.py logs/conversations.jsonl
    python benchmarks/production_reading.py --copies 1000

With a file, reads it (its format recognised record by record) and masks every conversation with the default
redaction. Without one, makes a Chat Completions log of `--copies` copies of the example conversations
(examples/production/airline_chat_completions.jsonl: seven calls of two interleaved conversations), each copy's
ids its own, so that the calls must be put back together by prefix. Prints the records, the conversations, and
the seconds spent reading and masking. No model is called.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

# Runnable from a checkout without installing the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from intellagent.config import Redaction
from intellagent.production.formats import Conversation, read_transcripts
from intellagent.production.redaction import redacted

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "production" / "airline_chat_completions.jsonl"


def made_up_log(copies: int, folder: Path) -> Path:
    """A Chat Completions log of `copies` copies of the example's calls, each with its own user and ids."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    path = folder / "calls.jsonl"
    path.write_text("".join(line.replace("mia_li_3668", f"user_{n}").replace("chatcmpl-", f"c{n}-") + "\n"
                            for n in range(copies) for line in lines), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, help="a transcripts file (default: a made-up log)")
    parser.add_argument("--copies", type=int, default=1000, help="copies of the example in the made-up log")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.file or made_up_log(args.copies, Path(folder))
        records = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        started = time.perf_counter()
        read = read_transcripts(path)
        reading = time.perf_counter() - started
        conversations = [found for found in read if isinstance(found, Conversation)]
        started = time.perf_counter()
        for conversation in conversations:
            redacted(conversation.messages, Redaction())
        masking = time.perf_counter() - started
    each = masking / len(conversations) * 1000 if conversations else 0.0
    print(f"{path.name}: {records} lines, {len(conversations)} conversations, {len(read) - len(conversations)} "
          f"records skipped")
    print(f"read in {reading:.2f} s; masked in {masking:.2f} s ({each:.1f} ms a conversation)")


if __name__ == "__main__":
    main()
