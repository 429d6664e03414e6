"""The parts of faults.py (fault injection against a live `custos serve`; its docstring says what it checks).

report      `log` and the PASS/FAIL/SKIP report
client      base64url, canonical JSON, device keys, timed HTTP requests, the webhook receiver
server      the `custos serve` process, its admin commands, SQLite's integrity check
ledger      every write the server acknowledged, and what is in doubt
load        the clients writing under load, their flows, the outage's prober
checker     the ledger read back from the server, the webhook outbox
scenario    a server set up for a scenario, and the checks every scenario ends with
postgres    scripts/with-postgres.sh's cluster: a database, stop and start, freeze and thaw
mounts      the tmpfs and ext4 loop mounts this run makes (always undone), filling one
kill        the kill scenario
pg_outage   the pg-outage and pg-freeze scenarios
disk        the disk-full and read-only scenarios
receivers   the receivers scenario (webhook receivers that fail beside a healthy one)
uploads     the uploads scenario (memory under concurrent large uploads)
options     the command line
"""
