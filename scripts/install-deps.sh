#!/usr/bin/env bash
# Installs what Custos needs and is missing: Debian packages (apt-get) and the Python
# packages of scripts/requirements.txt into a project-local virtualenv (.custos/venv).
# Idempotent: when everything is present it only checks, in about a second.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(
  libmicrohttpd-dev libsqlite3-dev libpq-dev libssl-dev libargon2-dev libcurl4-openssl-dev
  libdlib-dev libblas-dev liblapack-dev libopenblas0-pthread
  pkg-config postgresql wrk curl python3-venv
  # The browser tests: headless Chromium and its driver, ffmpeg for the fake camera's clips, and
  # the emoji the pages' titles use (for the screenshots).
  chromium chromium-driver ffmpeg fonts-noto-color-emoji
  # The deployment test (Tests/Deploy/nginx_tls.sh): deploy/nginx.conf run for real, in front of
  # custos with a throwaway certificate made by openssl. Debian 12's nginx is 1.22.
  nginx openssl
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python packages (models and test clients), pinned, in the project's own virtualenv.
requirements="$root/scripts/requirements.txt"
venv="$root/.custos/venv"
stamp="$venv/.requirements.sha256"
if [[ -s "$requirements" ]] && grep -qv '^\s*\(#\|$\)' "$requirements"; then
  want=$(sha256sum "$requirements" | cut -d' ' -f1)
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "install-deps: installing Python packages into .custos/venv" >&2
    [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
    echo "$want" > "$stamp"
  fi
fi
