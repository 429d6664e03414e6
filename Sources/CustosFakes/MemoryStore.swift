import CustosCore
import Foundation

/// Every store port of Core in this process's memory, behaving as `SQLStore` does (the store
/// conformance suite runs against it too), so that services can be tested in milliseconds
/// without a database.
///
/// Each `MemoryStore` is one handle, like one server node's connection: `node()` opens another
/// on the same data. An `atomically` block takes the database's single writer, works on a copy
/// of the whole state and installs the copy only when the block returns, so what it wrote
/// commits all together or not at all, and other handles read the last committed state
/// meanwhile. Dates are kept to the millisecond, rounded as the SQL stores round them.
public final class MemoryStore: Sendable {
    let database: MemoryDatabase
    private let handle = ClosedFlag()

    public init() {
        database = MemoryDatabase()
    }

    private init(database: MemoryDatabase) {
        self.database = database
    }

    /// Another handle on the same data (another node).
    public func node() -> MemoryStore { MemoryStore(database: database) }

    /// The block this thread runs on this handle, if any.
    private var block: MemoryBlock? {
        guard let block = MemoryBlock.current, block.owner == ObjectIdentifier(self) else { return nil }
        return block
    }

    private func checkOpen() throws {
        if handle.isClosed { throw StoreError.unavailable("the memory store is closed") }
    }

    /// Reads the block's state inside a block, the committed state outside.
    func read<T>(_ body: (MemoryState) throws -> T) throws -> T {
        try checkOpen()
        if let block { return try body(block.state) }
        return try body(database.committed)
    }

    /// One statement: all of `body`'s changes or none (it works on a copy). Inside a block it
    /// changes the block's state; outside it takes the writer for itself.
    func write<T>(_ body: (inout MemoryState) throws -> T) throws -> T {
        try checkOpen()
        if let block {
            var copy = block.state
            let result = try body(&copy)
            block.state = copy
            return result
        }
        return try database.exclusively {
            var copy = database.committed
            let result = try body(&copy)
            database.committed = copy
            return result
        }
    }
}

extension MemoryStore: AtomicStore, DatabaseHealth {
    /// A block nested in another on this handle and thread joins it.
    public func atomically<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        if block != nil { return try body() }
        return try database.exclusively {
            let block = MemoryBlock(owner: ObjectIdentifier(self), state: database.committed)
            let result = try MemoryBlock.$current.withValue(block) { try body() }
            database.committed = block.state
            return result
        }
    }

    public func ping() throws {
        try checkOpen()
    }

    /// Closes this handle only; other handles on the same data go on.
    public func close() {
        handle.close()
    }
}

/// The data every handle shares: the committed state, and the single writer that blocks and
/// writes take.
final class MemoryDatabase: @unchecked Sendable {
    private let lock = NSLock()
    private var state = MemoryState()
    private let writer = NSLock()
    /// How long a writer waits for another before the store reports itself unavailable, as
    /// SQLite's busy timeout does (a thread that waits on its own other handle would hang).
    static let busyTimeout: TimeInterval = 5

    var committed: MemoryState {
        get { lock.withLock { state } }
        set { lock.withLock { state = newValue } }
    }

    func exclusively<T>(_ body: () throws -> T) throws -> T {
        guard writer.lock(before: Date().addingTimeInterval(Self.busyTimeout)) else {
            throw StoreError.unavailable("the memory store's writer is busy")
        }
        defer { writer.unlock() }
        return try body()
    }
}

/// An `atomically` block in progress: its handle and its working copy of the state.
final class MemoryBlock: @unchecked Sendable {
    @TaskLocal static var current: MemoryBlock?

    let owner: ObjectIdentifier
    /// Only the thread running the block touches it.
    var state: MemoryState

    init(owner: ObjectIdentifier, state: MemoryState) {
        self.owner = owner
        self.state = state
    }
}

/// Whether a handle was closed.
private final class ClosedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var closed = false
    var isClosed: Bool { lock.withLock { closed } }
    func close() { lock.withLock { closed = true } }
}
