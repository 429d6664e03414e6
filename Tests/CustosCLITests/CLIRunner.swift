import CustosTestSupport
import Foundation

/// Runs the built `custos` binary, as a user or a script would.
enum CLI {
    /// The binary built beside the test bundle (`swift test` builds both), or `CUSTOS_BINARY`.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["CUSTOS_BINARY"] { return URL(fileURLWithPath: path) }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("custos")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/release/custos")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs to completion. The environment is the test's, minus any `CUSTOS_*`, plus `environment`.
    static func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Result {
        let output = try ChildProcess.run(executable: binary.path, arguments: arguments,
                                          environment: cleanEnvironment().merging(environment) { _, new in new },
                                          stdin: stdin.map { Data($0.utf8) })
        return Result(status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self),
                      stderr: String(decoding: output.stderr, as: UTF8.self))
    }

    static func cleanEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CUSTOS_") }
    }

    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("custos-cli-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// A `custos serve` process in the background, with its log lines as they arrive.
final class ServeProcess: Sendable {
    private let child: ChildProcess
    private let lines: Lines

    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let lines = Lines()
        self.lines = lines
        child = try ChildProcess(executable: CLI.binary.path, arguments: ["serve"] + arguments,
                                 environment: CLI.cleanEnvironment().merging(environment) { _, new in new },
                                 onStderrLine: { lines.append($0) })
    }

    var logLines: [String] { lines.all }

    /// Log lines parsed as JSON objects.
    var events: [[String: Any]] {
        logLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Waits for a log line with `"event": name`.
    func waitForEvent(_ name: String, timeout: TimeInterval = 30) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let event = events.first(where: { $0["event"] as? String == name }) { return event }
            if !child.isRunning { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return events.first { $0["event"] as? String == name }
    }

    /// Sends `signal` and returns the exit status.
    func terminate(signal: Int32 = SIGTERM) -> Int32 {
        child.signal(signal)
        return child.waitForOutput().status
    }

    /// A test that failed before stopping its server does not leave it running.
    deinit {
        if child.isRunning {
            child.signal(SIGKILL)
            _ = child.waitForOutput()
        }
    }
}
