#!/usr/bin/env python3
"""The sampler and statistics of bench/timing.sh: do refusals that must look alike take the same time?

Usage: timing.py (from the environment: URL, RP_KEY, SAMPLES per kind, SEED)

Every sample is one request, timed from its first byte sent to its last byte read, over a kept-alive
connection, one at a time; the kinds are interleaved in a random order so that a drift of the
machine (another process, a cache warming) lands on all of them alike. Each sample names a new
client address in X-Forwarded-For (the server trusts loopback as a proxy), so that the limits per
address never answer in place of the check being measured; known users get at most 8 wrong
passwords each, below the point where password registration closes for them.
"""
import base64
import json
import math
import os
import random
import secrets
import sys
import time

try:
    import requests
    from cryptography.hazmat.primitives.asymmetric import ec
except ImportError as missing:
    print(f"timing: {missing.name} is not installed; run scripts/install-deps.sh", file=sys.stderr)
    sys.exit(3)

PER_USER = 8  # wrong passwords per known user (password registration closes for a user at 10)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_jwk(key):
    numbers = key.public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}


class Server:
    def __init__(self, url, rp_key):
        self.url, self.http = url.rstrip("/"), requests.Session()
        self.rp = {"Authorization": f"Bearer {rp_key}"}
        self.addresses = (f"10.{a}.{b}.{c}" for a in range(1, 255) for b in range(256) for c in range(1, 255))

    def call(self, method, path, expect, headers=None, **kwargs):
        response = self.http.request(method, self.url + path, headers=headers, timeout=60, **kwargs)
        if response.status_code != expect:
            raise SystemExit(f"timing: {method} {path}: HTTP {response.status_code} (expected {expect}): {response.text[:200]}")
        return response.json() if response.content else None

    def timed(self, method, path, body):
        """One sample from a new address: (seconds, status, body)."""
        headers = {"X-Forwarded-For": next(self.addresses), "Content-Type": "application/json"}
        data = json.dumps(body).encode()
        started = time.perf_counter()
        response = self.http.request(method, self.url + path, headers=headers, data=data, timeout=60)
        content = response.content
        elapsed = time.perf_counter() - started
        return elapsed, response.status_code, json.loads(content) if content else None

    def user(self, prefix, disabled=False):
        """An activated user: (id, password, device id)."""
        user_id = f"{prefix}-{secrets.token_hex(4)}"
        password = "timing " + secrets.token_urlsafe(12)
        code = self.call("POST", "/v1/users", 201, self.rp, json={"user_id": user_id})["activation"]["activation_code"]
        body = self.call("POST", "/v1/activate", 201, json={
            "user_id": user_id, "activation_code": code, "password": password, "device_name": "timing",
            "device_public_key": public_jwk(ec.generate_private_key(ec.SECP256R1()))})
        if disabled:
            self.call("POST", f"/v1/users/{user_id}/disable", 200, self.rp)
        return user_id, password, body["device_id"]


