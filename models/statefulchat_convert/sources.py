"""Where a model comes from: a hub id, a local folder, or a GGUF file.

All three end as the same (config, torch model, fast tokenizer) triple; only how they are
found and how their revision is recorded differs.
"""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .errors import SourceNotFound, UnsupportedArchitecture

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin")
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json")


@dataclass
class Source:
    kind: str  # "hub" | "folder" | "gguf"
    reference: str  # hub id or absolute path
    revision: Optional[str] = None  # hub revision asked for; filled with the commit if known
    sha256: Optional[str] = None  # GGUF file digest: the only revision a loose file has

    @property
    def _pretrained_args(self) -> tuple:
        if self.kind == "gguf":
            path = Path(self.reference)
            return (str(path.parent),), {"gguf_file": path.name}
        if self.kind == "hub":
            return (self.reference,), {"revision": self.revision}
        return (self.reference,), {}

    def as_dict(self) -> dict:
        return {"kind": self.kind, "reference": self.reference,
                "revision": self.revision, "sha256": self.sha256}


def resolve(spec: str, revision: Optional[str] = None) -> Source:
    """Classify `spec` and check that what it names exists, before anything heavy runs."""
    path = Path(spec).expanduser()
    if spec.lower().endswith(".gguf"):
        if not path.is_file():
            raise SourceNotFound(f"GGUF file not found: {path}")
        return Source("gguf", str(path.resolve()), sha256=_sha256(path))
    if path.exists():
        if not path.is_dir():
            raise SourceNotFound(
                f"{path} is neither a model folder nor a .gguf file.")
        missing = []
        if not (path / "config.json").is_file():
            missing.append("config.json")
        if not any(any(path.glob(p)) for p in _WEIGHT_PATTERNS):
            missing.append("weights (*.safetensors or pytorch_model*.bin)")
        if not any((path / name).is_file() for name in _TOKENIZER_FILES):
            missing.append("tokenizer (tokenizer.json)")
        if missing:
            raise SourceNotFound(f"Model folder {path} is missing: {', '.join(missing)}.")
        return Source("folder", str(path.resolve()), revision=revision)
    if _HUB_ID.match(spec) and not spec.startswith((".", "/", "~")):
        return Source("hub", spec, revision=revision)
    raise SourceNotFound(
        f"Model not found: {spec!r} is not an existing folder, a .gguf file, or a "
        "Hugging Face hub id (owner/name).")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _load(kind_name: str, loader, source: Source):
    args, kwargs = source._pretrained_args
    try:
        return loader(*args, **kwargs)
    except (OSError, EnvironmentError) as error:
        where = "the Hugging Face hub (no internet?)" if source.kind == "hub" else source.reference
        raise SourceNotFound(f"Could not load the {kind_name} from {where}: {error}") from error
    except (KeyError, ValueError) as error:
        # transformers signals unknown model types and unsupported GGUF architectures with
        # KeyError/ValueError; to the user both mean "this converter cannot take it".
        raise UnsupportedArchitecture(
            f"Could not load the {kind_name} of {source.reference}: {error}") from error


def load_config(source: Source):
    from transformers import AutoConfig

    config = _load("config", AutoConfig.from_pretrained, source)
    if source.kind == "hub":
        source.revision = getattr(config, "_commit_hash", None) or source.revision
    return config


def load_model(source: Source):
    """fp32 on CPU: tracing precision; Core ML's fp16 cast happens at conversion."""
    import torch
    from transformers import AutoModelForCausalLM

    def loader(*args, **kwargs):
        # Eager attention keeps the reference forward free of sdpa-specific masking paths.
        return AutoModelForCausalLM.from_pretrained(
            *args, dtype=torch.float32, attn_implementation="eager", **kwargs)

    return _load("weights", loader, source).eval()


def load_tokenizer(source: Source):
    from transformers import AutoTokenizer

    tokenizer = _load("tokenizer", AutoTokenizer.from_pretrained, source)
    if not getattr(tokenizer, "is_fast", False):
        raise SourceNotFound(
            f"{source.reference} has no fast tokenizer (tokenizer.json); the runtime needs one.")
    return tokenizer
