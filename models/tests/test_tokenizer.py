"""The tokenizer files written beside the package encode like the source model."""

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from statefulchat_convert import sources

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="module")
def golden():
    return json.loads((GOLDEN / "tokenizer_golden.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def source_tokenizer(gguf_path):
    return sources.load_tokenizer(sources.resolve(str(gguf_path)))


def _check(tokenizer: Tokenizer, golden):
    for case in golden["cases"]:
        assert tokenizer.encode(case["text"], add_special_tokens=False).ids == case["ids"], case["text"]
        assert tokenizer.encode(case["text"]).ids == case["ids_with_special_tokens"], case["text"]


def test_golden_set_matches_the_source_model(golden, source_tokenizer):
    """The committed golden ids are what the GGUF's tokenizer (via transformers) gives."""
    assert len(golden["cases"]) >= 20
    for case in golden["cases"]:
        assert source_tokenizer.encode(case["text"], add_special_tokens=False) == case["ids"]
        assert source_tokenizer.encode(case["text"]) == case["ids_with_special_tokens"]


def test_golden_covers_the_hard_cases(golden):
    texts = "".join(c["text"] for c in golden["cases"])
    for needle in ("\t", "\r\n", "👨‍👩‍👧‍👦", "日本語", "<|im_start|>", "<|im_end|>", "def "):
        assert needle in texts
    chat = golden["cases"][-1]
    assert chat["text"].endswith("<|im_start|>assistant\n")
    assert chat["ids"].count(1) == 5  # every <|im_start|> is one special id


def test_committed_tokenizer_files_match_golden(golden):
    """What the TypeScript parity test loads without Python."""
    assert (GOLDEN / "smollm2" / "tokenizer.json").stat().st_size < 5 * 2**20
    _check(Tokenizer.from_file(str(GOLDEN / "smollm2" / "tokenizer.json")), golden)
    config = json.loads((GOLDEN / "smollm2" / "tokenizer_config.json").read_text())
    assert "<|im_start|>" in config["chat_template"]


def test_converted_output_tokenizer_matches_golden(golden, smol_packages, source_tokenizer):
    folder = smol_packages["none"]
    _check(Tokenizer.from_file(str(folder / "tokenizer.json")), golden)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    assert config["chat_template"] == source_tokenizer.chat_template
