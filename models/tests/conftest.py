"""Shared fixtures. Conversions are session-scoped: each takes seconds to a minute, and
several tests read the same package."""

import sys
from pathlib import Path

import pytest

MODELS_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(MODELS_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import model_files  # noqa: E402

TINY_CONTEXT = 256
SMOL_CONTEXT = 512


def run_cli(*argv) -> int:
    import convert

    return convert.main([str(a) for a in argv])


@pytest.fixture(scope="session")
def gguf_path() -> Path:
    return model_files.default_model_path()


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory) -> Path:
    return model_files.tiny_model(tmp_path_factory.mktemp("tiny-llama"), "llama")


@pytest.fixture(scope="session")
def tiny_qwen_dir(tmp_path_factory) -> Path:
    return model_files.tiny_model(tmp_path_factory.mktemp("tiny-qwen2"), "qwen2")


@pytest.fixture(scope="session")
def tiny_packages(tiny_llama_dir, tmp_path_factory) -> dict:
    """The tiny Llama through the CLI once per quantization mode."""
    root = tmp_path_factory.mktemp("tiny-out")
    out = {}
    for mode in ("none", "int8", "int4", "palettize4"):
        target = root / mode
        assert run_cli(tiny_llama_dir, "--context", TINY_CONTEXT, "--quantize", mode,
                       "--output", target) == 0
        out[mode] = target
    return out


@pytest.fixture(scope="session")
def smol_packages(gguf_path, tmp_path_factory) -> dict:
    """SmolLM2 from its GGUF through the CLI (fp16), then int8/int4 derived from that
    package by the same quantize.apply the CLI calls (saves two re-conversions)."""
    from statefulchat_convert.pipeline import derive_variant

    root = tmp_path_factory.mktemp("smol-out")
    fp16 = root / "none"
    assert run_cli(gguf_path, "--context", SMOL_CONTEXT, "--output", fp16) == 0
    out = {"none": fp16}
    for mode in ("int8", "int4"):
        out[mode] = derive_variant(fp16, mode, root / mode)
    return out
