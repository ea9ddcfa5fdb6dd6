"""Where srm-bench keeps caches (never inside the installed package)."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """Cache root: ``$SRM_BENCH_CACHE``, else ``$XDG_CACHE_HOME/srm-bench``, else ``~/.cache/srm-bench``."""
    if env := os.environ.get("SRM_BENCH_CACHE"):
        return Path(env).expanduser()
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return Path(xdg).expanduser() / "srm-bench"
    return Path.home() / ".cache" / "srm-bench"


def canonical_dir(task: str, split: str) -> Path:
    """Folder where a regenerated canonical test set is cached."""
    return cache_dir() / "canonical" / task / split
