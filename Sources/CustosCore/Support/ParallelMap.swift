import Foundation

/// Maps items on several threads (each thread takes the next item not yet taken), keeping
/// the order of the results. For work that borrows a face engine per call.
public enum ParallelMap {
    public static func map<Item: Sendable, Result: Sendable>(_ items: [Item], threads: Int,
                                                      _ body: @Sendable (Item) -> Result) -> [Result] {
        let results = Slots<Result>(count: items.count)
        let next = NextIndex()
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, items.count))) { _ in
            while let index = next.take(below: items.count) { results.set(index, body(items[index])) }
        }
        return results.filled
    }
}

private final class Slots<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Value) { lock.withLock { values[index] = value } }
    /// Every slot is set once `concurrentPerform` returns.
    var filled: [Value] { lock.withLock { values.compactMap { $0 } } }
}

private final class NextIndex: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func take(below limit: Int) -> Int? {
        lock.withLock {
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}
