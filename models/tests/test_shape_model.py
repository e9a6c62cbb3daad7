"""The random-weight shape model for benchmarks: the shapes asked for, the source's tokenizer."""

import pytest
from gguf import GGMLQuantizationType, GGUFReader

from bench_fixtures import shape_model_gguf


def test_shape_model_has_the_requested_shapes_and_the_source_tokenizer(gguf_path, tmp_path):
    out = tmp_path / "shape.gguf"
    shape_model_gguf.write_shape_model(str(gguf_path), str(out), layers=2, width=128, ffn=256, heads=4, kv_heads=2)
    model = GGUFReader(str(out))
    source = GGUFReader(str(gguf_path))

    assert model.fields["llama.block_count"].contents() == 2
    assert model.fields["llama.attention.head_count_kv"].contents() == 2
    assert model.fields["llama.rope.dimension_count"].contents() == 32
    assert model.fields["tokenizer.chat_template"].contents() == source.fields["tokenizer.chat_template"].contents()
    assert model.fields["tokenizer.ggml.tokens"].contents()[:50] == source.fields["tokenizer.ggml.tokens"].contents()[:50]

    tensors = {t.name: t for t in model.tensors}
    vocab = len(source.fields["tokenizer.ggml.tokens"].data)
    assert [int(n) for n in tensors["token_embd.weight"].shape] == [128, vocab]
    assert [int(n) for n in tensors["blk.1.attn_k.weight"].shape] == [128, 64]
    assert [int(n) for n in tensors["blk.1.ffn_down.weight"].shape] == [256, 128]
    assert tensors["blk.0.attn_q.weight"].tensor_type == GGMLQuantizationType.Q4_1
    assert "blk.2.attn_q.weight" not in tensors


def test_shape_model_refuses_heads_that_do_not_divide(gguf_path, tmp_path):
    with pytest.raises(ValueError, match="must divide"):
        shape_model_gguf.write_shape_model(str(gguf_path), str(tmp_path / "x.gguf"), layers=1, width=100, ffn=64, heads=3, kv_heads=2)
