#!/usr/bin/env bash
# Install the pinned converter toolchain into models/.venv and run the models/ tests.
# Idempotent: the venv is reused while requirements.txt is unchanged (hash stamp), so a
# second run goes straight to pytest. Needs Python 3.11 + pip and PyPI; nothing else.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3}"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"

start=$(date +%s)
if [[ ! -x "$venv/bin/python" ]]; then
  echo "models: creating $venv"
  "$python" -m venv "$venv"
fi
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  echo "models: installing pinned requirements (first run downloads torch, ~3 GB with its CUDA wheels)"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    -r "$here/requirements.txt"
  echo "$want" > "$stamp"
else
  echo "models: requirements already installed"
fi
echo "models: install step took $(( $(date +%s) - start ))s"

cd "$here"
# No hub access: transformers must never try the network during tests.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
export TOKENIZERS_PARALLELISM=false PYTHONDONTWRITEBYTECODE=1
# A hang (e.g. a deadlocked worker) must fail CI, not eat its 90 minutes.
exec timeout 1500 "$venv/bin/python" -m pytest -p no:cacheprovider -q "$@" tests
