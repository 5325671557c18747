"""A YAML file a config key names (a rules file, a policy list), read as the mapping it must hold, or one line that
says why it does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from intellagent.errors import UsageError


def yaml_mapping(path: Path, *, key: str, holds: str) -> dict[str, Any]:
    """The top-level mapping of the YAML file at `path` (empty for an empty file).

    Args:
        key: the config key that names the file, which an error starts with (`environment.rules`).
        holds: what the mapping holds, for the error of a file that is not one (`` a `rules:` list ``).

    Raises:
        UsageError: the file is not YAML, or holds something else than a mapping.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise UsageError(f"{key}: {path} is not YAML: {' '.join(str(error).split())}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{key}: {path} holds no {holds}")
    return data
