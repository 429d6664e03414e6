import Foundation

/// Runs an executable and waits for it; returns its exit status (-1 when killed by a signal).
/// posix_spawn + waitpid rather than Foundation's Process, whose waitUntilExit was seen never
/// returning on Linux for a child that leaves a daemon behind (pg_ctl start).
public func runTool(_ path: String, _ arguments: [String]) throws -> Int32 {
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var pid: pid_t = 0
    let rc = spawnLock.withLock { posix_spawn(&pid, path, &actions, nil, argv, environ) }
    guard rc == 0 else {
        throw ToolFailure(description: "cannot run \(path): \(String(cString: strerror(rc)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 {
        guard errno == EINTR else { throw ToolFailure(description: "waitpid failed: \(errno)") }
    }
    // WIFEXITED / WEXITSTATUS are macros, not imported.
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
}
