#!/usr/bin/env bash
# Install the pinned converter toolchain into models/.venv and run the models/ tests.
# Idempotent: the venv is reused while requirements.txt is unchanged (hash stamp), so a
# second run goes straight to pytest. Needs Python 3.11 + pip and PyPI; nothing else.
# `--install-only`: the install step alone (run-all.sh starts it early, in the background: it
# is mostly downloading torch, which overlaps the compiling steps).
set -euo pipefail
install_only=0
if [[ "${1:-}" == "--install-only" ]]; then install_only=1; shift; fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3}"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"

start=$(date +%s)
if [[ ! -x "$venv/bin/python" ]]; then
  echo "models: creating $venv"
  # Debian's system python lacks ensurepip unless python3-venv is installed; then the
  # venv is made without pip and the outer pip installs into it (pip >= 22.3: --python).
  "$python" -m venv "$venv" 2>/dev/null || { rm -rf "$venv"; "$python" -m venv --without-pip "$venv"; }
fi
if "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  pip=("$venv/bin/python" -m pip)
else
  pip=("$python" -m pip --python "$venv/bin/python")
fi
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  echo "models: installing pinned requirements (first run downloads torch, ~3 GB with its CUDA wheels)"
  "${pip[@]}" install --quiet --disable-pip-version-check --no-input -r "$here/requirements.txt"
  echo "$want" > "$stamp"
else
  echo "models: requirements already installed"
fi
echo "models: install step took $(( $(date +%s) - start ))s"
if [[ "$install_only" == 1 ]]; then exit 0; fi

cd "$here"
# No hub access: transformers must never try the network during tests.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
export TOKENIZERS_PARALLELISM=false PYTHONDONTWRITEBYTECODE=1
# A hang (e.g. a deadlocked worker) must fail CI, not eat its 90 minutes. npm test runs these
# tests at the lowest priority beside the other suites (test/run-all.sh), where they may take
# longer than alone: it sets a longer limit (MODELS_TEST_TIMEOUT, seconds).
exec timeout "${MODELS_TEST_TIMEOUT:-1500}" "$venv/bin/python" -m pytest -p no:cacheprovider -q "$@" tests
