import CustosAPI
import CustosSDK
import Foundation

/// Server biometrics from the command line, in the signed-in profile's session: template
/// status, opt-in, KYC, authentication with recorded frames, the additional document scan,
/// opt-out.
enum IDVCommands {
    static let all: [Command] = [status, optIn, kyc, authenticate, documentScan, optOut]

    static let frames = Option<URL?>.path("frames", "DIR", help: "folder of JPEG frames (name order; times from timestamps.txt '<file> <ms>' lines, else --fps)")
    static let fps = Option<Double>.framesPerSecond("fps", default: 10, help: "frame rate when there is no timestamps.txt")
    static let noPace = Flag("no-pace", help: "send at once instead of taking as long as the recording (the server checks the capture fits the challenge's lifetime)")
    /// Opt-in and KYC cannot run without frames (a declined authentication can).
    static let requiredFrames = frames.required()
    static let framesOptions: [OptionSpec] = [frames.spec, fps.spec, noPace.spec]
    static let requiredFramesOptions: [OptionSpec] = [requiredFrames.spec, fps.spec, noPace.spec]
    static let consent = Option<String>.text("consent-version", "V", default: "v1", help: "the consent text version the user accepted")
    static let decline = Flag("decline", help: "answer the start confirmation with no: the workflow ends with error 240 (exit 8)")
    static let declineAuthentication = Flag("decline", help: "answer the start confirmation with no: the workflow ends with error 240 (exit 8), no attempt used, no --frames needed")
    static let session: [OptionSpec] = [ClientOptions.profile.spec, ClientOptions.profileServer.spec, ClientOptions.json.spec]

    /// `option` names a file that is there: a name that leads nowhere is a mistake on the
    /// command line (exit 2); a file there that cannot be read is a failure (exit 1).
    static func requireExisting(_ file: URL, _ option: OptionSpec) throws {
        guard FileManager.default.fileExists(atPath: file.path) else { throw UsageError("--\(option.name): no file \(file.path)") }
    }

