"""Write a random-weight GGUF with a larger model's shapes, for speed benchmarks only.

No 1.5B model can be downloaded on the machines where the benchmarks run, and decode speed
depends on a model's shapes and quantization, not on what its weights say. This takes the
default model's tokenizer and chat template and writes a llama-architecture model with the
given dimensions (by default Qwen2.5-Coder-1.5B's: 28 layers, width 1536, FFN 8960, 12 query
heads and 2 K/V heads of 128), weights drawn at random and quantized to Q4_1 like the default
model. Its answers are noise; its cost per token is that of a real model of that size.

    python models/bench_fixtures/shape_model_gguf.py SOURCE.gguf OUT.gguf [--layers N] [--width N] ...
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter
from gguf.quants import quantize

ARCH = "llama"
OVERRIDDEN = {
    f"{ARCH}.block_count",
    f"{ARCH}.embedding_length",
    f"{ARCH}.feed_forward_length",
    f"{ARCH}.attention.head_count",
    f"{ARCH}.attention.head_count_kv",
    f"{ARCH}.rope.dimension_count",
    "general.name",
    "general.size_label",
    "general.architecture",
    "general.file_type",
}


def field_value(field):
    """A reader field as the writer takes it: (value, type, array element type)."""
    kind = field.types[0]
    if kind == GGUFValueType.STRING:
        return bytes(field.parts[field.data[0]]).decode("utf-8"), kind, None
    if kind == GGUFValueType.ARRAY:
        sub = field.types[1] if len(field.types) > 1 else None
        if sub == GGUFValueType.STRING:
            return [bytes(field.parts[i]).decode("utf-8", errors="surrogateescape") for i in field.data], kind, sub
        return [field.parts[i].tolist()[0] for i in field.data], kind, sub
    return field.parts[field.data[0]].tolist()[0], kind, None


def random_q4_1(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    weights = rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(0.02)
    return quantize(weights, GGMLQuantizationType.Q4_1)


def write_shape_model(source: str, out: str, layers: int, width: int, ffn: int, heads: int, kv_heads: int, seed: int = 0) -> None:
    if width % heads != 0 or heads % kv_heads != 0:
        raise ValueError(f"width {width} must divide into {heads} heads, and {heads} heads into {kv_heads} K/V heads")
    head_dim = width // heads
    reader = GGUFReader(source)
    if reader.fields["general.architecture"].contents() != ARCH:
        raise ValueError(f"{source} is not a {ARCH} model")
    vocab = len(reader.fields["tokenizer.ggml.tokens"].data)

    writer = GGUFWriter(out, ARCH)
    writer.add_name(f"random-weight shape model ({layers} layers, width {width})")
    writer.add_block_count(layers)
    writer.add_embedding_length(width)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_rope_dimension_count(head_dim)
    writer.add_file_type(3)  # mostly Q4_1
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name in OVERRIDDEN:
            continue
        value, kind, sub = field_value(field)
        writer.add_key_value(field.name, value, kind, sub_type=sub)

    rng = np.random.default_rng(seed)
    ones = np.ones(width, dtype=np.float32)
    writer.add_tensor("token_embd.weight", random_q4_1(rng, vocab, width), raw_dtype=GGMLQuantizationType.Q4_1)
    for layer in range(layers):
        prefix = f"blk.{layer}"
        writer.add_tensor(f"{prefix}.attn_norm.weight", ones)
        writer.add_tensor(f"{prefix}.ffn_norm.weight", ones)
        shapes = {
            "attn_q": (width, width),
            "attn_k": (kv_heads * head_dim, width),
            "attn_v": (kv_heads * head_dim, width),
            "attn_output": (width, width),
            "ffn_gate": (ffn, width),
            "ffn_up": (ffn, width),
            "ffn_down": (width, ffn),
        }
        for name, (rows, cols) in shapes.items():
            writer.add_tensor(f"{prefix}.{name}.weight", random_q4_1(rng, rows, cols), raw_dtype=GGMLQuantizationType.Q4_1)
    writer.add_tensor("output_norm.weight", ones)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a llama-architecture GGUF whose tokenizer and chat template to keep")
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=28)
    parser.add_argument("--width", type=int, default=1536)
    parser.add_argument("--ffn", type=int, default=8960)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--kv-heads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        write_shape_model(args.source, args.out, args.layers, args.width, args.ffn, args.heads, args.kv_heads, args.seed)
    except (ValueError, OSError) as error:
        print(f"shape_model_gguf: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
