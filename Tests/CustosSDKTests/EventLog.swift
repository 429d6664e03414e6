@testable import CustosSDK
import Foundation
import Synchronization

/// Records one event's payloads as the SDK delivers them, passing each on to the handler
/// below it. Tests wait for a payload with `first(where:)` (a continuation resumed by the
/// handler, never a sleep; cancelled by the suite's time limit, so a missing event fails
/// the test instead of hanging the run); `settled` waits until everything already emitted
/// has been delivered, so `all` is then complete.
final class EventLog<Payload: Sendable>: Sendable {
    private let storage: Storage
    private let token: HandlerToken

    /// `order`, when given, also records the event's name as it is delivered, beside other logs'.
    init(_ client: CustosClient, _ event: CustosEvent<Payload>, order: DeliveryOrder? = nil) {
        let storage = Storage()
        self.storage = storage
        let name = event.name
        // Chained, so a log hides nothing: the handler below it (another log, the app's)
        // still gets every payload.
        token = client.events.chain(event) { payload, previous in
            order?.append(name)
            storage.append(payload)
            previous(payload)
        }
    }

    /// The first payload that matches, delivered already or still to come.
    func first(where matches: @escaping @Sendable (Payload) -> Bool = { _ in true }) async throws -> Payload {
        try await storage.first(where: matches)
    }

    var all: [Payload] { storage.all }

    /// Waits until the client's event queue has delivered everything emitted so far (it is
    /// serial, so a block queued now runs after them).
    static func settled(_ client: CustosClient) async {
        await withCheckedContinuation { continuation in client.events.queue.async { continuation.resume() } }
    }

    private final class Storage: Sendable {
        private struct Waiter {
            let id: UInt64
            let matches: @Sendable (Payload) -> Bool
            let continuation: CheckedContinuation<Payload, any Error>
        }
        private struct State {
            var values: [Payload] = []
            var waiters: [Waiter] = []
            var nextID: UInt64 = 1
        }
        private let state = Mutex(State())

        var all: [Payload] { state.withLock { $0.values } }

        func append(_ payload: Payload) {
            let ready = state.withLock { state -> [Waiter] in
                state.values.append(payload)
                let ready = state.waiters.filter { $0.matches(payload) }
                state.waiters.removeAll { $0.matches(payload) }
                return ready
            }
            ready.forEach { $0.continuation.resume(returning: payload) }
        }

        func first(where matches: @escaping @Sendable (Payload) -> Bool) async throws -> Payload {
            let id = state.withLock { state in
                defer { state.nextID += 1 }
                return state.nextID
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Under the lock: a cancellation either comes first (the flag is set before
                    // `onCancel` runs) or finds the waiter stored.
                    let outcome = state.withLock { state -> Result<Payload, any Error>? in
                        if let value = state.values.first(where: matches) { return .success(value) }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiters.append(Waiter(id: id, matches: matches, continuation: continuation))
                        return nil
                    }
                    if let outcome { continuation.resume(with: outcome) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> Waiter? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index)
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        }
    }
}

/// The names of the events several logs saw, in the order the app got them.
final class DeliveryOrder: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
}
