#!/usr/bin/env bash
# Runs the shell blocks of the guides that are marked runnable (an HTML comment line
# `<!-- runnable -->` right before the ```sh fence), against a live server, so a guide cannot rot.
#
#     scripts/check-doc-blocks.sh [CUSTOS_BINARY]      (default .build/release/custos)
#
# The blocks run exactly as written, from a temporary work directory laid out like a checkout:
# `.build/release/custos` there is a link to the binary under test, `../shared` a link to the
# repository's `../shared` (the sample frames), `.custos` the server's data directory (the blocks'
# `--data-dir .custos`), and HOME a temporary directory (the CLI's profiles, ~/.custos/…), so
# nothing of the checkout or of the caller's home is touched.
#
# The server is started once, on 127.0.0.1:8080 as `make run` serves (the blocks name that
# address), with the flags the guides tell the reader to add for the sample recordings (SERVE
# below). The files run in a fixed order (FILES below: README first, then the guides in the order
# a reader meets them); all the runnable blocks of one file run in one `bash -euo pipefail`
# process, one after the other, as a reader pastes them, so a variable set in one block is there
# in the next. Each block is announced as `=== FILE:LINE`; the first block that fails stops the
# run, and the script exits 1 naming it (as does a file whose blocks run past BLOCKS_TIMEOUT
# seconds, 1200 by default). Exit 2: something the check needs is missing, or port 8080 is taken.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
binary=${1:-.build/release/custos}
if [[ $binary != /* ]]; then
  if [[ -e $binary ]]; then binary="$PWD/$binary"; else binary="$root/$binary"; fi
fi
cd "$root"

# The guides, in the order their blocks run. A guide with runnable blocks must be listed here.
FILES=(README.md docs/cli.md docs/relying-parties.md docs/app-developers.md docs/security.md docs/operators.md)
# The server the blocks talk to: `make run`'s flags, plus what docs/cli.md says the sample
# recordings need (a challenge of one blink) and what its face-confirmation example needs.
SERVE=(serve --dev --data-dir .custos --host 127.0.0.1 --port 8080 --issuer http://localhost:8080
  --liveness-actions blink --password-registration)

missing() {
  echo "check-doc-blocks.sh: not run: $*" >&2
  exit 2
}

[[ -x $binary ]] || missing "no custos binary at $binary (build it, or pass its path)"
[[ -d $root/../shared/data ]] || missing "no ../shared/data beside the repository (the sample frames the blocks use)"
command -v python3 >/dev/null || missing "python3 is not installed (the blocks and scripts/doc_blocks.py use it)"
command -v curl >/dev/null || missing "curl is not installed (Debian package curl)"
if (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null; then
  missing "port 8080 on 127.0.0.1 is in use (a \`make run\` still serving?): the blocks talk to 127.0.0.1:8080, stop what listens there first"
fi

# Every file exists, every marker marks a block, and no guide with runnable blocks is left out.
for file in "${FILES[@]}"; do [[ -f $file ]] || missing "$file does not exist (FILES in $0)"; done
python3 scripts/doc_blocks.py list "${FILES[@]}" >/dev/null || exit 2
for file in docs/*.md; do
  listed=""
  for wanted in "${FILES[@]}"; do [[ $file == "$wanted" ]] && listed=1; done
  if [[ -z $listed && -n $(python3 scripts/doc_blocks.py list "$file") ]]; then
    echo "check-doc-blocks.sh: $file has runnable blocks but is not in FILES: add it in the order a reader meets it" >&2
    exit 2
  fi
done
total=$(python3 scripts/doc_blocks.py list "${FILES[@]}" | wc -l)
[[ $total -gt 0 ]] || { echo "check-doc-blocks.sh: no runnable block in ${FILES[*]}" >&2; exit 1; }

scratch=$(mktemp -d)
work="$scratch/custos"
mkdir -p "$work/.build/release" "$scratch/home"
ln -s "$binary" "$work/.build/release/custos"
ln -s "$(cd "$root/../shared" && pwd)" "$scratch/shared"
server_pid=""
cleanup() {
  local status=$?
  if [[ -n $server_pid ]]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# What the caller's environment says about servers, keys and profiles must not reach the blocks.
while read -r name; do
  [[ $name == CUSTOS_MODELS_DIR ]] || unset "$name"
done < <(compgen -e | grep '^CUSTOS_' || true)
export HOME="$scratch/home"
# The blocks' `mktemp -d` scratch directories (profiles, frames, tokens) go under the work
# directory too, and are removed with it.
mkdir -p "$scratch/tmp"
export TMPDIR="$scratch/tmp"

started=$SECONDS
(cd "$work" && exec "$binary" "${SERVE[@]}") >"$scratch/server.log" 2>&1 </dev/null &
server_pid=$!
up=""
for _ in $(seq 1200); do
  if curl -sf -o /dev/null --max-time 2 http://127.0.0.1:8080/healthz; then up=1; break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $up ]]; then
  echo "check-doc-blocks.sh: the server did not answer /healthz; its log:" >&2
  tail -n 30 "$scratch/server.log" >&2
  exit 1
fi
echo "check-doc-blocks.sh: custos serve on 127.0.0.1:8080 ($binary); $total runnable blocks in ${FILES[*]}"

state="$scratch/block"
ran=0
for file in "${FILES[@]}"; do
  count=$(python3 scripts/doc_blocks.py list "$file" | wc -l)
  [[ $count -gt 0 ]] || continue
  script="$scratch/blocks.sh"
  python3 scripts/doc_blocks.py script "$file" "$state" >"$script"
  : >"$state"
  status=0
  (cd "$work" && timeout "${BLOCKS_TIMEOUT:-1200}" bash -euo pipefail "$script" </dev/null) || status=$?
  if [[ $status -ne 0 ]]; then
    echo >&2
    [[ $status -eq 124 ]] && echo "check-doc-blocks.sh: $file's blocks ran past ${BLOCKS_TIMEOUT:-1200} s" >&2
    echo "check-doc-blocks.sh: FAILED in the block at $(cat "$state") (the blocks of $file before it passed)" >&2
    echo "server log (last lines):" >&2
    tail -n 15 "$scratch/server.log" | cut -c1-400 >&2
    exit 1
  fi
  ran=$((ran + count))
  echo "check-doc-blocks.sh: $file: $count runnable blocks passed"
done
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "check-doc-blocks.sh: the server exited while the blocks ran; its log:" >&2
  tail -n 30 "$scratch/server.log" >&2
  exit 1
fi
echo "check-doc-blocks.sh: $ran of $total runnable blocks passed in $((SECONDS - started)) s"
