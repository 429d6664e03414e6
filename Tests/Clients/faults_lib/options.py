"""The command line: options, their environment defaults, and what `--short` sets."""
import argparse
import os
import secrets


def options_from(arguments, description: str) -> argparse.Namespace:
    """`description`: the entry script's docstring, the text --help prints."""
    environment = os.environ
    short = environment.get("FAULTS_SHORT") == "1"
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=environment.get("CUSTOS_BIN", ".build/release/custos"))
    parser.add_argument("--short", action="store_true", default=short)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--duration", type=float, default=None, help="seconds of load per kill round (the kill lands at 30-100%%)")
    parser.add_argument("--scenarios", default=environment.get("FAULTS_SCENARIOS", "kill,leaked-attempts,pg-outage,disk-full,read-only"))
    parser.add_argument("--stores", default=environment.get("FAULTS_STORES", "sqlite,postgresql"))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=int(environment.get("FAULTS_SEED") or secrets.randbelow(10**9)))
    parser.add_argument("--max-latency", type=float, default=float(environment.get("FAULTS_MAX_LATENCY", "5")))
    parser.add_argument("--recovery-limit", type=float, default=float(environment.get("FAULTS_RECOVERY_LIMIT", "10")))
    parser.add_argument("--request-timeout", type=float, default=float(environment.get("FAULTS_REQUEST_TIMEOUT", "20")),
                        help="seconds before a request without an answer counts as a hang (raise it on a loaded machine)")
    options = parser.parse_args(arguments)
    rounds_default, duration_default = (1, 4.0) if options.short else (5, 20.0)
    options.rounds = options.rounds or int(environment.get("ROUNDS") or rounds_default)
    options.duration = options.duration or float(environment.get("DURATION") or duration_default)
    options.workers = options.workers or (4 if options.short else 6)
    options.warmup = 2.0 if options.short else max(3.0, options.duration / 4)
    options.outage = float(environment.get("FAULTS_OUTAGE") or (3.0 if options.short else 10.0))
    options.fault_seconds = 4.0 if options.short else 10.0
    options.outbox_timeout = 60.0
    options.tmpfs_size = "24m"
    options.scenarios = [s.strip() for s in options.scenarios.split(",") if s.strip()]
    options.stores = [s.strip() for s in options.stores.split(",") if s.strip()]
    unknown = set(options.scenarios) - {"kill", "leaked-attempts", "pg-outage", "pg-freeze", "disk-full", "read-only",
                                         "receivers", "uploads", "slow-clients"}
    if unknown or set(options.stores) - {"sqlite", "postgresql"}:
        parser.error(f"unknown scenario or store: {sorted(unknown | (set(options.stores) - {'sqlite', 'postgresql'}))}")
    return options
