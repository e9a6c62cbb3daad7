"""The fixed-shape variant of the traced module, for the Neural Engine's multifunction
package: every input has one shape per function (prefill q=64, decode q=1), so neither q
nor the mask's width can carry the write position. A `position` input does.

forward(input_ids [1,Q] int, causal_mask [1,1,Q,C] float, position [1] int) -> logits [1,Q,V]

The q new key/value rows go to slots [position, position + Q) of each layer's cache and
attention reads the whole cache [0, C), which the mask limits per row. The write is a
one-hot matmul over the full cache rather than a slice at a dynamic offset: every shape
in the graph stays static (what the Neural Engine compiles ahead of time), and with one
non-zero term per slot it is exact in fp16 too.
"""

import torch
from torch.nn import functional as F

from .interface import KEY_CACHE, VALUE_CACHE
from .wrapper import StatefulCausalLM, _rotate_half


class FixedShapeCausalLM(StatefulCausalLM):
    def _attention_at(self, index, attn, x, causal_mask, positions, scatter, keep):
        s = self.shape
        q = attn.q_proj(x).view(1, -1, s.num_heads, s.head_dim).transpose(1, 2)
        k = attn.k_proj(x).view(1, -1, s.num_kv_heads, s.head_dim).transpose(1, 2)
        v = attn.v_proj(x).view(1, -1, s.num_kv_heads, s.head_dim).transpose(1, 2)

        cos = torch.index_select(self.rope_cos, 0, positions).to(q.dtype)
        sin = torch.index_select(self.rope_sin, 0, positions).to(q.dtype)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin

        key_cache = getattr(self, KEY_CACHE)
        value_cache = getattr(self, VALUE_CACHE)
        # [C, Q] @ [1, kv, Q, d] puts row i at slot positions[i]; `keep` zeroes those slots first.
        new_keys = key_cache[index] * keep + torch.matmul(scatter, k).to(key_cache.dtype)
        new_values = value_cache[index] * keep + torch.matmul(scatter, v).to(value_cache.dtype)
        # A static slice of the state (one layer): Core ML's slice_update at constant bounds.
        key_cache[index:index + 1, :, :, :, :] = new_keys.unsqueeze(0)
        value_cache[index:index + 1, :, :, :, :] = new_values.unsqueeze(0)
        keys = new_keys.to(q.dtype)
        values = new_values.to(q.dtype)

        groups = s.num_heads // s.num_kv_heads
        if groups > 1:
            keys = keys.unsqueeze(2).expand(-1, -1, groups, -1, -1).reshape(1, s.num_heads, -1, s.head_dim)
            values = values.unsqueeze(2).expand(-1, -1, groups, -1, -1).reshape(1, s.num_heads, -1, s.head_dim)
        out = F.scaled_dot_product_attention(q, keys, values, attn_mask=causal_mask.to(q.dtype))
        out = out.transpose(1, 2).reshape(1, -1, s.num_heads * s.head_dim)
        return attn.o_proj(out)

    def forward(self, input_ids, causal_mask, position):
        query_length = input_ids.shape[-1]
        positions = position.to(torch.int32) + torch.arange(query_length, dtype=torch.int32)
        slots = torch.arange(self.context, dtype=torch.int32)
        scatter = (slots.unsqueeze(1) == positions.unsqueeze(0)).to(torch.float32)  # [C, Q]
        keep = (1.0 - scatter.sum(dim=1, keepdim=True))  # [C, 1]
        cache_dtype = getattr(self, KEY_CACHE).dtype
        scatter, keep = scatter.to(cache_dtype), keep.to(cache_dtype)
        hidden = self.embed_tokens(input_ids)
        for index, layer in enumerate(self.layers):
            hidden = hidden + self._attention_at(
                index, layer.self_attn, layer.input_layernorm(hidden), causal_mask, positions, scatter, keep)
            hidden = hidden + layer.mlp(layer.post_attention_layernorm(hidden))
        return self.lm_head(self.norm(hidden))


def fixed_causal_mask(query_length: int, position: int, context: int, dtype=torch.float32):
    """The mask the runtime sends to a fixed-shape function: row i sees [0, position + i]."""
    keys = torch.arange(context).unsqueeze(0)
    rows = torch.arange(query_length).unsqueeze(1) + position
    mask = torch.where(keys <= rows, torch.zeros((), dtype=dtype), torch.full((), -65504.0, dtype=dtype))
    return mask.view(1, 1, query_length, context)
