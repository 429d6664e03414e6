import CustosAPI
import CustosSDK
import Foundation

/// `custos demo`: the whole biometric path once, for a newcomer. It serves itself (a child
/// `custos serve --dev` on a free port, SQLite in a temporary directory, challenges drawn from
/// the one action the sample recordings show: a blink), creates a user, activates a device,
/// then runs opt-in, authentication and KYC on frames of the project's sample recording,
/// printing each answer.
enum DemoCommand {
    static let data = Option<String?>.text("data", "DIR", help: "the project's sample data [CUSTOS_SHARED_DATA] (default ../shared/data)")
    static let keep = Flag("keep", help: "keep the temporary data directory and the server's log")

    static let command = Command(spec: CommandSpec(
        path: "demo", summary: "Serve in-process on a temporary SQLite directory and run opt-in, authentication and KYC on sample frames.",
        options: [data.spec, keep.spec], example: "custos demo"),
        validate: { arguments in
            let root = dataRoot(arguments)
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent(DemoTakes.sequence).path) else {
                throw UsageError("no sample frames in \(root.path): give --data DIR, the folder holding liveness/frames/")
            }
        }
    ) { arguments in
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("custos-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer {
            if arguments[keep] { Console.out("kept \(workspace.path)") } else { try? FileManager.default.removeItem(at: workspace) }
        }
        let takes = try DemoTakes.fresh(root: dataRoot(arguments), into: workspace)
        let served = try await DemoServer.start(in: workspace)
        defer { served.stop() }
        return try await run(server: served.url, apiKey: served.apiKey, takes: takes, workspace: workspace)
    }

    static func dataRoot(_ arguments: ParsedArguments) -> URL {
        URL(fileURLWithPath: arguments[data] ?? ProcessInfo.processInfo.environment["CUSTOS_SHARED_DATA"] ?? "../shared/data")
    }

    private static func run(server: URL, apiKey: String, takes: DemoTakes, workspace: URL) async throws -> ExitCode {
        Console.out("serving on \(server.absoluteString) (data in \(workspace.path))")
        let userID = "demo-\(UUID().uuidString.prefix(8).lowercased())"
        let created = try await CustosAdminClient(serverURL: server, apiKey: apiKey).createUser(userID)
        let client = try CustosClient(configuration: .init(serverURL: server,
                                                           keyStore: FileDeviceKeyStore(directory: workspace.appendingPathComponent("keys"))))
        let activated = try await client.activate(userID: userID, activationCode: created.activation.activationCode,
                                                  password: "demo password \(UUID().uuidString)", deviceName: "demo")
        guard activated.statusCode.isSuccess else { throw CommandFailure("activating \(userID) answered \(activated.statusCode)") }
        Console.out("user \(userID) created, device activated and logged in")

        var allPassed = true
        for step in takes.steps {
            Console.out("\(step.title), \(step.frames.description):")
            let watched = WatchedFrames(frames: FolderFrameSource(directory: step.frames.folder, framesPerSecond: DemoTakes.framesPerSecond))
            let result = try await step.run(client, watched)
            let explanation = result.biometricResult?.displayText == .livenessFailed ? await watched.asked.explanation() : []
            IDVCommands.describe(result, explanation: explanation).forEach { Console.out("  " + $0) }
            allPassed = allPassed && result.idvAuditInfo.status == .success
        }
        return allPassed ? .ok : .failure
    }
}
