/// Settings of the embedded SQLite database.
public struct SQLiteOptions: Sendable, Equatable {
    /// `PRAGMA synchronous`: `full` (the default) syncs the WAL on every commit, so nothing
    /// committed is lost even on power failure; `normal` may lose the last commits on power
    /// failure (never on a process crash) and is faster.
    public enum Synchronous: String, Sendable, Equatable {
        case full = "FULL"
        case normal = "NORMAL"
    }

    /// How long a writer waits for another process's lock (and a caller for a free
    /// connection) before the call fails with `StoreError.unavailable`.
    public var busyTimeoutMilliseconds: Int
    public var synchronous: Synchronous
    /// Read-only connections serving reads beside the single writer connection.
    public var readerCount: Int

    public init(busyTimeoutMilliseconds: Int = 5000, synchronous: Synchronous = .full, readerCount: Int = 4) {
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.synchronous = synchronous
        self.readerCount = readerCount
    }
}
