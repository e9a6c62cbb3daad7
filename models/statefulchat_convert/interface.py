"""The I/O contract shared with the runtime and with public stateful models.

Names follow the public CoreMLPipelines / swift-transformers recipe so one runtime loads
both our packages and published ones (e.g. finnvoorhees/coreml-Qwen2.5-Coder-*):

- input  `input_ids`   int32 [1, q]
- input  `causal_mask` fp16  [1, 1, q, end]   0 = visible, -65504 (fp16's lowest) = masked
- state  `key_cache`   fp16  [layers, 1, kv_heads, context, head_dim]
- state  `value_cache` fp16  same shape
- output `logits`      fp16  [1, q, vocab]

The write position is implied by the mask: the q new rows go to [end - q, end) of the
caches and attention reads [0, end). No explicit position input exists, which is what
keeps the interface identical to the public models. The multifunction package
(multifunction.py) is the exception: its shapes are fixed, so `position` carries it.
"""

INPUT_IDS = "input_ids"
CAUSAL_MASK = "causal_mask"
KEY_CACHE = "key_cache"
VALUE_CACHE = "value_cache"
LOGITS = "logits"
# Fixed-shape (multifunction) packages only: int32 [1], the first slot the q rows write.
POSITION = "position"

# The runtime prefills in chunks of this many tokens and sizes its buffers in these units;
# a context that is not a multiple of it would leave a ragged last chunk the runtime does
# not plan for, so the converter refuses it.
CONTEXT_MULTIPLE = 64
MIN_CONTEXT = 64

# Llama-style decoders we know how to rebuild with a slice-updated cache. SmolLM/SmolLM2
# ship as LlamaForCausalLM, so "SmolLM" needs no separate entry.
SUPPORTED_ARCHITECTURES = ("LlamaForCausalLM", "Qwen2ForCausalLM")
SUPPORTED_MODEL_TYPES = ("llama", "qwen2")


def cache_shape(num_layers: int, num_kv_heads: int, context: int, head_dim: int) -> tuple:
    """Cache layout of the public recipe: the batch axis of 1 sits after the layer axis."""
    return (num_layers, 1, num_kv_heads, context, head_dim)
