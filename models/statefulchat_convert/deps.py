"""Fail early, with the install command, when a conversion dependency is missing.

Without this the user meets an ImportError deep in a stage after minutes of loading.
"""

import importlib

from .errors import MissingDependency

REQUIRED = ("torch", "coremltools", "transformers", "tokenizers", "numpy")


def require(gguf: bool = False) -> None:
    names = list(REQUIRED) + (["gguf", "accelerate"] if gguf else [])
    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise MissingDependency(
            f"Missing Python packages: {', '.join(missing)}. Install the pinned set with "
            "`python3 -m pip install -r models/requirements.txt` (or run models/test.sh, "
            "which creates models/.venv).")


def versions() -> dict:
    """Versions recorded in the manifest, so a package can be traced to its toolchain."""
    out = {}
    for name in ("coremltools", "torch", "transformers"):
        try:
            out[name] = importlib.import_module(name).__version__
        except ImportError:
            out[name] = None
    return out
