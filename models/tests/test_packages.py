"""The converted packages' specs: interface, states, target, metadata, compression."""

import json

import pytest

from conftest import SMOL_CONTEXT, TINY_CONTEXT
from spec_checks import (check_interface, check_metadata, check_rope_tables_uncompressed,
                         load_spec, package_bytes)
from statefulchat_convert import manifest


@pytest.mark.parametrize("mode", ["none", "int8", "int4", "palettize4"])
def test_tiny_llama_package(tiny_packages, mode):
    folder = tiny_packages[mode]
    spec = load_spec(folder)
    check_interface(spec, layers=2, kv_heads=2, head_dim=32, context=TINY_CONTEXT)
    check_rope_tables_uncompressed(spec)
    data = check_metadata(spec, folder, quantization=mode, context=TINY_CONTEXT)
    assert data["architecture"] == "LlamaForCausalLM"
    assert data["source"]["kind"] == "folder"
    assert (folder / "tokenizer.json").is_file()
    assert "chat_template" in json.loads((folder / "tokenizer_config.json").read_text())
    # Nothing else lands in the output folder (no staging leftovers, no stray files).
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["manifest.json", "model.mlpackage", "tokenizer.json", "tokenizer_config.json"])


def test_tiny_llama_compression_ratios(tiny_packages):
    fp16 = package_bytes(tiny_packages["none"])
    # Weights of this model are ~99% of the package, so the ratios are close to ideal:
    # int8 = 8/16; int4 with one fp16 scale per 32 weights = 4.5/16; palette 4/16 + LUTs.
    assert package_bytes(tiny_packages["int8"]) / fp16 == pytest.approx(0.5, abs=0.05)
    assert package_bytes(tiny_packages["int4"]) / fp16 == pytest.approx(4.5 / 16, abs=0.05)
    assert package_bytes(tiny_packages["palettize4"]) / fp16 == pytest.approx(0.25, abs=0.06)


def test_smollm2_package(smol_packages, gguf_path):
    folder = smol_packages["none"]
    spec = load_spec(folder)
    check_interface(spec, layers=30, kv_heads=3, head_dim=64, context=SMOL_CONTEXT)
    data = check_metadata(spec, folder, quantization="none", context=SMOL_CONTEXT)
    assert data["vocab_size"] == 49152
    assert data["source"]["kind"] == "gguf"
    assert data["source"]["sha256"] == "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    assert data["io"]["inputs"]["causal_mask"]["shape"] == [1, 1, "q", "end"]
    assert 2 in data["tokenizer"]["eos_token_ids"]  # <|im_end|> ends an assistant turn
    meta = spec.description.metadata.userDefined
    assert meta["statefulchat.source_revision"] == data["source"]["sha256"]
    assert meta["co.huggingface.exporters.name"].endswith(gguf_path.name)


@pytest.mark.parametrize("mode,ratio", [("int8", 0.5), ("int4", 4.5 / 16)])
def test_smollm2_quantized_variants(smol_packages, mode, ratio):
    folder = smol_packages[mode]
    spec = load_spec(folder)
    check_interface(spec, layers=30, kv_heads=3, head_dim=64, context=SMOL_CONTEXT)
    check_metadata(spec, folder, quantization=mode, context=SMOL_CONTEXT)
    check_rope_tables_uncompressed(spec)
    size = package_bytes(folder)
    fp16 = package_bytes(smol_packages["none"])
    print(f"SmolLM2 package sizes: fp16 {fp16 / 2**20:.1f} MiB, {mode} {size / 2**20:.1f} MiB")
    assert size / fp16 == pytest.approx(ratio, abs=0.04)
    # Compressed weights appear as constexpr ops that Core ML expands at load.
    ops = {op.type for f in spec.mlProgram.functions.values()
           for b in f.block_specializations.values() for op in b.operations}
    assert any(t.startswith("constexpr_") for t in ops)


def test_manifest_is_the_single_source_for_runtime(smol_packages):
    data = json.loads((smol_packages["none"] / manifest.MANIFEST_NAME).read_text())
    for key in ("architecture", "context", "vocab_size", "quantization", "converter",
                "source", "io", "tokenizer"):
        assert key in data
    assert data["converter"]["coremltools"] == "9.0"
    assert data["io"]["states"]["key_cache"]["shape"] == [30, 1, 3, SMOL_CONTEXT, 64]
