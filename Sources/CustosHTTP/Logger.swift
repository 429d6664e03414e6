import Foundation
import Synchronization

/// A value in a structured log line.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
}

/// Where log lines go.
public protocol LogSink: Sendable {
    /// One complete line, newline included, UTF-8.
    func write(_ line: [UInt8])
    func flush()
}

/// Writes one JSON object per line: `{"ts":…,"level":…,"event":…, fields…}`.
///
/// Callers pass only what is safe to log: never bodies, tokens, passwords or biometric data.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
        /// `name` without a String: written into every log line.
        var staticName: StaticString {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name }) else { return nil }
            self = level
        }
    }

    public let minimumLevel: Level
    private let output: Output
    public var sink: any LogSink { output.sink }

    /// The sink behind one reference: a logger is copied wherever it is read from a property,
    /// and that is then one retain, not an existential's copy (it happens on every request).
    private final class Output: Sendable {
        let sink: any LogSink
        /// The file sink, when that is the sink: lines are then written straight into its buffer.
        let bufferedSink: FileDescriptorLogSink?

        init(_ sink: any LogSink) {
            self.sink = sink
            bufferedSink = sink as? FileDescriptorLogSink
        }
    }

    public init(sink: any LogSink, level: Level = .info) {
        self.minimumLevel = level
        output = Output(sink)
    }

    /// A logger that drops everything.
    public static let discarding = Logger(sink: DiscardingLogSink(), level: .error)

    public func debug(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.debug, event, fields) }
    public func info(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.info, event, fields) }
    public func warning(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.warning, event, fields) }
    public func error(_ event: String, _ fields: KeyValuePairs<String, LogValue> = [:]) { log(.error, event, fields) }

    public func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, LogValue>) {
        guard level >= minimumLevel else { return }
        emit(level, event) { line in
            for (key, value) in fields { append(key, value, to: &line) }
        }
    }

    /// Logs `fields` in the given order (for lists built at run time).
    public func log(_ level: Level, _ event: String, fields: [(String, LogValue)]) {
        guard level >= minimumLevel else { return }
        emit(level, event) { line in
            for (key, value) in fields { append(key, value, to: &line) }
        }
    }

    /// The access-log line, written without the generic field loop: it runs for every request.
    /// Into the file sink it is formatted on the stack, outside the sink's lock, and copied in
    /// whole (a line too long for that goes the ordinary way).
    func access(method: String, route: String, status: Int, durationMicroseconds: Int, requestID: String) {
        guard Level.info >= minimumLevel else { return }
        func fields<Line: JSONOutput>(_ line: inout Line) {
            line.raw(#","method":"#)
            line.string(method)
            line.raw(#","route":"#)
            line.string(route)
            line.raw(#","status":"#)
            line.integer(status)
            line.raw(#","duration_us":"#)
            line.integer(durationMicroseconds)
            line.raw(#","request_id":"#)
            line.string(requestID)
        }
        if let bufferedSink = output.bufferedSink {
            let written = withUnsafeTemporaryAllocation(byteCount: 512, alignment: 1) { buffer in
                var line = JSONFixedWriter(buffer)
                Self.write(&line, .info, "request", fields)
                if !line.overflowed { bufferedSink.append(line.written) }
                return !line.overflowed
            }
            if written { return }
        }
        emit(.info, "request") { fields(&$0) }
    }

    /// Writes `{"ts":…,"level":…,"event":…` + fields + `}`, into the file sink's buffer
    /// directly when it is one (no intermediate line), else as one line to the sink.
    private func emit(_ level: Level, _ event: String, _ fields: (inout JSONLineWriter) -> Void) {
        if let bufferedSink = output.bufferedSink {
            bufferedSink.append { Self.write(&$0, level, event, fields) }
        } else {
            var line = JSONLineWriter()
            Self.write(&line, level, event, fields)
            output.sink.write(line.bytes)
        }
    }

    /// One whole line: `{"ts":…,"level":…,"event":…` + fields + `}` and the newline.
    private static func write<Line: JSONOutput>(_ line: inout Line, _ level: Level, _ event: String, _ fields: (inout Line) -> Void) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        line.raw(#"{"ts":"#)
        line.timestamp(time)
        line.raw(#","level":""#)
        line.raw(level.staticName)
        line.raw(#"","event":"#)
        line.string(event)
        fields(&line)
        line.raw("}\n")
    }

    private func append(_ key: String, _ value: LogValue, to line: inout JSONLineWriter) {
        line.raw(",")
        line.string(key)
        line.raw(":")
        switch value {
        case .string(let s): line.string(s)
        case .int(let i): line.integer(i)
        case .double(let d): d.isFinite ? line.rawText(String(d)) : line.raw("null")
        case .bool(let b): line.raw(b ? "true" : "false" as StaticString)
        }
    }
}

public struct DiscardingLogSink: LogSink {
    public init() {}
    public func write(_ line: [UInt8]) {}
    public func flush() {}
}

/// Buffers lines and writes them to a file descriptor when `bufferBytes` (64 KiB) accumulate,
/// every `interval`, and on `flush()`. Keeps one `write(2)` per request off the hot path.
/// (`@unchecked`: the timer is only touched in `init` and `deinit`; the buffer is a Mutex.)
public final class FileDescriptorLogSink: LogSink, @unchecked Sendable {
    private let lines: PendingLines
    private let timer: DispatchSourceTimer

    public init(fileDescriptor: Int32 = STDERR_FILENO, interval: Duration = .milliseconds(200), bufferBytes: Int = 64 * 1024) {
        let lines = PendingLines(fd: fileDescriptor, capacity: bufferBytes)
        self.lines = lines
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "custos.log.flush"))
        self.timer = timer
        let (seconds, attoseconds) = interval.components
        let nanos = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanos), repeating: .nanoseconds(nanos))
        // The timer holds the buffer, not the sink: a weak reference to the sink would give it
        // a side table, and every retain and release of it (one per access line) the slow path.
        timer.setEventHandler { lines.flush() }
        timer.resume()
    }

    deinit {
        timer.cancel()
        lines.flush()
    }

    public func write(_ line: [UInt8]) {
        line.withUnsafeBytes { lines.append($0) }
    }

    /// Copies a line formatted elsewhere into the buffer.
    func append(_ line: UnsafeRawBufferPointer) { lines.append(line) }

    /// Formats a line straight into the buffer.
    func append(_ build: (inout JSONLineWriter) -> Void) { lines.append(build) }

    public func flush() { lines.flush() }
}

/// The file sink's buffer and descriptor. Chunks are taken from the buffer and written under
/// one lock, so they reach the descriptor whole and in order: to a pipe (a service manager's
/// or a container's stderr), two writes larger than PIPE_BUF at once interleave their bytes.
private final class PendingLines: Sendable {
    private let fd: Mutex<Int32>
    private let buffer = Mutex<[UInt8]>([])
    private let capacity: Int

    init(fd: Int32, capacity: Int) {
        self.fd = Mutex(fd)
        self.capacity = capacity
    }

    func append(_ line: UnsafeRawBufferPointer) {
        append { $0.append(line) }
    }

    func append(_ build: (inout JSONLineWriter) -> Void) {
        let full = buffer.withLock { pending in
            var writer = JSONLineWriter(adopting: &pending)
            build(&writer)
            pending = writer.release()
            return pending.count >= capacity
        }
        if full { flush() }
    }

    func flush() {
        fd.withLock { fd in
            let pending = buffer.withLock { pending -> [UInt8] in
                guard !pending.isEmpty else { return [] }
                defer { pending = []; pending.reserveCapacity(capacity + 4096) }
                return pending
            }
            if !pending.isEmpty { Self.writeAll(pending, to: fd) }
        }
    }

    private static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, base + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
}

/// Keeps lines in memory; for tests.
public final class MemoryLogSink: LogSink, Sendable {
    private let storage = Mutex<[String]>([])
    public init() {}
    public func write(_ line: [UInt8]) {
        let text = String(decoding: line.last == UInt8(ascii: "\n") ? line.dropLast() : line[...], as: UTF8.self)
        storage.withLock { $0.append(text) }
    }
    public func flush() {}
    public var lines: [String] { storage.withLock { $0 } }
}
