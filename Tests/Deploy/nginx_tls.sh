#!/usr/bin/env bash
# Runs the shipped deployment recipe for real: deploy/nginx.conf (a copy with the placeholders
# replaced) terminates TLS with a throwaway self-signed certificate in front of
# `custos serve --dev`, and the real `custos` CLI signs in and uploads a selfie through it. Then
# checks HSTS, the client address custos takes from X-Forwarded-For (the last value, the one
# nginx appends), the per-address limit of wrong device proofs, and `systemd-analyze verify` of
# deploy/custos.service.
#
#     Tests/Deploy/nginx_tls.sh [CUSTOS_BINARY]      (default .build/release/custos)
#
# nginx runs in the foreground from a temporary prefix on free loopback ports; /etc/nginx and
# the system's nginx service are never touched. The CLI trusts the throwaway certificate
# through a private mount namespace (unshare) in which libcurl's CA bundle is that certificate:
# on Linux, Foundation's URLSession reads no CA setting from the environment.
#
# One line per check, then `N passed, M failed`. Exit 0 when every check passed, 1 when one
# failed, 2 when something it needs is missing (nginx, openssl, curl, unshare, the frames).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
binary=${1:-.build/release/custos}
if [[ $binary != /* ]]; then
  if [[ -e $binary ]]; then binary="$PWD/$binary"; else binary="$root/$binary"; fi
fi
cd "$root"
started=$SECONDS

missing() {
  echo "nginx_tls.sh: not run: $*" >&2
  exit 2
}

# An executable's path (PATH, then /usr/sbin, where Debian puts nginx); nothing when there is none.
find_tool() {
  local path
  for path in "$(command -v "$1" || true)" "/usr/sbin/$1"; do
    [[ -n $path && -f $path && -x $path ]] && { echo "$path"; return 0; }
  done
  return 1
}
nginx_bin=$(find_tool nginx) || missing "nginx is not installed (Debian package nginx; scripts/install-deps.sh installs it)"
find_tool openssl >/dev/null || missing "openssl is not installed (Debian package openssl)"
find_tool curl >/dev/null || missing "curl is not installed (Debian package curl)"
find_tool unshare >/dev/null || missing "unshare is not installed (Debian package util-linux)"
[[ -x $binary ]] || missing "no custos binary at $binary (build it, or pass its path)"
frames_source="${CUSTOS_SHARED_DATA:-$root/../shared/data}/liveness/frames/blink_selfie"
[[ -f $frames_source/frame_0025.jpg ]] ||
  missing "no liveness frames at $frames_source (expected ../shared/data beside the repository, or set CUSTOS_SHARED_DATA)"
# What the caller's environment says about servers, keys and profiles must not reach the CLI.
while read -r name; do
  [[ $name == CUSTOS_MODELS_DIR ]] || unset "$name"
done < <(compgen -e | grep '^CUSTOS_' || true)

tmp=$(mktemp -d)
# nginx's workers (nobody, when this runs as root) read their temporary folders under it.
chmod 755 "$tmp"
nginx_pid="" custos_pid=""
cleanup() {
  local status=$?
  [[ -n $nginx_pid ]] && { kill -TERM "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; }
  [[ -n $custos_pid ]] && { kill -TERM "$custos_pid" 2>/dev/null || true; wait "$custos_pid" 2>/dev/null || true; }
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
summary() {
  echo "took $((SECONDS - started)) s"
  echo "$passed passed, $failed failed"
}
# A check that everything after it needs: on failure, stop here.
require() {
  [[ $failed -eq 0 ]] && return 0
  [[ -f $tmp/custos.log ]] && { echo "custos log (last lines):"; tail -n 15 "$tmp/custos.log" | cut -c1-400; }
  [[ -f $tmp/error.log ]] && { echo "nginx error log (last lines):"; tail -n 15 "$tmp/error.log"; }
  summary
  exit 1
}

free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 12000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# --- the throwaway certificate, and a way for the CLI to trust it -----------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null ||
  missing "openssl could not make a self-signed certificate"
chmod 600 "$tmp/key.pem"
chmod 644 "$tmp/cert.pem"

# libcurl's own default CA bundle: URLSession keeps it when libcurl has one.
ca_bundle=$(curl-config --ca 2>/dev/null || true)
[[ -n $ca_bundle ]] || ca_bundle=/etc/ssl/certs/ca-certificates.crt
namespace=(unshare --mount --propagation private)
[[ $(id -u) -eq 0 ]] || namespace=(unshare --map-root-user --mount --propagation private)
in_namespace() {
  # shellcheck disable=SC2016 # expanded by the inner sh
  "${namespace[@]}" sh -c 'ca=$1 bundle=$2; shift 2; mount --bind "$ca" "$bundle" && exec "$@"' sh "$tmp/cert.pem" "$ca_bundle" "$@"
}
if ! [[ -f $ca_bundle ]] || ! in_namespace true 2>/dev/null; then
  missing "cannot give the custos CLI the throwaway CA (${namespace[*]} with a bind mount over $ca_bundle failed)"
fi
cli() { in_namespace "$binary" "$@"; }

# --- custos --------------------------------------------------------------------------------------
mkdir -p "$tmp/data" "$tmp/frames"
for n in $(seq 1 25); do cp "$(printf '%s/frame_%04d.jpg' "$frames_source" "$n")" "$tmp/frames/"; done
admin_key=$("$binary" admin apikey create --scope admin --label deploy-test --data-dir "$tmp/data" | tail -n 1)
tls_port=$(free_port) http_port=$(free_port)
while [[ $http_port == "$tls_port" ]]; do http_port=$(free_port); done
base="https://localhost:$tls_port"
"$binary" serve --dev --data-dir "$tmp/data" --port 0 --issuer "$base" --trusted-proxies 127.0.0.1 \
  --max-connections-per-ip 0 --liveness-actions blink --argon2-memory-kib 64 --argon2-iterations 1 \
  2>"$tmp/custos.log" >/dev/null &
custos_pid=$!
custos_port=""
for _ in $(seq 600); do
  custos_port=$(grep -o '"event":"listening".*' "$tmp/custos.log" 2>/dev/null | grep -o '"port":[0-9]*' | head -n 1 | cut -d: -f2 || true)
  [[ -n $custos_port ]] && break
  kill -0 "$custos_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -n $custos_port ]]; then pass "custos serve listens on 127.0.0.1:$custos_port"; else fail "custos serve starts" "no listening event"; fi
require

# --- nginx with the shipped recipe ---------------------------------------------------------------
# The recipe as an operator installs it, its placeholders replaced.
sed -e "s|listen 443 ssl http2;|listen 127.0.0.1:$tls_port ssl http2;|" \
  -e "s|listen 80;|listen 127.0.0.1:$http_port;|" \
  -e "s|/etc/letsencrypt/live/auth.example.com/fullchain.pem|$tmp/cert.pem|" \
  -e "s|/etc/letsencrypt/live/auth.example.com/privkey.pem|$tmp/key.pem|" \
  -e "s|server_name auth.example.com;|server_name localhost;|" \
  -e "s|http://127.0.0.1:8080;|http://127.0.0.1:$custos_port;|" \
  deploy/nginx.conf >"$tmp/custos.conf"
left=$(sed 's/#.*//' "$tmp/custos.conf" | grep -nE 'auth\.example\.com|letsencrypt|127\.0\.0\.1:8080|listen (443|80)[ ;]' || true)
if [[ -z $left ]]; then pass "every placeholder of deploy/nginx.conf was replaced"; else fail "placeholders replaced" "still in the copy: $left"; fi
cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/error.log info;
events { worker_connections 128; }
http {
    log_format deploy_test '\$remote_addr "\$http_x_forwarded_for" \$request_id \$status "\$request"';
    access_log $tmp/access.log deploy_test;
    client_body_temp_path $tmp/client_body;
    proxy_temp_path $tmp/proxy;
    fastcgi_temp_path $tmp/fastcgi;
    uwsgi_temp_path $tmp/uwsgi;
    scgi_temp_path $tmp/scgi;
    include $tmp/custos.conf;
}
EOF
nginx_args=(-p "$tmp/" -e "$tmp/error.log" -c "$tmp/nginx.conf")
if out=$("$nginx_bin" "${nginx_args[@]}" -t 2>&1); then
  pass "nginx -t accepts deploy/nginx.conf ($("$nginx_bin" -v 2>&1 | sed 's/.*: //'))"
else
  fail "nginx -t accepts deploy/nginx.conf" "$(echo "$out" | grep -m1 emerg || echo "$out" | head -n 1)"
fi
require
"$nginx_bin" "${nginx_args[@]}" -g 'daemon off;' 2>>"$tmp/error.log" &
nginx_pid=$!

https() { curl -sS --max-time 30 --resolve "localhost:$tls_port:127.0.0.1" --cacert "$tmp/cert.pem" "$@"; }
up=""
for _ in $(seq 100); do
  https -o /dev/null "$base/healthz" 2>/dev/null && { up=1; break; }
  kill -0 "$nginx_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -n $up ]]; then pass "nginx serves $base with the throwaway certificate"; else fail "nginx serves $base" "no answer"; fi
require

# --- HSTS, and plain HTTP sent to HTTPS ----------------------------------------------------------
hsts_count() { grep -ic '^strict-transport-security: max-age=31536000' "$1" || true; }
https -D "$tmp/h_health" -o /dev/null "$base/healthz"
https -D "$tmp/h_missing" -o /dev/null "$base/no-such-route"
code=$(curl -sS -o /dev/null -D "$tmp/h_plain" -w '%{http_code}' "http://127.0.0.1:$http_port/app/")
if [[ $(hsts_count "$tmp/h_health") == 1 && $(hsts_count "$tmp/h_missing") == 1 ]] && grep -q '^HTTP/[0-9.]* 404' "$tmp/h_missing"; then
  pass "HTTPS answers carry Strict-Transport-Security once (200 and 404)"
else
  fail "HSTS on HTTPS answers" "200: $(hsts_count "$tmp/h_health"), 404: $(hsts_count "$tmp/h_missing") header(s)"
fi
if [[ $code == 301 ]] && grep -qi '^location: https://localhost/app/' "$tmp/h_plain"; then
  pass "plain HTTP redirects to https://localhost/app/"
else
  fail "plain HTTP redirects to HTTPS" "$code $(grep -i '^location' "$tmp/h_plain" | tr -d '\r')"
fi

# --- a full sign-in with the CLI over HTTPS --------------------------------------------------------
password="a good long password"
profile="$tmp/profile"
code=$(cli admin user create alice --code-only --server "$base" --api-key "$admin_key" 2>&1) || true
activated=$(echo "$password" | cli device activate --user alice --code "$code" --password-stdin --name laptop \
  --server "$base" --profile "$profile" 2>&1) || true
login=$(echo "$password" | cli login --password-stdin --profile "$profile" --json 2>&1) || true
if [[ $activated == activated* ]] && grep -Eq '"status_code" *: *100' <<<"$login"; then
  pass "CLI over HTTPS: admin user create, device activate, login (status 100)"
else
  fail "CLI sign-in over HTTPS" "code: $code; activate: $activated; login: $(echo "$login" | head -n 3 | tr '\n' ' ')"
fi
device_id=$(grep -o '"device_id" *: *"[0-9a-f]*"' <<<"$login" | head -n 1 | grep -o '[0-9a-f]\{16,\}' || true)

# --- a selfie upload: the biometric opt-in, 25 frames at 12 fps ----------------------------------
optin=$(cli idv optin --frames "$tmp/frames" --fps 12 --profile "$profile" 2>&1) || true
status=$(cli idv status --profile "$profile" 2>&1) || true
if grep -q 'ENROLLED' <<<"$optin" && grep -q '(100)' <<<"$status"; then
  pass "CLI over HTTPS: idv optin uploads 25 frames, ENROLLED; idv status 100"
else
  fail "selfie upload over HTTPS" "optin: $(echo "$optin" | tr '\n' ' '); status: $status"
fi
# The upload went through nginx, and custos logged it under nginx's $request_id (X-Request-Id).
upload_id=$(grep '"POST /v1/idv/transactions/[0-9a-f]*/frames' "$tmp/access.log" | tail -n 1 | cut -d' ' -f3 || true)
logged=""
for _ in $(seq 50); do
  # custos writes its log every 200 ms.
  [[ -n $upload_id ]] && grep -q "\"route\":\"/v1/idv/transactions/{id}/frames\",\"status\":200,.*\"request_id\":\"$upload_id\"" "$tmp/custos.log" &&
    { logged=1; break; }
  sleep 0.1
done
if [[ -n $logged ]]; then
  pass "the frames upload passed nginx and custos logged it under nginx's request id $upload_id"
else
  fail "request id through nginx" "nginx: '${upload_id}'; custos: $(grep -c frames "$tmp/custos.log" || true) frames line(s)"
fi

# --- the client address: the last X-Forwarded-For value, the one nginx appends ------------------
# A device bound from 127.0.0.2 whose request claims other addresses: custos records 127.0.0.2.
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/device.pem" 2>/dev/null
openssl ec -in "$tmp/device.pem" -pubout -outform DER 2>/dev/null | tail -c 64 >"$tmp/device.xy"
x=$(head -c 32 "$tmp/device.xy" | b64url) y=$(tail -c 32 "$tmp/device.xy" | b64url)
bob_code=$(cli admin user create bob --code-only --server "$base" --api-key "$admin_key" 2>&1) || true
body=$(printf '{"user_id":"bob","activation_code":"%s","password":"%s","device_name":"phone","device_public_key":{"kty":"EC","crv":"P-256","x":"%s","y":"%s"}}' \
  "$bob_code" "$password" "$x" "$y")
code=$(https --interface 127.0.0.2 -o "$tmp/bob.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  -H 'X-Forwarded-For: 203.0.113.9' -H 'X-Forwarded-For: 198.51.100.7, 192.0.2.1' -d "$body" "$base/v1/activate") || true
bound=$(cli admin device list bob --server "$base" --api-key "$admin_key" --json 2>&1 | grep -o '"bound_from" *: *"[^"]*"' | grep -o '"[^"]*"$' | tr -d '"' || true)
if [[ $code == 201 && $bound == 127.0.0.2 ]]; then
  pass "custos takes the client from X-Forwarded-For's last value: activation from 127.0.0.2 claiming 203.0.113.9 and 198.51.100.7 is bound_from 127.0.0.2"
else
  fail "client address from X-Forwarded-For" "activate HTTP $code, bound_from '${bound}' (want 127.0.0.2)"
fi

# --- the per-address limit of wrong device proofs, counted by that address ----------------------
signature=$(head -c 64 /dev/urandom | b64url)
# Prints the HTTP status of a wrong proof for alice's device from source address $1 claiming $2.
wrong_proof() {
  local nonce
  nonce=$(https --interface "$1" -H "X-Forwarded-For: $2" -H 'Content-Type: application/json' \
    -d "{\"user_id\":\"alice\",\"device_id\":\"$device_id\"}" "$base/v1/login/challenge" |
    sed -n 's/.*"nonce":"\([^"]*\)".*/\1/p') || true
  https --interface "$1" -H "X-Forwarded-For: $2" -H 'Content-Type: application/json' -D "$tmp/h_proof" -o "$tmp/proof.json" -w '%{http_code}' \
    -d "{\"user_id\":\"alice\",\"device_id\":\"$device_id\",\"nonce\":\"$nonce\",\"signature\":\"$signature\",\"password\":\"$password\"}" \
    "$base/v1/login" || true
}
codes=() first_429=""
for i in $(seq 1 8); do
  # Each from 127.0.0.3, each claiming another address of its own: all count as 127.0.0.3.
  codes+=("$(wrong_proof 127.0.0.3 "198.51.100.$i")")
  if [[ ${codes[-1]} == 429 && -z $first_429 ]]; then
    first_429=$i
    cp "$tmp/h_proof" "$tmp/h_429" && cp "$tmp/proof.json" "$tmp/429.json"
  fi
done
limited=""
if [[ -n $first_429 && $first_429 -gt 1 ]] && grep -q '"too_many_attempts"' "$tmp/429.json" && grep -qi '^retry-after: [0-9]' "$tmp/h_429"; then
  limited=1
  for ((i = 0; i < 8; i++)); do
    if ((i + 1 < first_429)); then [[ ${codes[i]} == 200 ]] || limited=""; else [[ ${codes[i]} == 429 ]] || limited=""; fi
  done
fi
if [[ -n $limited ]]; then
  pass "wrong device proofs from 127.0.0.3, each claiming another X-Forwarded-For, run out into 429 too_many_attempts with Retry-After (HTTP ${codes[*]})"
else
  fail "per-address limit of wrong proofs" "HTTP ${codes[*]}; $(cat "$tmp/429.json" 2>/dev/null || true)"
fi
if [[ -f $tmp/h_429 && $(hsts_count "$tmp/h_429") == 1 ]]; then
  pass "the 429 answer carries Strict-Transport-Security too"
else
  fail "HSTS on the 429 answer" "$([[ -f $tmp/h_429 ]] && echo "$(hsts_count "$tmp/h_429") header(s)" || echo "no 429 answer")"
fi
other=$(wrong_proof 127.0.0.4 127.0.0.3)
relogin=$(echo "$password" | cli login --password-stdin --profile "$profile" --json 2>&1) || true
if [[ $other == 200 ]] && grep -q '"status_code":401' "$tmp/proof.json" && grep -Eq '"status_code" *: *100' <<<"$relogin"; then
  pass "other addresses are unaffected: 127.0.0.4 claiming 127.0.0.3 gets 401 with attempts left, the CLI (127.0.0.1) logs in"
else
  fail "other addresses unaffected" "127.0.0.4: HTTP $other $(cat "$tmp/proof.json"); CLI login: $(echo "$relogin" | head -n 3 | tr '\n' ' ')"
fi

# --- the systemd unit ------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
  # verify insists that ExecStart's program exists: the copy names the binary under test.
  sed "s|^ExecStart=/usr/local/bin/custos |ExecStart=$binary |" deploy/custos.service >"$tmp/custos.service"
  if ! grep -q "^ExecStart=$binary serve --config " "$tmp/custos.service"; then
    fail "systemd-analyze verify deploy/custos.service" "ExecStart is no longer /usr/local/bin/custos serve --config …"
  elif out=$(systemd-analyze verify "$tmp/custos.service" 2>&1) && [[ -z $out ]]; then
    pass "systemd-analyze verify deploy/custos.service reports nothing ($(systemd-analyze --version | head -n 1))"
  else
    fail "systemd-analyze verify deploy/custos.service" "$(echo "$out" | tr '\n' ' ')"
  fi
else
  echo "SKIP systemd-analyze verify deploy/custos.service: systemd-analyze is not installed (Debian package systemd)"
fi

summary
[[ $failed -eq 0 ]]
