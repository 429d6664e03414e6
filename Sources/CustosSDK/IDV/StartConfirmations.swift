import CustosAPI
import Foundation
import Synchronization

/// Workflows waiting for the app's start confirmation.
///
/// Each wait ends exactly once, with whichever comes first: the app's answer, the timeout,
/// or the cancellation of the waiting task; a newer wait for the same workflow ends the
/// older one as declined. Endings that arrive before the wait has stored its continuation
/// (a task cancelled before it started waiting) are kept and delivered when it does.
final class StartConfirmations: Sendable {
    enum Answer: Sendable, Equatable {
        case confirmed, declined, unanswered, cancelled
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Answer, Never>
    }

    private struct State {
        var nextID: UInt64 = 1
        /// The stored waits, by workflow.
        var waiting: [Workflow: Waiter] = [:]
        /// Waits begun whose continuation is not stored yet.
        var starting: Set<UInt64> = []
        /// Endings for waits in `starting`.
        var early: [UInt64: Answer] = [:]
    }

    private let state = Mutex(State())

    /// Stores the wait, then calls `ask` (which emits the event the app answers), and
    /// returns how the wait ended.
    func wait(workflow: Workflow, timeout: TimeInterval, ask: @Sendable () -> Void) async -> Answer {
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.starting.insert(id)
            return id
        }
        let timer = Task { [weak self] in
            do {
                try await Task.sleep(for: .seconds(max(0, timeout)))
            } catch {
                return
            }
            self?.end(id: id, workflow: workflow, .unanswered)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (early, superseded) = state.withLock { state -> (Answer?, Waiter?) in
                    state.starting.remove(id)
                    if let answer = state.early.removeValue(forKey: id) { return (answer, nil) }
                    return (nil, state.waiting.updateValue(Waiter(id: id, continuation: continuation), forKey: workflow))
                }
                superseded?.continuation.resume(returning: .declined)
                if let early {
                    continuation.resume(returning: early)
                } else {
                    ask()
                }
            }
        } onCancel: {
            end(id: id, workflow: workflow, .cancelled)
        }
    }

    /// The app's answer for the workflow's current wait (none: ignored).
    func answer(_ confirmed: Bool, workflow: Workflow) {
        state.withLock { $0.waiting.removeValue(forKey: workflow) }?.continuation.resume(returning: confirmed ? .confirmed : .declined)
    }

    /// Ends wait `id` with `answer` unless it already ended.
    private func end(id: UInt64, workflow: Workflow, _ answer: Answer) {
        let waiter = state.withLock { state -> Waiter? in
            if state.starting.contains(id) {
                if state.early[id] == nil { state.early[id] = answer }
                return nil
            }
            guard state.waiting[workflow]?.id == id else { return nil }
            return state.waiting.removeValue(forKey: workflow)
        }
        waiter?.continuation.resume(returning: answer)
    }
}
