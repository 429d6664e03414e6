"""The disk scenarios: SQLite on a full disk (disk-full) and on a disk turned read-only (read-only),
with the plain writes and reads that observe the server meanwhile and its start on a broken disk."""
import collections
import os
import shutil
import subprocess
import tempfile
import time

from .client import Api, Lost
from .ledger import Notification, User
from .mounts import Mounts, fill
from .report import Report, log
from .scenario import Setup, check_common, describe, report_audit
from .server import ServerFailed, sqlite_integrity


# MARK: Scenarios: a full disk and a read-only disk


class Writes:
    """Plain sequential writes and reads against a server whose disk misbehaves: every answer kept."""

    def __init__(self, setup: Setup, label: str):
        self.setup = setup
        self.api = Api(setup.context.url, setup.options.request_timeout)
        self.label = label
        self.count = 0
        self.answers = collections.Counter()
        self.acked_users = []
        self.read_answers = collections.Counter()
        self.slowest = 0.0

    def one_write(self) -> bool:
        """A user created (a write that grows the database); whether it was acknowledged."""
        self.count += 1
        user_id = f"{self.setup.context.prefix}-{self.label}-{self.count}"
        try:
            answer = self.api.call("POST", "/v1/users", token=self.setup.context.rp_key, json={"user_id": user_id})
        except Lost as lost:
            self.api.reset()
            self.answers[f"no answer ({lost})"] += 1
            return False
        self.slowest = max(self.slowest, answer.elapsed)
        self.answers[f"{answer.status} {answer.error_code or ''}".strip()] += 1
        if answer.status == 201:
            user = User(user_id, answer.body["activation"]["activation_code"])
            self.setup.ledger.ack("users", user, self.setup.ledger.users)
            return True
        return False

    def one_notification(self):
        users = [user for user in self.setup.ledger.users if user.state == "active"]
        if not users:
            return
        try:
            answer = self.api.call("POST", "/v1/notifications", token=self.setup.context.rp_key, json={
                "user_id": users[self.count % len(users)].user_id, "subject": "Disk", "message": "x" * 1500,
                "actions": [{"label": "OK", "action": "ok", "auth_level": 0}], "expires_in": 3600})
        except Lost as lost:
            self.api.reset()
            self.answers[f"no answer ({lost})"] += 1
            return
        self.slowest = max(self.slowest, answer.elapsed)
        self.answers[f"{answer.status} {answer.error_code or ''}".strip()] += 1
        if answer.status == 201:
            user = users[self.count % len(users)]
            self.setup.ledger.ack("notifications", Notification(answer.body["notification_uuid"], user, {}), self.setup.ledger.notifications)

    def one_read(self):
        users = self.setup.ledger.users
        if not users:
            return
        try:
            answer = self.api.call("GET", f"/v1/users/{users[0].user_id}", "/v1/users/{id}", token=self.setup.context.rp_key)
            self.read_answers[str(answer.status)] += 1
        except Lost:
            self.api.reset()
            self.read_answers["no answer"] += 1

    def run(self, seconds: float, until_errors: int = 0):
        """Writes and reads for `seconds` (or until `until_errors` refusals were seen)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.one_write()
            self.one_notification()
            self.one_read()
            refused = sum(count for answer, count in self.answers.items() if not answer.startswith("201"))
            if until_errors and refused >= until_errors:
                break

    def clear(self) -> tuple:
        """(every answer a 2xx or a clear 503/507 JSON error, the answers that are not)."""
        bad = {answer: count for answer, count in self.answers.items()
               if not (answer.startswith("201") or answer.split(" ")[0] in ("503", "507") and len(answer.split(" ")) == 2)}
        return not bad, bad


def wait_for_write(writes: Writes, timeout: float) -> float:
    """Seconds until a write is acknowledged again (None if never)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if writes.one_write():
            return time.monotonic() - started
        time.sleep(0.1)
    return None


def baseline(setup: Setup, seconds: float):
    """Some load before the fault: users, activations, notifications answered, grants."""
    setup.load.go()
    time.sleep(seconds)
    setup.load.pause()


