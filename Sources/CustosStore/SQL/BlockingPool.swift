import CustosCore
import Foundation

/// A fixed-capacity pool of connections, created lazily, lent one thread at a time.
///
/// `acquire` waits up to a timeout for a free connection and then throws
/// `StoreError.unavailable`; after `close()` it throws at once, idle connections are destroyed
/// immediately and lent ones as they come back.
final class BlockingPool<Resource: AnyObject>: @unchecked Sendable {
    private let condition = NSCondition()
    private var idle: [Resource] = []
    private var created = 0
    private var closed = false
    private let capacity: Int
    private let name: String
    private let make: () throws -> Resource
    private let destroy: (Resource) -> Void

    init(name: String, capacity: Int, make: @escaping () throws -> Resource, destroy: @escaping (Resource) -> Void) {
        self.name = name
        self.capacity = max(1, capacity)
        self.make = make
        self.destroy = destroy
    }

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    func acquire(timeout: TimeInterval) throws -> Resource {
        let deadline = Date(timeIntervalSinceNow: max(0, timeout))
        condition.lock()
        while true {
            if closed {
                condition.unlock()
                throw StoreError.unavailable("\(name) is closed")
            }
            if let resource = idle.popLast() {
                condition.unlock()
                return resource
            }
            if created < capacity {
                created += 1
                condition.unlock()
                do {
                    return try make()
                } catch {
                    condition.lock()
                    created -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            if !condition.wait(until: deadline) {
                // Timed out; one last look happens on the next loop turn only if signalled.
                if idle.isEmpty && created >= capacity && !closed {
                    condition.unlock()
                    throw StoreError.unavailable("\(name): no free connection within \(timeout) s")
                }
            }
        }
    }

    /// Gives a connection back; `discard` destroys it instead (its slot can be refilled).
    func release(_ resource: Resource, discard: Bool = false) {
        condition.lock()
        if closed || discard {
            created -= 1
            condition.signal()
            condition.unlock()
            destroy(resource)
            return
        }
        idle.append(resource)
        condition.signal()
        condition.unlock()
    }

    func withResource<T>(timeout: TimeInterval, _ body: (Resource) throws -> T) throws -> T {
        let resource = try acquire(timeout: timeout)
        defer { release(resource) }
        return try body(resource)
    }

    func close() {
        condition.lock()
        closed = true
        let toDestroy = idle
        idle.removeAll()
        created -= toDestroy.count
        condition.broadcast()
        condition.unlock()
        toDestroy.forEach(destroy)
    }
}
