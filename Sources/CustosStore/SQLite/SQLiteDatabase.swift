import CSQLite
import CustosCore
import Foundation

/// SQLite in WAL mode: one writer connection (writes serialized by a lock, each in
/// `BEGIN IMMEDIATE … COMMIT`, so other processes on the same file are waited for up to the
/// busy timeout) and a small pool of read-only connections for reads, which WAL lets run
/// beside the writer.
final class SQLiteDatabase: SQLDatabase, @unchecked Sendable {
    let dialect = SQLDialect.sqlite
    let path: String
    let options: SQLiteOptions
    var location: String { path }

    private let writerLock = NSLock()
    private var writer: SQLiteConnection?  // guarded by writerLock
    private let readers: BlockingPool<SQLiteConnection>
    private var timeout: TimeInterval { Double(max(0, options.busyTimeoutMilliseconds)) / 1000 }

    /// Opens (creating if needed) the database file at `path`; missing directories are created
    /// with mode 0700 and a new file with mode 0600.
    init(path: String, options: SQLiteOptions = SQLiteOptions()) throws {
        self.path = path
        self.options = options
        try SQLiteDatabase.prepareFile(at: path)
        // The writer opens first: it creates the file and switches it to WAL, which the
        // read-only connections need.
        let writer = try SQLiteConnection(path: path, readOnly: false, options: options)
        self.writer = writer
        self.readers = BlockingPool(
            name: "SQLite reader pool",
            capacity: max(1, options.readerCount),
            make: { try SQLiteConnection(path: path, readOnly: true, options: options) },
            destroy: { $0.close() }
        )
    }

    deinit {
        close()
    }

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try readers.withResource(timeout: timeout) { connection in
            try body(connection)
        }
    }

    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction(body)
    }

    func transaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        guard writerLock.lock(before: Date(timeIntervalSinceNow: timeout)) else {
            throw StoreError.unavailable("database is busy: no writer within \(timeout) s")
        }
        defer { writerLock.unlock() }
        guard let connection = writer else {
            throw StoreError.unavailable("SQLite database is closed")
        }
        if !connection.isAutocommit {
            // A previous COMMIT and ROLLBACK both failed; start clean.
            _ = try? connection.execute("ROLLBACK")
        }
        // IMMEDIATE takes the write lock now (waiting up to the busy timeout for another
        // process), so the transaction never fails half-way on a lock upgrade.
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let result = try body(connection)
            try connection.execute("COMMIT")
            return result
        } catch {
            if !connection.isAutocommit {
                _ = try? connection.execute("ROLLBACK")
            }
            throw error
        }
    }

    func close() {
        readers.close()
        writerLock.lock()
        writer?.close()
        writer = nil
        writerLock.unlock()
    }

    /// Creates the parent directories (0700) and an empty file (0600) when missing, so the
    /// database and its -wal/-shm files (which inherit the file's mode) are private.
    private static func prepareFile(at path: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if !files.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try files.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            } catch {
                throw StoreError.unavailable("cannot create directory \(directory): \(error.localizedDescription)")
            }
        } else if !isDirectory.boolValue {
            throw StoreError.unavailable("\(directory) is not a directory")
        }
        let exists = files.fileExists(atPath: path)
        let fd = Foundation.open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // An existing database on a read-only disk, or one this user may not write, is not a creation failure.
            let verb = exists ? "cannot open \(path) for writing" : "cannot create \(path)"
            throw StoreError.unavailable("\(verb): \(String(cString: strerror(errno)))")
        }
        Foundation.close(fd)
    }
}
