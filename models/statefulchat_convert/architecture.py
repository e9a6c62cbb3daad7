"""Read and validate the parts of a Hugging Face config that the wrapper depends on.

Refusing here, before any tracing, is what keeps unsupported models from producing a
package that converts fine but computes something else.
"""

from dataclasses import dataclass, asdict

from .errors import UnsupportedArchitecture, InvalidContext
from .interface import (
    CONTEXT_MULTIPLE,
    MIN_CONTEXT,
    SUPPORTED_ARCHITECTURES,
    SUPPORTED_MODEL_TYPES,
)

# Rope variants whose cos/sin depend only on the position, so a table precomputed for
# [0, context) is exact. "dynamic" rescales with the sequence length and is refused.
_STATIC_ROPE_TYPES = (None, "default", "linear", "llama3", "yarn")


@dataclass(frozen=True)
class ModelShape:
    architecture: str
    model_type: str
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    hidden_size: int
    vocab_size: int
    max_positions: int

    def as_dict(self) -> dict:
        return asdict(self)


def describe(config) -> ModelShape:
    """Return the shape of a supported model or raise UnsupportedArchitecture."""
    architectures = list(getattr(config, "architectures", None) or [])
    model_type = getattr(config, "model_type", None)
    arch = next((a for a in architectures if a in SUPPORTED_ARCHITECTURES), None)
    if arch is None and not architectures and model_type in SUPPORTED_MODEL_TYPES:
        # GGUF-derived configs may lack `architectures`; the model_type is then decisive.
        arch = SUPPORTED_ARCHITECTURES[SUPPORTED_MODEL_TYPES.index(model_type)]
    if arch is None or model_type not in SUPPORTED_MODEL_TYPES:
        found = ", ".join(architectures) or f"model_type={model_type!r}"
        raise UnsupportedArchitecture(
            f"Unsupported architecture: {found}. This converter handles "
            f"{', '.join(SUPPORTED_ARCHITECTURES)} (Llama, SmolLM/SmolLM2, Qwen2/Qwen2.5)."
        )

    rope = getattr(config, "rope_scaling", None) or {}
    rope_type = rope.get("rope_type", rope.get("type")) if rope else None
    if rope_type not in _STATIC_ROPE_TYPES:
        raise UnsupportedArchitecture(
            f"Unsupported rope scaling {rope_type!r}: only position-only rope variants "
            f"{[t for t in _STATIC_ROPE_TYPES if t]} can be precomputed for a fixed context."
        )
    if getattr(config, "use_sliding_window", False):
        raise UnsupportedArchitecture(
            "Sliding-window attention is enabled in this config; the stateful cache "
            "implements full attention only."
        )

    num_heads = config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // num_heads
    return ModelShape(
        architecture=arch,
        model_type=model_type,
        num_layers=config.num_hidden_layers,
        num_heads=num_heads,
        num_kv_heads=getattr(config, "num_key_value_heads", None) or num_heads,
        head_dim=head_dim,
        hidden_size=config.hidden_size,
        vocab_size=config.vocab_size,
        max_positions=config.max_position_embeddings,
    )


def check_context(context: int, shape: ModelShape) -> None:
    """Refuse contexts the runtime cannot use or the model was not trained for."""
    if context < MIN_CONTEXT or context % CONTEXT_MULTIPLE:
        raise InvalidContext(
            f"--context {context} is not supported: it must be a multiple of "
            f"{CONTEXT_MULTIPLE} (the runtime's prefill chunk) and at least {MIN_CONTEXT}."
        )
    if context > shape.max_positions:
        raise InvalidContext(
            f"--context {context} exceeds the model's maximum of {shape.max_positions} "
            f"positions (max_position_embeddings); choose {shape.max_positions} or less."
        )