def disk_full_scenario(options, report: Report, mounts: Mounts):
    name = "disk-full"
    log(f"\n== {name}: SQLite on a {options.tmpfs_size} tmpfs, filled under load, then freed")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    point = os.path.join(work, "disk")
    try:
        mounts.tmpfs(point, options.tmpfs_size)
    except PermissionError as error:
        report.skip(name, f"cannot mount a tmpfs here ({error}); the full-disk checks did not run")
        shutil.rmtree(work, ignore_errors=True)
        return
    setup = None
    try:
        data = os.path.join(point, "data")
        setup = Setup(options, "full", data, os.path.join(work, "server.log"))
        setup.context.unavailable_expected = True
        baseline(setup, options.warmup)
        filled = fill(point)
        free = shutil.disk_usage(point).free
        writes = Writes(setup, "full")
        writes.run(options.fault_seconds * 3, until_errors=40)  # stops at the 40th refusal
        clear, bad = writes.clear()
        alive = setup.server.alive()
        log(f"  filled {filled / 1048576:.1f} MiB ({free} bytes left); while full: writes {dict(writes.answers)}, reads {dict(writes.read_answers)}, "
            f"slowest {writes.slowest:.2f} s")
        refused = sum(count for answer, count in writes.answers.items() if not answer.startswith("201"))
        report.check(f"{name}: clear errors while full", clear and refused > 0,
                     f"{refused} writes refused, all 503/507 JSON errors" if clear and refused else
                     (f"not clear: {bad}" if not clear else "no write was refused: the disk never filled"))
        report.check(f"{name}: no crash, reads work", alive and set(writes.read_answers) <= {"200"},
                     f"process {'alive' if alive else 'GONE'}; reads {dict(writes.read_answers)}")
        os.remove(os.path.join(point, "filler"))
        recovery = wait_for_write(writes, 20)
        log("  space freed: first write acknowledged after " + (f"{recovery:.2f} s" if recovery is not None else "never"))
        report.check(f"{name}: works again once space returns", recovery is not None and setup.server.alive(),
                     f"a write acknowledged {recovery:.2f} s after the space returned, no restart" if recovery is not None
                     else "no write acknowledged")
        baseline(setup, 1.0)
        setup.context.unavailable_expected = False
        check_common(report, name, setup, options.outbox_timeout, final=False)
        status = setup.server.stop()
        log(f"  stopped: SIGTERM exit {status}")
        start_on_full_disk(report, setup, point)
        check_stored(report, name, setup, data, "at the end")
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        if setup:
            setup.close()
        mounts.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def trigger_fs_error(device: str):
    """What ext4 does on a disk error with errors=remount-ro: the file system turns read-only at once,
    open files included (a `mount -o remount,ro` would be refused while the database is open)."""
    with open(f"/sys/fs/ext4/{os.path.basename(device)}/trigger_fs_error", "w") as handle:
        handle.write("faults: read-only disk\n")


def read_only_scenario(options, report: Report, mounts: Mounts):
    name = "read-only"
    log(f"\n== {name}: SQLite on ext4 turned read-only under load (errors=remount-ro), then repaired; then a start on a read-only mount")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    point = os.path.join(work, "disk")
    device = None
    try:
        device = mounts.ext4(os.path.join(work, "disk.img"), point, 64)
        if not os.path.exists(f"/sys/fs/ext4/{os.path.basename(device)}/trigger_fs_error"):
            raise PermissionError("no /sys/fs/ext4/*/trigger_fs_error")
    except PermissionError as error:
        mounts.cleanup()
        log(f"  no ext4 loop device here ({error}): only the start on a read-only tmpfs is checked")
        device = None
        try:
            mounts.tmpfs(point, options.tmpfs_size)
        except PermissionError as error:
            report.skip(name, f"cannot mount here ({error}); the read-only checks did not run")
            shutil.rmtree(work, ignore_errors=True)
            return
    setup = None
    data = os.path.join(point, "data")
    try:
        setup = Setup(options, "ro", data, os.path.join(work, "server.log"))
        setup.context.unavailable_expected = True
        baseline(setup, options.warmup)
        if device:
            live_read_only(options, report, mounts, setup, device, point)
        start_read_only(report, mounts, setup, point)
        baseline(setup, 1.0)
        setup.context.unavailable_expected = False
        check_common(report, name, setup, options.outbox_timeout, final=False)
        status = setup.server.stop()
        check_stored(report, name, setup, data, f"after SIGTERM (exit {status})")
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        if setup:
            setup.close()
        mounts.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def live_read_only(options, report: Report, mounts: Mounts, setup: Setup, device: str, point: str):
    """The disk turns read-only under the running server; it is stopped, checked, mounted and restarted."""
    name = "read-only"
    trigger_fs_error(device)
    writes = Writes(setup, "ro")
    writes.run(options.fault_seconds / 2, until_errors=20)
    clear, bad = writes.clear()
    alive = setup.server.alive()
    log(f"  read-only under load: writes {dict(writes.answers)}, reads {dict(writes.read_answers)}, slowest {writes.slowest:.2f} s")
    refused = sum(count for answer, count in writes.answers.items() if not answer.startswith("201"))
    report.check(f"{name}: clear errors while read-only", clear and refused > 0,
                 f"{refused} writes refused, all 503/507 JSON errors" if clear and refused else
                 (f"not clear: {bad}" if not clear else "no write was refused"))
    report.check(f"{name}: no crash, reads work", alive and set(writes.read_answers) <= {"200"},
                 f"process {'alive' if alive else 'GONE'}; reads {dict(writes.read_answers)}")
    status = setup.server.stop()
    mounts.unmount(point)
    repaired = subprocess.run(["e2fsck", "-f", "-y", device], capture_output=True, text=True)
    mounted = mounts.mount_again(device, point)
    log(f"  stopped (exit {status}); e2fsck exit {repaired.returncode}; mounted again: {'ok' if mounted.returncode == 0 else mounted.stderr.strip()}")
    try:
        restart = setup.server.start()
        again = wait_for_write(writes, 20)
        report.check(f"{name}: restarts after repair and writes", again is not None,
                     f"restarted in {restart:.2f} s, a write acknowledged after {again:.2f} s" if again is not None else "no write acknowledged")
    except ServerFailed as error:
        report.check(f"{name}: restarts after repair and writes", False, str(error))