    /// `--frames`, when given, names a folder (checked before the session is opened).
    @Sendable static func checkFrames(_ arguments: ParsedArguments) throws {
        guard let folder = arguments[frames] else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError("--frames: \(folder.path) is not a folder")
        }
    }

    static let optInReason = Option<String?>.text("reason", "TEXT", help: "reason shown in the audit")
    static let authenticationReason = Option<String>.text("reason", "TEXT", default: "Server Biometric Authentication", help: "why")
    static let scanReason = Option<String>.text("reason", "TEXT", default: "Additional Document Scan", help: "why")
    static let documentPortrait = Option<URL?>.path("document", "IMAGE", help: "the document portrait (photo page or the portrait cut from it), JPEG or PNG")
        .required()
    static let front = Option<URL?>.path("front", "IMAGE", help: "the document's front, with the portrait (JPEG or PNG)").required()
    static let back = Option<URL?>.path("back", "IMAGE", help: "the document's back (JPEG or PNG), when it has one")

    static let status = Command(spec: CommandSpec(
        path: "idv status", summary: "Whether the user has a face template on the server (100) or not (600, exit 7).",
        options: session, example: "custos idv status")
    ) { arguments in
        let client = try signedInClient(arguments)
        let status = try await client.checkIDVUserBiometricTemplateStatus()
        try ClientOptions.output(arguments, status) {
            [status.result ? "template present (100); \(status.attemptsLeft) attempts left" : "no template (600)"]
        }
        return status.result ? .ok : .noTemplate
    }

    static let optIn = Command(spec: CommandSpec(
        path: "idv optin", summary: "Biometric opt-in (workflow 10): consent and a live selfie become the face template.",
        options: requiredFramesOptions + [consent.spec, optInReason.spec] + session,
        example: "custos idv optin --frames ../shared/data/liveness/frames/<name>"), validate: checkFrames
    ) { arguments in
        let client = try signedInClient(arguments)
        let source = frameSource(try arguments[requiredFrames], arguments)
        let consent = arguments[consent]
        let reason = arguments[optInReason]
        return try await runWorkflow(arguments, client, .onIDVBiometricOptInResult, asked: source.asked) {
            try await client.initiateIDVBiometricOptIn(consentVersion: consent, reason: reason, frameSource: source)
        }
    }

    static let kyc = Command(spec: CommandSpec(
        path: "idv kyc", summary: "Post-login KYC (workflow 6): the selfie must match the document portrait to become the template.",
        options: [documentPortrait.spec] + requiredFramesOptions + [consent.spec] + session,
        example: "custos idv kyc --document portrait.jpg --frames selfie/"),
        validate: { arguments in
            try requireExisting(try arguments[documentPortrait], documentPortrait.spec)
            try checkFrames(arguments)
        }
    ) { arguments in
        let document = try readImage(try arguments[documentPortrait], "--document")
        let client = try signedInClient(arguments)
        let source = frameSource(try arguments[requiredFrames], arguments)
        let consent = arguments[consent]
        return try await runWorkflow(arguments, client, .onActivatedCustomerKYCResponse, asked: source.asked) {
            try await client.initiateActivatedCustomerKYC(documentImage: document, consentVersion: consent, frameSource: source)
        }
    }

    static let authenticate = Command(spec: CommandSpec(
        path: "idv authenticate", summary: "Server biometric authentication (workflow 8): a live selfie against the stored template.",
        options: framesOptions + [authenticationReason.spec, declineAuthentication.spec] + session,
        example: "custos idv authenticate --frames selfie/"),
        validate: { arguments in
            // Declined, the camera never opens: no --frames needed.
            if !arguments[decline], arguments[frames] == nil { throw requiredFrames.spec.missing }
            try checkFrames(arguments)
        }
    ) { arguments in
        let client = try signedInClient(arguments)
        let reason = arguments[authenticationReason]
        let declining = arguments[decline]
        // Declined without --frames, the camera is one that would only cancel.
        let source: any FrameSource = arguments[frames].map { frameSource($0, arguments) } ?? UnusedCamera()
        // The seed's close button: the app answers the start confirmation with false.
        var refusal: HandlerToken?
        if declining {
            refusal = client.events.on(.onGetIDVSelfieProcessStartConfirmation) { request in
                client.setIDVSelfieProcessStartConfirmation(false, workflow: request.workflow)
            }
        }
        defer { refusal?.remove() }
        return try await runWorkflow(arguments, client, .onIDVServerBiometricAuthenticationResult, asked: (source as? WatchedFrames)?.asked) {
            try await client.initiateIDVServerBiometricAuthentication(reason: reason, frameSource: source)
        }
    }

    static let documentScan = Command(spec: CommandSpec(
        path: "idv document-scan",
        summary: "Additional document scan (workflow 7): the portrait on an identity document against the stored template.",
        options: [front.spec, back.spec, scanReason.spec, decline.spec] + session,
        example: "custos idv document-scan --front id-front.jpg --back id-back.jpg"),
        validate: { arguments in
            try requireExisting(try arguments[front], front.spec)
            if let back = arguments[back] { try requireExisting(back, Self.back.spec) }
        }
    ) { arguments in
        let frontImage = try readImage(try arguments[front], "--front")
        let backImage = try arguments[back].map { try readImage($0, "--back") }
        let client = try signedInClient(arguments)
        let reason = arguments[scanReason]
        var refusal: HandlerToken?
        if arguments[decline] {
            refusal = client.events.on(.onGetIDVDocumentScanProcessStartConfirmation) { request in
                client.setIDVDocumentScanProcessStartConfirmation(false, workflow: request.workflow)
            }
        }
        defer { refusal?.remove() }
        return try await runWorkflow(arguments, client, .onIDVAdditionalDocumentScanResult) {
            try await client.initiateIDVAdditionalDocumentScan(reason: reason, front: frontImage, back: backImage)
        }
    }

    static let optOut = Command(spec: CommandSpec(
        path: "idv optout", summary: "Delete the user's face template (biometric opt-out).", options: session, example: "custos idv optout")
    ) { arguments in
        let client = try signedInClient(arguments)
        let status = try await client.optOutIDVBiometric()
        try ClientOptions.output(arguments, status) { [status.result ? "template deleted" : "no template (600)"] }
        return status.result ? .ok : .noTemplate
    }

    /// The profile's client, with its events on a queue of their own, which `runWorkflow` can
    /// drain (`queue.sync {}`) to know an event sent before the result has arrived.
    static func signedInClient(_ arguments: ParsedArguments) throws -> CustosClient {
        let (profile, _, opened) = try Profile.open(arguments)
        guard profile.sessionToken != nil else { throw UsageError("not logged in; run 'custos login' first") }
        var configuration = opened.configuration
        configuration.eventQueue = DispatchQueue(label: "custos.cli.events")
        let client = try CustosClient(configuration: configuration)
        client.restore(opened.session)
        return client
    }

    private static func readImage(_ url: URL, _ option: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw CommandFailure("\(option): cannot read \(url.path)") }
        return data
    }

    /// The frames in `folder` (which `checkFrames` checked), at `--fps` unless timestamped.
    static func frameSource(_ folder: URL, _ arguments: ParsedArguments) -> WatchedFrames {
        WatchedFrames(frames: FolderFrameSource(directory: folder, framesPerSecond: arguments[fps], pace: !arguments[noPace]))
    }

    /// Runs a workflow and prints its result event's first tier, the error (240 with how it was
    /// abandoned: declined, unanswered, a capture that failed), before the result. A cancel the server never confirmed has no result: the error alone, exit 8.
    private static func runWorkflow(_ arguments: ParsedArguments, _ client: CustosClient, _ event: CustosEvent<IDVResultEvent>,
                                    asked: AskedActions? = nil, _ work: @escaping @Sendable () async throws -> IDVResultResponse) async throws -> ExitCode {
        let (seen, delivery) = AsyncStream.makeStream(of: IDVResultEvent.self)
        let token = client.events.on(event) { delivery.yield($0) }
        defer { token.remove() }
        let result: IDVResultResponse
        do {
            result = try await work()
        } catch let error as CustosError where error == .userCancelled {
            let line = "error \(error.longErrorCode) (\(error.code)): \(error.message)"
            if arguments[ClientOptions.json] { Console.error(line) } else { Console.out(line) }
            return .cancelled
        }
        client.events.queue.sync {}   // the client's own queue (see signedInClient): the event has arrived
        delivery.finish()
        var last: IDVResultEvent?
        for await event in seen { last = event }
        if !arguments[ClientOptions.json], let error = last?.error {
            Console.out("error \(error.longErrorCode) (\(error.code)): \(error.message)")
        }
        return try await report(arguments, result, asked: asked)
    }

    /// Prints the result and maps it to the exit code: 0 matched/enrolled, 4 not matched or
    /// liveness failed, 6 locked (153), 7 no template (600), 8 cancelled (240).
    private static func report(_ arguments: ParsedArguments, _ result: IDVResultResponse, asked: AskedActions?) async throws -> ExitCode {
        let display = result.biometricResult?.displayText
        let explanation = display == .livenessFailed ? await asked?.explanation() ?? [] : []
        try ClientOptions.output(arguments, result) { describe(result, explanation: explanation) }
        switch result.statusCode {
        case StatusCode.noTemplate: return .noTemplate
        case StatusCode.attemptsExhausted: return .locked
        case StatusCode.userCancelledSelfie: return .cancelled
        default: return result.idvAuditInfo.status == .success ? .ok : .rejected
        }
    }

    /// A result as people read it: `MATCHED (success), score 0.93` then the transaction, with
    /// `explanation` under a LIVENESS_FAILED.
    static func describe(_ result: IDVResultResponse, explanation: [String]) -> [String] {
        var lines: [String]
        switch result.statusCode {
        case StatusCode.noTemplate: lines = ["no template (600): complete the biometric opt-in first"]
        case StatusCode.attemptsExhausted: lines = ["attempts exhausted (153): the user is locked"]
        case StatusCode.userCancelledSelfie: lines = ["cancelled (240)"]
        default:
            var line = "\(result.biometricResult?.displayText ?? "?") (\(result.idvAuditInfo.status))"
            if let reason = result.biometricResult?.livenessReason { line += ": liveness \(reason)" }
            if let score = result.biometricResult?.score { line += ", score \(score)" }
            lines = [line] + explanation
        }
        lines.append("transaction \(result.idvAuditInfo.idvAuditTransactionID); \(result.attemptsLeft) attempts left")
        return lines
    }
}

/// The camera of a declined workflow, which never opens: the start is refused before any
/// challenge, so `capture` is not called (were it, the capture would be abandoned: 240).
private struct UnusedCamera: FrameSource {
    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] { throw CustosError.userCancelled }
}
