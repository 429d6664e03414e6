"""The run's output: `log`, every line printed, and the `Report` of PASS/FAIL/SKIP lines and their count."""


def log(text: str):
    print(text, flush=True)


# MARK: Report


class Report:
    """PASS/FAIL lines, the figures printed with them, and the final count."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []

    def check(self, name: str, ok: bool, detail: str):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name)
        log(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")

    def skip(self, name: str, why: str):
        self.skipped += 1
        log(f"SKIP {name}: {why}")

    def summary(self) -> str:
        return f"{self.passed} passed, {self.failed} failed"
