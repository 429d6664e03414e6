import Foundation
import Synchronization

/// Prompts waiting for the app's answer (the step-up password), one per key. Each wait ends
/// once: with the answer, with nil at the timeout or when the waiting task is cancelled, or
/// with nil when a newer wait for the same key replaces it.
final class PromptWaits<Value: Sendable>: Sendable {
    private let waiting = Mutex<[String: (id: UInt64, continuation: CheckedContinuation<Value?, Never>)]>([:])
    private let nextID = Atomic<UInt64>(1)

    /// Stores the wait, calls `ask` (which emits the event the app answers), returns the answer.
    func wait(key: String, timeout: TimeInterval, ask: @Sendable () -> Void) async -> Value? {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(max(0, timeout)))
            self?.end(key: key, id: id, nil)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let replaced = waiting.withLock { $0.updateValue((id, continuation), forKey: key) }
                replaced?.continuation.resume(returning: nil)
                if Task.isCancelled { end(key: key, id: id, nil) } else { ask() }
            }
        } onCancel: {
            end(key: key, id: id, nil)
        }
    }

    /// The app's answer to the current wait for `key` (none: ignored).
    func answer(_ value: Value?, key: String) {
        waiting.withLock { $0.removeValue(forKey: key) }?.continuation.resume(returning: value)
    }

    private func end(key: String, id: UInt64, _ value: Value?) {
        let ended = waiting.withLock { waits -> CheckedContinuation<Value?, Never>? in
            guard waits[key]?.id == id else { return nil }
            return waits.removeValue(forKey: key)?.continuation
        }
        ended?.resume(returning: value)
    }
}
