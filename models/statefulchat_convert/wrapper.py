"""The torch module that is traced: a Llama-family decoder with an in-place KV cache.

Why not call the Hugging Face forward with a custom `Cache`? Its cache plumbing changes
between transformers releases, and tracing through it bakes in whatever it does that
month. Rebuilding the forward from the model's own submodules (projections, norms, MLP,
rotary tables) keeps the traced graph small and stable; the parity test against the
Hugging Face forward is what proves the rebuild right.

Core ML turns `buffer[..., begin:end, :] = x` into a `slice_update` on a state, which is
why the caches are registered buffers written in place, named exactly like the
`ct.StateType`s declared at conversion.
"""

import torch
from torch import nn
from torch.nn import functional as F

from .architecture import ModelShape
from .interface import KEY_CACHE, VALUE_CACHE, cache_shape


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class StatefulCausalLM(nn.Module):
    """forward(input_ids [1,q] int, causal_mask [1,1,q,end] float) -> logits [1,q,vocab].

    Writes the q new key/value rows at [end-q, end) of each layer's cache and attends
    over [0, end), so the caller alone decides positions through the mask width.
    """

    def __init__(self, hf_model: nn.Module, shape: ModelShape, context: int,
                 cache_dtype: torch.dtype = torch.float32):
        super().__init__()
        self.shape = shape
        self.context = context
        body = hf_model.model
        self.embed_tokens = body.embed_tokens
        self.layers = body.layers
        self.norm = body.norm
        self.lm_head = hf_model.lm_head

        # Precompute rope for every position the cache can hold, using the model's own
        # rotary module so scaled variants (llama3, linear) come out exactly as in HF.
        positions = torch.arange(context).unsqueeze(0)
        probe = torch.zeros(1, dtype=torch.float32)
        with torch.no_grad():
            cos, sin = body.rotary_emb(probe, positions)
        self.register_buffer("rope_cos", cos[0].float(), persistent=False)
        self.register_buffer("rope_sin", sin[0].float(), persistent=False)

        kv_shape = cache_shape(shape.num_layers, shape.num_kv_heads, context, shape.head_dim)
        self.register_buffer(KEY_CACHE, torch.zeros(kv_shape, dtype=cache_dtype))
        self.register_buffer(VALUE_CACHE, torch.zeros(kv_shape, dtype=cache_dtype))

    def reset(self) -> None:
        """Zero the caches: what `MLModel.newState` gives the runtime."""
        getattr(self, KEY_CACHE).zero_()
        getattr(self, VALUE_CACHE).zero_()

    def _attention(self, index: int, attn: nn.Module, x: torch.Tensor,
                   causal_mask: torch.Tensor, begin, end) -> torch.Tensor:
        s = self.shape
        # -1 instead of q keeps the traced reshape free of a baked-in length.
        q = attn.q_proj(x).view(1, -1, s.num_heads, s.head_dim).transpose(1, 2)
        k = attn.k_proj(x).view(1, -1, s.num_kv_heads, s.head_dim).transpose(1, 2)
        v = attn.v_proj(x).view(1, -1, s.num_kv_heads, s.head_dim).transpose(1, 2)

        cos = self.rope_cos[begin:end].to(q.dtype)
        sin = self.rope_sin[begin:end].to(q.dtype)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin

        key_cache = getattr(self, KEY_CACHE)
        value_cache = getattr(self, VALUE_CACHE)
        key_cache[index, :, :, begin:end, :] = k.to(key_cache.dtype)
        value_cache[index, :, :, begin:end, :] = v.to(value_cache.dtype)
        keys = key_cache[index, :, :, :end, :].to(q.dtype)
        values = value_cache[index, :, :, :end, :].to(q.dtype)

        groups = s.num_heads // s.num_kv_heads
        if groups > 1:
            # Grouped-query attention: each kv head serves `groups` query heads.
            keys = keys.unsqueeze(2).expand(-1, -1, groups, -1, -1).reshape(1, s.num_heads, -1, s.head_dim)
            values = values.unsqueeze(2).expand(-1, -1, groups, -1, -1).reshape(1, s.num_heads, -1, s.head_dim)

        # Lowered to Core ML's fused scaled_dot_product_attention op (iOS18+).
        out = F.scaled_dot_product_attention(q, keys, values, attn_mask=causal_mask.to(q.dtype))
        out = out.transpose(1, 2).reshape(1, -1, s.num_heads * s.head_dim)
        return attn.o_proj(out)

    def forward(self, input_ids: torch.Tensor, causal_mask: torch.Tensor) -> torch.Tensor:
        end = causal_mask.shape[-1]
        begin = end - input_ids.shape[-1]
        hidden = self.embed_tokens(input_ids)
        for index, layer in enumerate(self.layers):
            hidden = hidden + self._attention(
                index, layer.self_attn, layer.input_layernorm(hidden), causal_mask, begin, end)
            hidden = hidden + layer.mlp(layer.post_attention_layernorm(hidden))
        return self.lm_head(self.norm(hidden))


def causal_mask(q: int, end: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """The mask the runtime builds: row i sees positions [0, end - q + i]; masked entries
    are -65504, fp16's lowest finite value, as the runtime sends (native/src/core/causal_mask.h)."""
    mask = torch.full((q, end), -65504.0, dtype=dtype)
    mask = torch.triu(mask, diagonal=end - q + 1)
    return mask.view(1, 1, q, end)
