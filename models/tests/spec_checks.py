"""Assertions on a saved package's spec: what the runtime will see on the Mac."""

import json
from pathlib import Path

from statefulchat_convert import interface, manifest

FLOAT16 = 65552  # ArrayFeatureType.FLOAT16
INT32 = 131104  # ArrayFeatureType.INT32
IOS18_SPEC_VERSION = 9


def load_spec(folder: Path):
    import coremltools as ct

    return ct.utils.load_spec(str(folder / manifest.PACKAGE_NAME))


def package_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in (folder / manifest.PACKAGE_NAME).rglob("*")
               if p.is_file())


def ops_of(spec) -> list:
    ops = []
    for function in spec.mlProgram.functions.values():
        for block in function.block_specializations.values():
            ops.extend(block.operations)
    return ops


def check_interface(spec, *, layers: int, kv_heads: int, head_dim: int, context: int):
    assert spec.specificationVersion >= IOS18_SPEC_VERSION
    description = spec.description
    inputs = {i.name: i.type.multiArrayType for i in description.input}
    assert set(inputs) == {interface.INPUT_IDS, interface.CAUSAL_MASK}

    ids = inputs[interface.INPUT_IDS]
    assert ids.dataType == INT32
    assert [(r.lowerBound, r.upperBound) for r in ids.shapeRange.sizeRanges] == [
        (1, 1), (1, context)]
    mask = inputs[interface.CAUSAL_MASK]
    assert mask.dataType == FLOAT16
    assert [(r.lowerBound, r.upperBound) for r in mask.shapeRange.sizeRanges] == [
        (1, 1), (1, 1), (1, context), (1, context)]

    assert [o.name for o in description.output] == [interface.LOGITS]
    states = {s.name: s.type.stateType.arrayType for s in description.state}
    assert set(states) == {interface.KEY_CACHE, interface.VALUE_CACHE}
    for state in states.values():
        assert state.dataType == FLOAT16
        assert list(state.shape) == [layers, 1, kv_heads, context, head_dim]

    types = {op.type for op in ops_of(spec)}
    assert {"scaled_dot_product_attention", "slice_update", "write_state",
            "read_state"} <= types
    # The write position must come from the inputs' shapes at run time: a constant
    # begin/end would mean the tracer baked the example's position into the graph.
    for op in ops_of(spec):
        if op.type == "slice_update":
            for arg in ("begin", "end"):
                binding = op.inputs[arg].arguments[0]
                assert binding.WhichOneof("binding") == "name", (op.type, arg)


def check_rope_tables_uncompressed(spec):
    """Rope cos/sin stay plain fp16 constants whatever the weight compression."""
    rope = [op for op in ops_of(spec) if any("rope_" in o.name for o in op.outputs)]
    assert rope, "rope tables not found"
    assert all(op.type == "const" for op in rope), [op.type for op in rope]


def check_metadata(spec, folder: Path, *, quantization: str, context: int):
    meta = spec.description.metadata.userDefined
    assert meta["statefulchat.quantization"] == quantization
    assert meta["statefulchat.context"] == str(context)
    assert meta["statefulchat.format_version"] == str(manifest.FORMAT_VERSION)
    assert meta["co.huggingface.exporters.task"] == "text-generation"
    data = json.loads((folder / manifest.MANIFEST_NAME).read_text())
    assert data["context"] == context
    assert data["quantization"]["mode"] == quantization
    assert data["io"]["states"][interface.KEY_CACHE]["dtype"] == "float16"
    return data
