import Synchronization

/// The memory that upload bodies being received may hold: a budget for all callers together and
/// one per caller (client address, or its /64), reserved before a large body is buffered (its
/// declared length, or the largest upload when it is chunked) and given back when the request
/// ends. So many slow or concurrent uploads, from one caller or many, cannot take the process's
/// memory: past a budget the upload is refused at once (503 for all, 429 for one caller).
final class UploadMemory: Sendable {
    enum Refusal: Equatable {
        /// Every caller's uploads together hold the whole budget.
        case server
        /// This caller's uploads hold its share.
        case caller
    }

    private let total: Int
    private let perCaller: Int
    private let state = Mutex<(held: Int, byCaller: [String: Int])>((0, [:]))

    /// `perCaller`: 0 for no per-caller budget.
    init(total: Int, perCaller: Int) {
        self.total = total
        self.perCaller = perCaller
    }

    /// Reserves `bytes` for `caller`; nil when reserved, otherwise whose budget is spent.
    func reserve(_ bytes: Int, for caller: String) -> Refusal? {
        state.withLock { state in
            let callers = state.byCaller[caller, default: 0]
            if perCaller > 0 && callers + bytes > perCaller { return .caller }
            if state.held + bytes > total { return .server }
            state.held += bytes
            state.byCaller[caller] = callers + bytes
            return nil
        }
    }

    func release(_ bytes: Int, for caller: String) {
        guard bytes > 0 else { return }
        state.withLock { state in
            state.held -= bytes
            let left = state.byCaller[caller, default: 0] - bytes
            state.byCaller[caller] = left > 0 ? left : nil
        }
    }

    /// Bytes reserved now, all callers together.
    var held: Int { state.withLock { $0.held } }
}
