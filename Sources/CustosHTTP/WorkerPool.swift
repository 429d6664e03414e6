import Foundation

/// The threads handlers run on, off libmicrohttpd's event-loop threads: a slow handler (an
/// Argon2id verification, a face analysis) holds one of these, never the loop that serves
/// every other connection. Bounded: at most `workers` jobs run and `queueLimit` wait; a
/// request beyond that is refused at once (503 `server_busy`) instead of piling up.
final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var next = 0
    /// Places taken: running, queued, or reserved and about to be queued.
    private var taken = 0
    private var stopped = false
    private let capacity: Int

    init(workers: Int, queueLimit: Int, name: String = "custos-http-worker") {
        capacity = max(1, workers) + max(0, queueLimit)
        for index in 0..<max(1, workers) {
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(index)"
            // As deep as the event-loop threads handlers used to run on (dlib and Argon2 recurse).
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Takes a place for a job, or false when every worker is busy and the queue is full.
    /// A place taken must be used by `run`.
    func reserve() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, taken < capacity else { return false }
        taken += 1
        return true
    }

    /// Gives back a place `reserve` took that will not be used.
    func cancelReservation() {
        condition.lock()
        taken -= 1
        condition.unlock()
    }

    /// Runs `job` on a worker, in a place `reserve` took; false (and the place given back) when
    /// the pool stopped since: its workers may have ended, and the job would never run.
    @discardableResult
    func run(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else {
            taken -= 1
            return false
        }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Jobs running or waiting.
    var load: Int {
        condition.lock()
        defer { condition.unlock() }
        return taken
    }

    /// Lets the workers finish what is queued and end.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        Self.blockAsynchronousSignals()
        while true {
            condition.lock()
            while next == jobs.count && !stopped { condition.wait() }
            if next == jobs.count {
                condition.unlock()
                return
            }
            let job = jobs[next]
            // The queue must not keep a job (and the request body it captured) once taken.
            jobs[next] = {}
            next += 1
            if next == jobs.count || (next > 64 && next * 2 > jobs.count) {
                jobs.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job()
            condition.lock()
            taken -= 1
            condition.unlock()
        }
    }

    /// Signals sent to the process (SIGTERM, SIGINT…) must reach the thread that waits for
    /// them: a worker that left them unblocked would take one and drop it (they are ignored,
    /// and read from a signal source). Faults stay deliverable.
    private static func blockAsynchronousSignals() {
        var set = sigset_t()
        sigfillset(&set)
        for fault in [SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT] { sigdelset(&set, fault) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
