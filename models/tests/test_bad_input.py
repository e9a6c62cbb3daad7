"""Refusals: a clear message, a distinct exit code, and nothing left in the output's parent."""

import json
import shutil

import pytest

import model_files
from conftest import run_cli
from statefulchat_convert import deps, export, pipeline
from statefulchat_convert.errors import MissingDependency


def _refuse(capsys, tmp_path, source, *extra, code, words):
    output = tmp_path / "out" / "model"
    assert run_cli(source, "--output", output, *extra) == code
    err = capsys.readouterr().err
    for word in words:
        assert word in err, err
    # No package, no staging folder.
    assert not output.exists()
    assert not (output.parent.exists() and any(output.parent.iterdir()))
    return err


def test_unknown_architecture_gpt2(tmp_path, capsys):
    folder = model_files.tiny_model(tmp_path / "gpt2", "gpt2")
    _refuse(capsys, tmp_path, folder, code=5, words=["Unsupported architecture",
                                                     "GPT2LMHeadModel", "LlamaForCausalLM"])


def test_unknown_model_type(tmp_path, capsys, tiny_llama_dir):
    folder = tmp_path / "mystery"
    shutil.copytree(tiny_llama_dir, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(model_type="mystery", architectures=["MysteryForCausalLM"])
    (folder / "config.json").write_text(json.dumps(config))
    _refuse(capsys, tmp_path, folder, code=5, words=["mystery"])


def test_missing_weights(tmp_path, capsys, tiny_llama_dir):
    folder = tmp_path / "noweights"
    shutil.copytree(tiny_llama_dir, folder)
    for weights in folder.glob("*.safetensors"):
        weights.unlink()
    _refuse(capsys, tmp_path, folder, code=4, words=["missing", "weights"])


def test_missing_config(tmp_path, capsys, tiny_llama_dir):
    folder = tmp_path / "noconfig"
    shutil.copytree(tiny_llama_dir, folder)
    (folder / "config.json").unlink()
    _refuse(capsys, tmp_path, folder, code=4, words=["config.json"])


def test_missing_gguf_file(tmp_path, capsys):
    _refuse(capsys, tmp_path, tmp_path / "nothing.gguf", code=4, words=["GGUF file not found"])


def test_not_a_model(tmp_path, capsys):
    _refuse(capsys, tmp_path, "no such thing", code=4, words=["Model not found"])


def test_hub_id_without_network(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    _refuse(capsys, tmp_path, "nobody-here/not-a-model", code=4, words=["Could not load"])


def test_context_larger_than_model(tmp_path, capsys, tiny_llama_dir):
    # The tiny model declares max_position_embeddings=512.
    _refuse(capsys, tmp_path, tiny_llama_dir, "--context", "1024", code=6,
            words=["exceeds", "512"])


@pytest.mark.parametrize("context", ["100", "0", "32"])
def test_context_not_a_multiple(tmp_path, capsys, tiny_llama_dir, context):
    _refuse(capsys, tmp_path, tiny_llama_dir, "--context", context, code=6,
            words=["multiple of 64"])


def test_existing_output_is_not_overwritten(tmp_path, capsys, tiny_llama_dir):
    output = tmp_path / "taken"
    output.mkdir()
    (output / "keep.txt").write_text("mine")
    assert run_cli(tiny_llama_dir, "--output", output, "--context", "64") == 7
    assert "--overwrite" in capsys.readouterr().err
    assert (output / "keep.txt").read_text() == "mine"


def test_failure_mid_conversion_leaves_nothing(tmp_path, tiny_llama_dir, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("converter crashed")

    monkeypatch.setattr(export, "convert", broken)
    parent = tmp_path / "out"
    with pytest.raises(RuntimeError, match="converter crashed"):
        pipeline.run(pipeline.Options(source=str(tiny_llama_dir), output=parent / "model",
                                      context=64))
    assert list(parent.iterdir()) == []


def test_missing_dependency_names_the_install_command(monkeypatch):
    import importlib

    real = importlib.import_module

    def fake(name, *args):
        if name == "coremltools":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(MissingDependency, match="coremltools.*requirements.txt"):
        deps.require()


def test_help_needs_no_heavy_dependencies():
    import subprocess
    import sys

    from conftest import MODELS_DIR

    # -S skips site-packages: torch and coremltools are unimportable, --help still works.
    result = subprocess.run([sys.executable, "-S", str(MODELS_DIR / "convert.py"), "--help"],
                            capture_output=True, text=True)
    assert result.returncode == 0
    assert "--quantize" in result.stdout


def test_conversion_without_dependencies_refuses_clearly(tmp_path, tiny_llama_dir):
    import subprocess
    import sys

    from conftest import MODELS_DIR

    result = subprocess.run([sys.executable, "-S", str(MODELS_DIR / "convert.py"),
                             str(tiny_llama_dir), "--output", str(tmp_path / "o")],
                            capture_output=True, text=True)
    assert result.returncode == MissingDependency.exit_code, result.stderr
    assert "requirements.txt" in result.stderr
    assert not (tmp_path / "o").exists()
