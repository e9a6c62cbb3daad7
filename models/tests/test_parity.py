"""In torch, the module that gets traced (and the traced graph itself) decodes through its
state exactly like the Hugging Face model computes the full sequence."""

import pytest
import torch

from statefulchat_convert import export, sources
from statefulchat_convert.architecture import describe
from statefulchat_convert.interface import KEY_CACHE, VALUE_CACHE
from statefulchat_convert.wrapper import StatefulCausalLM, causal_mask

# Prefill chunk sizes (then single-token steps), as the runtime issues them.
SCHEDULES = [[1, 1, 1, 1], [7, 1, 1, 1], [16, 1, 1], [3, 8, 5, 1, 1], [29, 1]]


def _incremental(module, reset, ids, schedule):
    reset()
    outputs, position = [], 0
    with torch.no_grad():
        for size in schedule:
            chunk = ids[:, position:position + size]
            outputs.append(module(chunk.to(torch.int32), causal_mask(size, position + size)))
            position += size
    return torch.cat(outputs, dim=1), position


def _reference(hf_model, ids):
    with torch.no_grad():
        return hf_model(ids).logits


def _load(folder):
    source = sources.resolve(str(folder))
    config = sources.load_config(source)
    return sources.load_model(source), describe(config)


@pytest.mark.parametrize("kind", ["llama", "qwen2"])
@pytest.mark.parametrize("schedule", SCHEDULES, ids=lambda s: "+".join(map(str, s)))
def test_tiny_wrapper_matches_full_sequence(kind, schedule, tiny_llama_dir, tiny_qwen_dir):
    model, shape = _load(tiny_llama_dir if kind == "llama" else tiny_qwen_dir)
    wrapper = StatefulCausalLM(model, shape, context=64).eval()
    ids = torch.randint(0, shape.vocab_size, (1, sum(schedule)),
                        generator=torch.Generator().manual_seed(1))
    got, n = _incremental(wrapper, wrapper.reset, ids, schedule)
    expected = _reference(model, ids)
    torch.testing.assert_close(got, expected, atol=1e-4, rtol=1e-4)


def test_traced_graph_matches_for_other_shapes(tiny_llama_dir):
    """The traced graph, run at shapes other than the tracing example, still matches:
    nothing about q, end or the write position was baked in."""
    model, shape = _load(tiny_llama_dir)
    wrapper = StatefulCausalLM(model, shape, context=64)
    traced = export.trace(wrapper)
    caches = [b for name, b in traced.named_buffers() if name in (KEY_CACHE, VALUE_CACHE)]
    assert len(caches) == 2

    def reset():
        for cache in caches:
            cache.zero_()

    ids = torch.randint(0, shape.vocab_size, (1, 20), generator=torch.Generator().manual_seed(2))
    got, _ = _incremental(traced, reset, ids, [9, 1, 4, 1, 1, 1, 3])
    torch.testing.assert_close(got, _reference(model, ids), atol=1e-4, rtol=1e-4)


def test_reset_gives_a_fresh_state(tiny_llama_dir):
    model, shape = _load(tiny_llama_dir)
    wrapper = StatefulCausalLM(model, shape, context=64).eval()
    ids = torch.randint(0, shape.vocab_size, (1, 6), generator=torch.Generator().manual_seed(3))
    first, _ = _incremental(wrapper, wrapper.reset, ids, [6])
    other = torch.randint(0, shape.vocab_size, (1, 10), generator=torch.Generator().manual_seed(4))
    _incremental(wrapper, wrapper.reset, other, [10])
    again, _ = _incremental(wrapper, wrapper.reset, ids, [6])
    torch.testing.assert_close(first, again)


def test_smollm2_wrapper_matches_hf(gguf_path):
    """The real default model (dequantized from its GGUF) through the exact module the
    pipeline traces, prefill chunks then single-token decoding, on a chat prompt."""
    source = sources.resolve(str(gguf_path))
    config = sources.load_config(source)
    shape = describe(config)
    model = sources.load_model(source)
    tokenizer = sources.load_tokenizer(source)
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Write a Python function that adds two numbers."}],
        tokenize=False, add_generation_prompt=True)
    ids = torch.tensor([tokenizer.encode(prompt, add_special_tokens=False)])
    prefill = ids.shape[1]
    # Greedy continuation from HF itself gives realistic decode tokens.
    with torch.no_grad():
        full = model.generate(ids, max_new_tokens=6, do_sample=False)
    wrapper = StatefulCausalLM(model, shape, context=128).eval()
    for schedule in ([prefill] + [1] * 6, [prefill // 2, prefill - prefill // 2] + [1] * 6):
        got, n = _incremental(wrapper, wrapper.reset, full, schedule)
        expected = _reference(model, full[:, :n])
        torch.testing.assert_close(got, expected, atol=2e-3, rtol=1e-3)
        assert torch.equal(got.argmax(-1), expected.argmax(-1))


def test_llama3_rope_scaling_matches():
    """Llama 3.x scales rope frequencies; the precomputed tables must reproduce that."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(5)
    config = LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=1,
                         max_position_embeddings=256, tie_word_embeddings=True,
                         rope_scaling={"rope_type": "llama3", "factor": 8.0,
                                       "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                       "original_max_position_embeddings": 32})
    config.architectures = ["LlamaForCausalLM"]
    model = LlamaForCausalLM(config).eval()
    wrapper = StatefulCausalLM(model, describe(config), context=128).eval()
    ids = torch.randint(0, 512, (1, 70), generator=torch.Generator().manual_seed(6))
    got, _ = _incremental(wrapper, wrapper.reset, ids, [40, 27, 1, 1, 1])
    torch.testing.assert_close(got, _reference(model, ids), atol=1e-4, rtol=1e-4)


def test_dynamic_rope_is_refused():
    from transformers import LlamaConfig

    from statefulchat_convert.errors import UnsupportedArchitecture

    config = LlamaConfig(rope_scaling={"rope_type": "dynamic", "factor": 2.0})
    config.architectures = ["LlamaForCausalLM"]
    with pytest.raises(UnsupportedArchitecture, match="dynamic"):
        describe(config)
