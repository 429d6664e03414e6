import CustosAPI
import CustosSDK
import Foundation

/// Server biometrics from the command line, in the signed-in profile's session: template
/// status, opt-in, KYC, authentication with recorded frames, the additional document scan,
/// opt-out.
enum IDVCommands {
    static let all: [Command] = [status, optIn, kyc, authenticate, documentScan, optOut]

    static let framesOptions: [OptionSpec] = [
        .value("frames", "DIR", "folder of JPEG frames (name order; times from timestamps.txt '<file> <ms>' lines, else --fps)"),
        .value("fps", "N", "frame rate when there is no timestamps.txt (default 10)"),
        .flag("no-pace", "send at once instead of taking as long as the recording (the server checks the capture fits the challenge's lifetime)"),
    ]
    static let consentOption = OptionSpec.value("consent-version", "V", "the consent text version the user accepted (default v1)")

    static let status = Command(spec: CommandSpec(
        path: "idv status", summary: "Whether the user has a face template on the server (100) or not (600, exit 7).",
        options: [ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        let client = try signedInClient(arguments)
        let status = try callServer { try await client.checkIDVUserBiometricTemplateStatus() }
        try ClientOptions.output(arguments, status) {
            [status.result ? "template present (100); \(status.attemptsLeft) attempts left" : "no template (600)"]
        }
        return status.result ? .ok : .noTemplate
    }

    static let optIn = Command(spec: CommandSpec(
        path: "idv optin", summary: "Biometric opt-in (workflow 10): consent and a live selfie become the face template.",
        options: framesOptions + [consentOption, .value("reason", "TEXT", "reason shown in the audit"), ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        let client = try signedInClient(arguments)
        let source = try frameSource(arguments)
        let consent = arguments.value("consent-version") ?? "v1"
        let reason = arguments.value("reason")
        return try runWorkflow(arguments, client, .onIDVBiometricOptInResult) {
            try await client.initiateIDVBiometricOptIn(consentVersion: consent, reason: reason, frameSource: source)
        }
    }

    static let kyc = Command(spec: CommandSpec(
        path: "idv kyc", summary: "Post-login KYC (workflow 6): the selfie must match the document portrait to become the template.",
        options: [.value("document", "IMAGE", "the document portrait (photo page or the portrait cut from it), JPEG or PNG")]
            + framesOptions + [consentOption, ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        guard let path = arguments.value("document") else { throw UsageError("--document is required") }
        let document = try readImage(path, "--document")
        let client = try signedInClient(arguments)
        let source = try frameSource(arguments)
        let consent = arguments.value("consent-version") ?? "v1"
        return try runWorkflow(arguments, client, .onActivatedCustomerKYCResponse) {
            try await client.initiateActivatedCustomerKYC(documentImage: document, consentVersion: consent, frameSource: source)
        }
    }

    static let authenticate = Command(spec: CommandSpec(
        path: "idv authenticate", summary: "Server biometric authentication (workflow 8): a live selfie against the stored template.",
        options: framesOptions + [
            .value("reason", "TEXT", "why (default 'Server Biometric Authentication')"),
            .flag("decline", "answer the start confirmation with no: the workflow ends with error 240 (exit 8), no attempt used, no --frames needed"),
            ClientOptions.profile, ClientOptions.json,
        ])
    ) { arguments in
        let client = try signedInClient(arguments)
        let reason = arguments.value("reason") ?? "Server Biometric Authentication"
        let declining = arguments.has("decline")
        // Declined, the camera never opens: without --frames it is one that would only cancel.
        let source: any FrameSource
        if declining && arguments.value("frames") == nil {
            source = UnusedCamera()
        } else {
            source = try frameSource(arguments)
        }
        // The seed's close button: the app answers the start confirmation with false.
        var decline: HandlerToken?
        if declining {
            decline = client.events.on(.getIDVSelfieProcessStartConfirmation) { request in
                client.setIDVSelfieProcessStartConfirmation(false, workflow: request.workflow)
            }
        }
        defer { decline?.remove() }
        return try runWorkflow(arguments, client, .onIDVServerBiometricAuthenticationResult) {
            try await client.initiateIDVServerBiometricAuthentication(reason: reason, frameSource: source)
        }
    }

    static let documentScan = Command(spec: CommandSpec(
        path: "idv document-scan",
        summary: "Additional document scan (workflow 7): the portrait on an identity document against the stored template.",
        options: [
            .value("front", "IMAGE", "the document's front, with the portrait (JPEG or PNG)"),
            .value("back", "IMAGE", "the document's back (JPEG or PNG), when it has one"),
            .value("reason", "TEXT", "why (default 'Additional Document Scan')"),
            .flag("decline", "answer the start confirmation with no: the workflow ends with error 240 (exit 8)"),
            ClientOptions.profile, ClientOptions.json,
        ])
    ) { arguments in
        guard let front = arguments.value("front") else { throw UsageError("--front is required") }
        let frontImage = try readImage(front, "--front")
        let backImage = try arguments.value("back").map { try readImage($0, "--back") }
        let client = try signedInClient(arguments)
        let reason = arguments.value("reason") ?? "Additional Document Scan"
        var decline: HandlerToken?
        if arguments.has("decline") {
            decline = client.events.on(.getIDVDocumentScanProcessStartConfirmation) { request in
                client.setIDVDocumentScanProcessStartConfirmation(false, workflow: request.workflow)
            }
        }
        defer { decline?.remove() }
        return try runWorkflow(arguments, client, .onIDVAdditionalDocumentScanResult) {
            try await client.initiateIDVAdditionalDocumentScan(reason: reason, front: frontImage, back: backImage)
        }
    }

    static let optOut = Command(spec: CommandSpec(
        path: "idv optout", summary: "Delete the user's face template (biometric opt-out).", options: [ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        let client = try signedInClient(arguments)
        let status = try callServer { try await client.optOutIDVBiometric() }
        try ClientOptions.output(arguments, status) { [status.result ? "template deleted" : "no template (600)"] }
        return status.result ? .ok : .noTemplate
    }

    /// The profile's client, with its events on a queue of their own: the command blocks the
    /// main thread while it waits for the server (`callServer`), so events on main (the
    /// default on Apple platforms) would never arrive.
    private static func signedInClient(_ arguments: ParsedArguments) throws -> CustosClient {
        let (profile, _, opened) = try Profile.open(arguments)
        guard profile.sessionToken != nil else { throw UsageError("not logged in; run 'custos login' first") }
        var configuration = opened.configuration
        configuration.eventQueue = DispatchQueue(label: "custos.cli.events")
        let client = try CustosClient(configuration: configuration)
        client.restore(opened.session)
        return client
    }

    private static func readImage(_ path: String, _ option: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError("\(option): cannot read \(path)") }
        return data
    }

    private static func frameSource(_ arguments: ParsedArguments) throws -> FolderFrameSource {
        guard let path = arguments.value("frames") else { throw UsageError("--frames DIR is required") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("--frames: \(path) is not a folder")
        }
        let fps = try arguments.framesPerSecond("fps") ?? 10
        return FolderFrameSource(directory: URL(fileURLWithPath: path), framesPerSecond: fps, pace: !arguments.has("no-pace"))
    }

    /// Runs a workflow and prints its result event's first tier, the error (240 with how it was
    /// abandoned: declined, unanswered, a capture that failed), before the result. A cancel the server never confirmed has no result: the error alone, exit 8.
    private static func runWorkflow(_ arguments: ParsedArguments, _ client: CustosClient, _ event: CustosEvent<IDVResultEvent>,
                                    _ work: @escaping @Sendable () async throws -> IDVResultResponse) throws -> ExitCode {
        let seen = LockedBox<IDVResultEvent?>(nil)
        let token = client.events.on(event) { seen.set($0) }
        defer { token.remove() }
        let result: IDVResultResponse
        do {
            result = try callServer(work)
        } catch let error as CustosError where error == .userCancelled {
            let line = "error \(error.longErrorCode) (\(error.code)): \(error.message)"
            if arguments.has("json") { Console.error(line) } else { Console.out(line) }
            return .cancelled
        }
        client.events.queue.sync {}   // the client's own queue (see signedInClient): the event has arrived
        if !arguments.has("json"), let error = seen.get()?.error {
            Console.out("error \(error.longErrorCode) (\(error.code)): \(error.message)")
        }
        return try report(arguments, result)
    }

    /// Prints the result and maps it to the exit code: 0 matched/enrolled, 4 not matched or
    /// liveness failed, 6 locked (153), 7 no template (600), 8 cancelled (240).
    private static func report(_ arguments: ParsedArguments, _ result: IDVResultResponse) throws -> ExitCode {
        let display = result.biometricResult?.displayText
        try ClientOptions.output(arguments, result) {
            var lines: [String]
            switch result.statusCode {
            case StatusCode.noTemplate: lines = ["no template (600): complete the biometric opt-in first"]
            case StatusCode.attemptsExhausted: lines = ["attempts exhausted (153): the user is locked"]
            case StatusCode.userCancelledSelfie: lines = ["cancelled (240)"]
            default:
                var line = "\(display ?? "?") (\(result.idvAuditInfo.status))"
                if let reason = result.biometricResult?.livenessReason { line += ": liveness \(reason)" }
                if let score = result.biometricResult?.score { line += ", score \(score)" }
                lines = [line]
            }
            lines.append("transaction \(result.idvAuditInfo.idvAuditTransactionID); \(result.attemptsLeft) attempts left")
            return lines
        }
        switch result.statusCode {
        case StatusCode.noTemplate: return .noTemplate
        case StatusCode.attemptsExhausted: return .locked
        case StatusCode.userCancelledSelfie: return .cancelled
        default: return result.idvAuditInfo.status == .success ? .ok : .rejected
        }
    }
}

/// The camera of a declined workflow, which never opens: the start is refused before any
/// challenge, so `capture` is not called (were it, the capture would be abandoned: 240).
private struct UnusedCamera: FrameSource {
    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] { throw CustosError.userCancelled }
}
