import CustosAPI
import CustosSDK
import Foundation

/// Server biometrics from the command line, in the signed-in profile's session: template
/// status, opt-in, KYC, authentication with recorded frames, opt-out.
enum IDVCommands {
    static let all: [Command] = [status, optIn, kyc, authenticate, optOut]

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
        return try report(arguments, try callServer {
            try await client.initiateIDVBiometricOptIn(consentVersion: consent, reason: reason, frameSource: source)
        })
    }

    static let kyc = Command(spec: CommandSpec(
        path: "idv kyc", summary: "Post-login KYC (workflow 6): the selfie must match the document portrait to become the template.",
        options: [.value("document", "IMAGE", "the document portrait (photo page or the portrait cut from it), JPEG or PNG")]
            + framesOptions + [consentOption, ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        guard let path = arguments.value("document") else { throw UsageError("--document is required") }
        guard let document = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read the document image \(path)") }
        let client = try signedInClient(arguments)
        let source = try frameSource(arguments)
        let consent = arguments.value("consent-version") ?? "v1"
        return try report(arguments, try callServer {
            try await client.initiateActivatedCustomerKYC(documentImage: document, consentVersion: consent, frameSource: source)
        })
    }

    static let authenticate = Command(spec: CommandSpec(
        path: "idv authenticate", summary: "Server biometric authentication (workflow 8): a live selfie against the stored template.",
        options: framesOptions + [.value("reason", "TEXT", "why (default 'Server Biometric Authentication')"), ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        let client = try signedInClient(arguments)
        let source = try frameSource(arguments)
        let reason = arguments.value("reason") ?? "Server Biometric Authentication"
        return try report(arguments, try callServer {
            try await client.initiateIDVServerBiometricAuthentication(reason: reason, frameSource: source)
        })
    }

    static let optOut = Command(spec: CommandSpec(
        path: "idv optout", summary: "Delete the user's face template (biometric opt-out).", options: [ClientOptions.profile, ClientOptions.json])
    ) { arguments in
        let client = try signedInClient(arguments)
        let status = try callServer { try await client.optOutIDVBiometric() }
        try ClientOptions.output(arguments, status) { [status.result ? "template deleted" : "no template (600)"] }
        return status.result ? .ok : .noTemplate
    }

    private static func signedInClient(_ arguments: ParsedArguments) throws -> CustosClient {
        let (profile, _, client) = try Profile.open(arguments)
        guard profile.sessionToken != nil else { throw UsageError("not logged in; run 'custos login' first") }
        return client
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
        default: return result.idvAuditInfo.status == "SUCCESS" ? .ok : .rejected
        }
    }
}
