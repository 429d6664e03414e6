import CustosAPI
import Synchronization

/// The log-offs a call's answers caused (153 the user is locked, 110 the password expired),
/// held until the call's own event is out: the seeds' apps show the result's alert first and
/// only then react to `onUserLoggedOff`. One per outermost call, found through a task local so
/// the transport's observer and the calls nested in a workflow all reach it.
final class PendingLogoffs: Sendable {
    @TaskLocal static var current: PendingLogoffs?

    private let held = Mutex<[LogoffInfo]>([])

    func hold(_ info: LogoffInfo) { held.withLock { $0.append(info) } }

    func take() -> [LogoffInfo] {
        held.withLock { held in
            defer { held.removeAll() }
            return held
        }
    }
}

extension CustosClient {
    /// Runs a call that emits its own event within `body`; the log-offs its answers caused are
    /// emitted after it, whether it returns or throws. A call nested in another leaves them to
    /// the outer one.
    func loggingOffAfter<Answer>(_ body: () async throws -> Answer) async throws -> Answer {
        if PendingLogoffs.current != nil { return try await body() }
        let pending = PendingLogoffs()
        defer { pending.take().forEach { events.emit(.onUserLoggedOff, $0) } }
        return try await PendingLogoffs.$current.withValue(pending) { try await body() }
    }

    /// Emits `onUserLoggedOff` now, or after the running call's own event when there is one.
    func logOff(_ info: LogoffInfo) {
        if let pending = PendingLogoffs.current {
            pending.hold(info)
        } else {
            events.emit(.onUserLoggedOff, info)
        }
    }

    /// Forgets the session's token when the answer concerned the session's user (or named none).
    /// Returns the state as it was.
    func forgetSession(ifUser userID: String?) -> SessionState {
        state.withLock { state in
            let previous = state
            if userID == nil || state.userID == nil || userID == state.userID {
                state.sessionToken = nil
            }
            return previous
        }
    }
}
