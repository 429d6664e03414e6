import Foundation

/// Starts `count` threads that wait at a common gate, releases them together, and returns
/// each thread's outcome, in thread order: for races on a store or a service.
public func runConcurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) -> [Result<T, any Error>] {
    let outcomes = ConcurrentOutcomes<T>(count)
    let gate = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            gate.wait()
            outcomes.set(index, Result { try body(index) })
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { gate.signal() }
    group.wait()
    return outcomes.all
}

private final class ConcurrentOutcomes<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<T, any Error>?]
    init(_ count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ result: Result<T, any Error>) { lock.withLock { results[index] = result } }
    var all: [Result<T, any Error>] { lock.withLock { results.map { $0! } } }
}
