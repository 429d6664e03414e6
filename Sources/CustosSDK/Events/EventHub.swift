import Foundation
import Synchronization

/// A named event carrying `Payload`; names keep the REL-ID tutorials' spelling
/// (`onUserLoggedIn`, and for later flows `onGetIDVSelfieProcessStartConfirmation`, …).
public struct CustosEvent<Payload: Sendable>: Sendable, Hashable {
    public let name: String
    public init(_ name: String) { self.name = name }
}

/// Delivers SDK events to closure handlers on a chosen queue (main by default on Apple
/// platforms).
///
/// Handlers stack per event: installing one hides the current one, and releasing the
/// returned token restores it, wherever the token sits in the stack. `chain` gives the new
/// handler a way to call the one below it (the pattern of a screen that handles an event
/// and then lets the app-wide handler run too), made safe: the "previous" handler is looked
/// up at call time, so it is never a dangling or already-removed closure.
public final class EventHub: Sendable {
    private struct Entry {
        let id: UInt64
        let handler: @Sendable (any Sendable) -> Void
    }

    public let queue: DispatchQueue
    private let stacks = Mutex<[String: [Entry]]>([:])
    private let nextID = Atomic<UInt64>(1)

    public init(queue: DispatchQueue = EventHub.defaultQueue) {
        self.queue = queue
    }

    public static var defaultQueue: DispatchQueue {
        #if canImport(Darwin)
        .main
        #else
        DispatchQueue(label: "custos.sdk.events")
        #endif
    }

    /// Installs `handler` on top of the event's stack. Keep the token: releasing it (or
    /// calling `remove()`) restores the handler that was there before, so a dropped token
    /// removes the handler at once.
    public func on<Payload>(_ event: CustosEvent<Payload>, _ handler: @escaping @Sendable (Payload) -> Void) -> HandlerToken {
        install(event.name) { payload in
            if let payload = payload as? Payload { handler(payload) }
        }
    }

    /// Installs a handler that can call the handler below it: `previous(payload)` runs
    /// whatever handler was installed before this one (nothing if there is none). Keep the
    /// token, as with `on`.
    public func chain<Payload>(_ event: CustosEvent<Payload>,
                               _ handler: @escaping @Sendable (_ payload: Payload, _ previous: @Sendable (Payload) -> Void) -> Void) -> HandlerToken {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let name = event.name
        return install(name, id: id) { [weak self] payload in
            guard let self, let payload = payload as? Payload else { return }
            handler(payload) { value in self.callBelow(name, id: id, value) }
        }
    }

    /// Whether any handler is installed for the event.
    public func hasHandler<Payload>(for event: CustosEvent<Payload>) -> Bool {
        stacks.withLock { !($0[event.name]?.isEmpty ?? true) }
    }

    /// Delivers `payload` to the event's top handler, on `queue`.
    func emit<Payload>(_ event: CustosEvent<Payload>, _ payload: Payload) {
        guard let top = stacks.withLock({ $0[event.name]?.last }) else { return }
        queue.async { top.handler(payload) }
    }

    private func install(_ name: String, id: UInt64? = nil, _ handler: @escaping @Sendable (any Sendable) -> Void) -> HandlerToken {
        let id = id ?? nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        stacks.withLock { $0[name, default: []].append(Entry(id: id, handler: handler)) }
        return HandlerToken { [weak self] in
            self?.stacks.withLock { $0[name]?.removeAll { $0.id == id } }
        }
    }

    /// Runs the handler directly below `id` (synchronously: already on the queue). A chained
    /// handler removed after the payload was emitted to it and before it was delivered has no
    /// place in the stack any more: the payload then goes to the stack's top, the handler an
    /// emit reaches now, so the handlers that stay never miss it.
    private func callBelow(_ name: String, id: UInt64, _ payload: any Sendable) {
        let below: Entry? = stacks.withLock { stacks in
            guard let stack = stacks[name] else { return nil }
            guard let index = stack.firstIndex(where: { $0.id == id }) else { return stack.last }
            return index > 0 ? stack[index - 1] : nil
        }
        below?.handler(payload)
    }
}

/// Keeps a handler installed; releasing it (or `remove()`) uninstalls the handler and so
/// restores the one before.
public final class HandlerToken: Sendable {
    private let removal: Mutex<(@Sendable () -> Void)?>

    init(_ removal: @escaping @Sendable () -> Void) {
        self.removal = Mutex(removal)
    }

    public func remove() {
        removal.withLock { action in
            action?()
            action = nil
        }
    }

    deinit { remove() }
}
