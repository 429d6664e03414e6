import Foundation

/// Held while file descriptors meant for one child exist without close-on-exec (pipe2 is not
/// imported), so no other child spawned by these tests inherits them.
let spawnLock = NSLock()

/// A child process whose standard output and error are read by threads of their own with
/// blocking reads, spawned with posix_spawn. Foundation's `Process` with a pipe's
/// `readabilityHandler` is avoided on purpose: tearing such a pipe down races the dispatch read
/// source on Linux and can crash the whole test process in `_dispatch_event_loop_drain`.
public final class ChildProcess: @unchecked Sendable {
    public struct Output: Sendable {
        /// The exit code, or 128 + the signal number when a signal ended the process (as shells say).
        public var status: Int32
        public var stdout: Data
        public var stderr: Data
    }

    public let pid: pid_t
    private let condition = NSCondition()
    private var exitStatus: Int32?
    private var stdout = Data(), stderr = Data(), partialLine = Data()
    private var openStreams = 2
    private let onStderrLine: (@Sendable (String) -> Void)?

    /// Starts `executable`. `environment` is the whole environment of the child. `stdin` is
    /// written and closed (an empty standard input when nil). `onStderrLine` sees each line of
    /// standard error as it arrives, on a reader thread.
    public init(executable: String, arguments: [String], environment: [String: String],
                stdin: Data? = nil, onStderrLine: (@Sendable (String) -> Void)? = nil) throws {
        _ = Self.ignoreBrokenPipes
        let spawned = try Self.spawn(executable, arguments, environment)
        pid = spawned.pid
        self.onStderrLine = onStderrLine
        startReader(spawned.stdout, isError: false)
        startReader(spawned.stderr, isError: true)
        if let stdin { Self.writeAll(stdin, to: spawned.stdin) }
        close(spawned.stdin)
    }

    /// Returns the child and the parent's ends of its three pipes. Creating the pipes and spawning
    /// happen under one lock: a child spawned by another thread in between would inherit our pipe
    /// ends and hold our child's output open after it exits.
    private static func spawn(_ executable: String, _ arguments: [String], _ environment: [String: String])
        throws -> (pid: pid_t, stdin: Int32, stdout: Int32, stderr: Int32) {
        try spawnLock.withLock {
            var pipes: [(read: Int32, write: Int32)] = []
            for _ in 0..<3 {
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else {
                    pipes.forEach { close($0.read); close($0.write) }
                    throw ToolFailure(description: "pipe failed: \(errno)")
                }
                fds.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                pipes.append((fds[0], fds[1]))
            }
            let (childEnds, parentEnds) = ([pipes[0].read, pipes[1].write, pipes[2].write],
                                           [pipes[0].write, pipes[1].read, pipes[2].read])
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // dup2 gives the child inheritable copies of its ends; everything else is close-on-exec.
            for (standard, end) in childEnds.enumerated() {
                posix_spawn_file_actions_adddup2(&actions, end, Int32(standard))
            }
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid: pid_t = 0
            let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
            childEnds.forEach { close($0) }
            guard rc == 0 else {
                parentEnds.forEach { close($0) }
                throw ToolFailure(description: "cannot run \(executable): \(String(cString: strerror(rc)))")
            }
            return (pid, parentEnds[0], parentEnds[1], parentEnds[2])
        }
    }

    /// Runs to completion and returns what it printed.
    public static func run(executable: String, arguments: [String], environment: [String: String],
                           stdin: Data? = nil) throws -> Output {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment, stdin: stdin)
        return child.waitForOutput()
    }

    /// Whether the process has not ended yet.
    public var isRunning: Bool {
        condition.withLock { reap(options: WNOHANG) == nil }
    }

    public func signal(_ number: Int32) {
        condition.withLock { if exitStatus == nil { kill(pid, number) } }
    }

    /// Waits for the process to end and its output to be read to the end.
    public func waitForOutput() -> Output {
        condition.lock()
        defer { condition.unlock() }
        var status = reap(options: WNOHANG)
        while status == nil {
            condition.unlock()
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, 0), failure = errno
            condition.lock()
            if result == pid { exitStatus = Self.decode(raw) }
            // ECHILD: another caller reaped it (and set exitStatus) or it is not ours to wait for.
            status = exitStatus ?? (result == -1 && failure != EINTR ? -1 : nil)
        }
        while openStreams > 0 { condition.wait() }
        return Output(status: status!, stdout: stdout, stderr: stderr)
    }

    /// Called with the lock held.
    private func reap(options: Int32) -> Int32? {
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        if waitpid(pid, &raw, options) == pid { exitStatus = Self.decode(raw) }
        return exitStatus
    }

    private func startReader(_ descriptor: Int32, isError: Bool) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    let chunk = Data(buffer[0..<count])
                    condition.withLock { isError ? stderr.append(chunk) : stdout.append(chunk) }
                    if isError, let onStderrLine { splitLines(chunk).forEach(onStderrLine) }
                } else if count == -1 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
            // A last line without a newline is still a line.
            if isError, let onStderrLine, !partialLine.isEmpty { onStderrLine(String(decoding: partialLine, as: UTF8.self)) }
            condition.withLock {
                openStreams -= 1
                condition.broadcast()
            }
        }
        thread.start()
    }

    /// Only the standard error reader calls this.
    private func splitLines(_ chunk: Data) -> [String] {
        partialLine.append(chunk)
        var lines: [String] = []
        while let newline = partialLine.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: partialLine[partialLine.startIndex..<newline], as: UTF8.self))
            partialLine = Data(partialLine[partialLine.index(after: newline)...])
        }
        return lines
    }

    private static func writeAll(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 { offset += written } else if written == -1 && errno == EINTR { continue } else { return }
            }
        }
    }

    // WIFEXITED / WEXITSTATUS / WTERMSIG are macros, not imported.
    private static func decode(_ raw: Int32) -> Int32 {
        raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// A child that exits before reading its standard input must fail the write, not kill the tests.
    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()
}
