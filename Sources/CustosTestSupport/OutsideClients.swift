import Foundation

/// The project's Python test clients (`Tests/Clients`), run with the PyPI packages of
/// scripts/requirements.txt from `.custos/venv`: code others wrote (PyJWT, …) checking what
/// the server does, never the server's own code.
public enum OutsideClients {
    /// The virtualenv's interpreter (scripts/install-deps.sh makes it).
    public static var python: URL { SharedData.packageRoot.appendingPathComponent(".custos/venv/bin/python") }

    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: python.path) }

    /// Whether tests that need the clients run: where they are installed, and always under
    /// `CUSTOS_REQUIRE_CLIENTS=1` (make test), so that a missing venv fails them instead of
    /// skipping them quietly.
    public static var shouldRun: Bool { isAvailable || TestEnvironment.clientsRequired }

    /// Why tests that need them cannot run.
    public static let missingMessage = "the Python test clients need .custos/venv (run scripts/install-deps.sh)"

    /// Runs `Tests/Clients/<script>` with `arguments`; its exit status and standard output.
    public static func run(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let path = SharedData.packageRoot.appendingPathComponent("Tests/Clients").appendingPathComponent(script).path
        let result = try ChildProcess.run(executable: python.path, arguments: [path] + arguments,
                                          environment: ProcessInfo.processInfo.environment, stdin: nil)
        return (result.status, String(decoding: result.stdout, as: UTF8.self) + String(decoding: result.stderr, as: UTF8.self))
    }
}
