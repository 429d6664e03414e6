import Foundation

/// The demo's own server: this binary's `serve --dev` as a child process on a free port, over a
/// SQLite directory in the demo's workspace, with an API key created in it first. Its log
/// goes to `serve.log` there, which is also where the port is read from.
struct DemoServer {
    let url: URL
    let apiKey: String
    private let process: Process

    static func start(in workspace: URL) async throws -> DemoServer {
        let dataDir = workspace.appendingPathComponent("data").path
        let key = try run(["admin", "apikey", "create", "--scope", "rp", "--label", "demo", "--data-dir", dataDir])
        guard let apiKey = key.split(separator: "\n").last.map(String.init), apiKey.hasPrefix("ck_") else {
            throw CommandFailure("creating the demo's API key failed: \(key)")
        }
        let log = workspace.appendingPathComponent("serve.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else { throw CommandFailure("cannot write \(log.path)") }
        let process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--dev", "--data-dir", dataDir, "--host", "127.0.0.1", "--port", "0",
                             "--liveness-actions", "blink"]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<600 where process.isRunning {
            if let port = listeningPort(in: log) {
                return DemoServer(url: URL(string: "http://127.0.0.1:\(port)")!, apiKey: apiKey, process: process)
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        process.terminate()
        let tail = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(3).joined(separator: "\n") ?? ""
        throw CommandFailure("the demo server did not start: \(tail)")
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// This binary, to run as the child.
    private static var executable: URL {
        URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    }

    /// Runs this binary to completion; its standard output (a few lines).
    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func listeningPort(in log: URL) -> Int? {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "listening", let port = object["port"] as? Int else { continue }
            return port
        }
        return nil
    }
}