def registration_kinds(server, samples):
    """Password registration: every kind must be 401 credentials_rejected with the same attempts left."""
    users_needed = math.ceil(samples / PER_USER)
    active = [server.user("timing-active") for _ in range(users_needed)]
    disabled = [server.user("timing-disabled", disabled=True) for _ in range(users_needed)]
    key = public_jwk(ec.generate_private_key(ec.SECP256R1()))  # never bound: every sample is refused

    def register(user_id, password):
        return lambda: server.timed("POST", "/v1/devices/register", {
            "user_id": user_id, "password": password, "device_name": "timing", "device_public_key": key})

    return "password registration", "wrong password", {
        "wrong password": [register(active[i // PER_USER][0], "wrong " + secrets.token_urlsafe(12)) for i in range(samples)],
        "unknown user": [register(f"timing-nobody-{secrets.token_hex(4)}", "wrong " + secrets.token_urlsafe(12))
                         for _ in range(samples)],
        "disabled user": [register(disabled[i // PER_USER][0], disabled[i // PER_USER][1]) for i in range(samples)],
    }


def login_kinds(server, samples):
    """Login without a valid device signature: every kind is refused before any password."""
    active = [server.user("timing-login") for _ in range(4)]
    disabled = [server.user("timing-login-disabled", disabled=True) for _ in range(4)]
    bad_signature = b64url(secrets.token_bytes(64))

    def login(user_id, device_id):
        def sample():
            nonce = server.call("POST", "/v1/login/challenge", 200, json={"user_id": user_id, "device_id": device_id})["nonce"]
            return server.timed("POST", "/v1/login", {"user_id": user_id, "device_id": device_id, "nonce": nonce,
                                                      "signature": bad_signature})
        return sample

    return "login without a device proof", "wrong signature", {
        "wrong signature": [login(active[i % 4][0], active[i % 4][2]) for i in range(samples)],
        "unknown user": [login(f"timing-nobody-{secrets.token_hex(4)}", f"dev-{secrets.token_hex(8)}") for _ in range(samples)],
        "disabled user": [login(disabled[i % 4][0], disabled[i % 4][2]) for i in range(samples)],
        "unknown device": [login(active[i % 4][0], f"dev-{secrets.token_hex(8)}") for i in range(samples)],
    }


def mann_whitney_p(a, b):
    """Two-sided p-value of the Mann-Whitney U test (normal approximation with tie correction)."""
    pooled = sorted([(value, 0) for value in a] + [(value, 1) for value in b])
    ranks, ties, index = [0.0] * len(pooled), 0.0, 0
    while index < len(pooled):
        end = index
        while end + 1 < len(pooled) and pooled[end + 1][0] == pooled[index][0]:
            end += 1
        for position in range(index, end + 1):
            ranks[position] = (index + end) / 2 + 1
        size = end - index + 1
        ties += size ** 3 - size
        index = end + 1
    n1, n2 = len(a), len(b)
    rank_sum = sum(rank for rank, (_, group) in zip(ranks, pooled) if group == 0)
    u = rank_sum - n1 * (n1 + 1) / 2
    n = n1 + n2
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
    if sigma == 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / sigma
    return math.erfc(max(z, 0) / math.sqrt(2))


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def gap_interval(a, b, rng, rounds=2000):
    """Bootstrap 95% interval of median(a) - median(b)."""
    gaps = sorted(median(rng.choices(a, k=len(a))) - median(rng.choices(b, k=len(b))) for _ in range(rounds))
    return gaps[int(0.025 * rounds)], gaps[int(0.975 * rounds)]


def measure(group, reference, kinds, rng):
    order = [(kind, sample) for kind, samples in kinds.items() for sample in samples]
    rng.shuffle(order)
    times, answers = {kind: [] for kind in kinds}, {kind: set() for kind in kinds}
    for kind, sample in order:
        elapsed, status, body = sample()
        times[kind].append(elapsed * 1000)
        error = (body or {}).get("error") or {}
        answers[kind].add((status, (body or {}).get("status_code"), (body or {}).get("attempts_left"), error.get("code")))
    print(f"\n{group} ({len(order)} requests, interleaved)")
    print(f"  {'kind':<16} {'answer (status_code)':<28} {'p10 ms':>8} {'median':>8} {'p90 ms':>8} {'gap ms (95% CI)':>24} {'p':>8}")
    base, worst = times[reference], None
    for kind, values in times.items():
        status, code, left, error = sorted(answers[kind], key=str)[0]
        answer = f"HTTP {status}, {error or code}" + (f", {left} left" if left is not None else "")
        if len(answers[kind]) > 1:
            answer += f" (+{len(answers[kind]) - 1} other)"
        line = f"  {kind:<16} {answer:<28} {quantile(values, 0.1):8.2f} {median(values):8.2f} {quantile(values, 0.9):8.2f}"
        if kind == reference:
            print(line + f" {'reference':>24}")
            continue
        low, high = gap_interval(values, base, rng)
        gap, p = median(values) - median(base), mann_whitney_p(values, base)
        print(line + f" {f'{gap:+.2f} ({low:+.2f}..{high:+.2f})':>24} {p:8.4f}")
        distinguishable = p < 0.001 and abs(gap) > 0.01 * median(base)
        candidate = (distinguishable, -p, abs(gap), f"{group}: {kind}", p, gap)
        if worst is None or candidate > worst:
            worst = candidate
    different = {kind: sorted(answer) for kind, answer in answers.items() if answer != answers[reference]}
    if different:
        print(f"  the answers differ from the reference's {sorted(answers[reference])}: {different}")
    return worst, bool(different)


def main():
    env = os.environ
    samples, seed = int(env.get("SAMPLES", "150")), int(env.get("SEED", "1"))
    rng = random.Random(seed)
    server = Server(env["URL"], env["RP_KEY"])
    started = time.monotonic()
    groups = [registration_kinds(server, samples), login_kinds(server, samples)]
    print(f"timing: {samples} samples per kind, seed {seed}; users made in {time.monotonic() - started:.1f} s", flush=True)
    results = [measure(group, reference, kinds, rng) for group, reference, kinds in groups]
    worst = max(result[0] for result in results)
    answers_differ = any(result[1] for result in results)
    distinguishable, _, _, name, p, gap = worst
    verdict = "DISTINGUISHABLE" if distinguishable or answers_differ else "indistinguishable"
    print(f"\ntiming: samples={samples} per kind, worst={name.replace(' ', '_')} p={p:.4f} median-gap={gap:+.2f}ms "
          f"answers={'differ' if answers_differ else 'equal'} verdict={verdict}")
    sys.exit(1 if verdict == "DISTINGUISHABLE" else 0)


if __name__ == "__main__":
    main()