def start_read_only(report: Report, mounts: Mounts, setup: Setup, point: str):
    """`custos serve` started on a read-only mount: a clear refusal to start, or clear errors."""
    name = "read-only"
    if setup.server.alive():
        setup.server.stop()
    remounted = mounts.remount(point, "ro")
    if remounted.returncode != 0:
        report.skip(f"{name}: start on a read-only mount", f"remount ro refused: {remounted.stderr.strip()}")
        setup.server.start()
        return
    try:
        ok, outcome = observe_start(setup, "rostart")
        if "cannot create" in outcome:
            # The database exists: a refusal that says it cannot be created misleads the operator.
            ok, outcome = False, outcome + " (the database exists: expected 'cannot open … for writing')"
        log(f"  started on a read-only mount: {outcome}")
        report.check(f"{name}: start on a read-only mount is clear", ok, outcome)
    finally:
        mounts.remount(point, "rw")
        setup.server.start()


def start_on_full_disk(report: Report, setup: Setup, point: str):
    """`custos serve` started on a full disk: a clear refusal to start, or clear errors; then it starts again once freed."""
    name = "disk-full"
    if setup.server.alive():
        setup.server.stop()
    fill(point)
    try:
        ok, outcome = observe_start(setup, "fullstart")
        log(f"  started on a full disk: {outcome}")
        report.check(f"{name}: start on a full disk is clear", ok, outcome)
    finally:
        os.remove(os.path.join(point, "filler"))
    setup.server.start()
    lost = setup.checker.lost_writes()
    again = wait_for_write(Writes(setup, "freed"), 20)
    report.check(f"{name}: starts and writes once freed, nothing lost", again is not None and not lost,
                 (f"a write acknowledged {again:.2f} s after the start" if again is not None else "no write acknowledged")
                 + f"; {len(lost)} of {sum(setup.ledger.acked.values())} acknowledged writes lost across the restart"
                 + "".join(f"\n    {line}" for line in lost[:5]))
    setup.server.stop()


def check_stored(report: Report, name: str, setup: Setup, data: str, when: str):
    """The stopped server's database: SQLite's integrity check, and the audit chain verified."""
    integrity = sqlite_integrity(data)
    intact, _, text = setup.server.audit_verify()
    log(f"  {when}: integrity {integrity.splitlines()[0]}; {text.splitlines()[0]}")
    report.check(f"{name}: integrity ok", integrity == "ok", f"PRAGMA integrity_check: {integrity[:200]}")
    report_audit(report, name, [(intact, text)])


def observe_start(setup: Setup, label: str) -> tuple:
    """Starts the server on a broken disk: (clear, what happened). Clear is a refusal with an exit
    status and a message, or a server whose writes answer 2xx or 503/507 and whose reads work."""
    setup.server.launch()
    try:
        setup.server.wait_ready(30)
    except ServerFailed:
        code = setup.server.process.returncode
        lines = [line for line in setup.server.log_tail(5).splitlines() if line.strip() and '"faults"' not in line]
        return code is not None and 0 < code < 128, f"refuses to start: exit {code}: {lines[-1][:240] if lines else '(nothing logged)'}"
    writes = Writes(setup, label)
    writes.run(2, until_errors=5)
    clear, _ = writes.clear()
    alive = setup.server.alive()
    status = setup.server.stop()
    return (clear and alive and set(writes.read_answers) <= {"200"},
            f"serves: writes {dict(writes.answers)}, reads {dict(writes.read_answers)}; SIGTERM exit {status}")
