"""The manifest beside the package and the metadata inside it.

The manifest is what the extension reads before loading anything (capacity, vocabulary,
I/O names, stop tokens); the package metadata repeats the essentials so a bare .mlpackage
still says what it is. The `co.huggingface.exporters.*` keys are the ones swift-transformers
reads, which keeps our packages loadable by that runtime as well.
"""

import datetime
import json
from pathlib import Path
from typing import Optional

from . import __version__, deps, interface
from .architecture import ModelShape

MANIFEST_NAME = "manifest.json"
PACKAGE_NAME = "model.mlpackage"
FORMAT_VERSION = 1


def build(shape: ModelShape, context: int, quantization: dict, source: dict,
          tokens: dict, functions: Optional[dict] = None) -> dict:
    kv_shape = list(interface.cache_shape(shape.num_layers, shape.num_kv_heads, context,
                                          shape.head_dim))
    data = {
        "format": "stateful-chat-coreml",
        "format_version": FORMAT_VERSION,
        "package": PACKAGE_NAME,
        "architecture": shape.architecture,
        "model_type": shape.model_type,
        "context": context,
        "context_multiple": interface.CONTEXT_MULTIPLE,
        "vocab_size": shape.vocab_size,
        "model": shape.as_dict(),
        "quantization": quantization,
        "minimum_deployment_target": "macOS15/iOS18",
        "converter": {"name": "statefulchat_convert", "version": __version__,
                      **deps.versions()},
        "converted_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "source": source,
        "tokenizer": {"files": ["tokenizer.json", "tokenizer_config.json"], **tokens},
        "io": {
            "inputs": {
                interface.INPUT_IDS: {"dtype": "int32", "shape": [1, "q"]},
                interface.CAUSAL_MASK: {"dtype": "float16", "shape": [1, 1, "q", "end"],
                                        "visible": 0, "masked": -65504},
            },
            "states": {
                interface.KEY_CACHE: {"dtype": "float16", "shape": kv_shape},
                interface.VALUE_CACHE: {"dtype": "float16", "shape": kv_shape},
            },
            "outputs": {interface.LOGITS: {"dtype": "float16", "shape": [1, "q", shape.vocab_size]}},
            "write_position": "rows [end-q, end) of each cache; attention over [0, end)",
            "max_query_length": context,
        },
    }
    if functions:
        # Fixed shapes: q is the function's own, the mask spans the cache, `position` writes.
        data["functions"] = functions
        io = data["io"]
        io["inputs"][interface.CAUSAL_MASK]["shape"] = [1, 1, "q", context]
        io["inputs"][interface.POSITION] = {"dtype": "int32", "shape": [1]}
        io["query_lengths"] = {functions["prefill"]: functions["prefill_length"],
                               functions["decode"]: functions["decode_length"]}
        io["write_position"] = "rows [position, position+q) of each cache; attention over [0, context) as masked"
        io["max_query_length"] = functions["prefill_length"]
    return data


def write(manifest: dict, directory: Path) -> None:
    (directory / MANIFEST_NAME).write_text(json.dumps(manifest, indent=2) + "\n",
                                           encoding="utf-8")


def apply_metadata(mlmodel, manifest: dict) -> None:
    """Copy the manifest's essentials into the package's user-defined metadata."""
    source = manifest["source"]
    mlmodel.short_description = (
        f"Stateful {manifest['architecture']} ({source['reference']}), context "
        f"{manifest['context']}, weights {manifest['quantization']['mode']}")
    mlmodel.version = manifest["converter"]["version"]
    meta = mlmodel.user_defined_metadata
    entries = {
        "statefulchat.format_version": manifest["format_version"],
        "statefulchat.architecture": manifest["architecture"],
        "statefulchat.context": manifest["context"],
        "statefulchat.vocab_size": manifest["vocab_size"],
        "statefulchat.quantization": manifest["quantization"]["mode"],
        "statefulchat.converter_version": manifest["converter"]["version"],
        "statefulchat.source": source["reference"],
        "statefulchat.source_revision": source.get("revision") or source.get("sha256") or "",
        "statefulchat.eos_token_ids": json.dumps(manifest["tokenizer"]["eos_token_ids"]),
        "statefulchat.functions": json.dumps(manifest.get("functions") or {}),
        "co.huggingface.exporters.name": source["reference"],
        "co.huggingface.exporters.task": "text-generation",
        "co.huggingface.exporters.architecture": manifest["architecture"],
        "co.huggingface.exporters.framework": "pytorch",
        "co.huggingface.exporters.precision": manifest["quantization"]["mode"],
    }
    for key, value in entries.items():
        meta[key] = str(value)
