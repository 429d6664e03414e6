import CustosAPI

/// The identity-verification workflows this server runs; their numbers, challenge modes and
/// use cases are the contract's (`Workflow`, `ChallengeMode`, `UseCase` in CustosAPI).
public enum IDVWorkflow: Sendable, Codable, CaseIterable, RawRepresentable {
    /// Post-login KYC: a document portrait plus the live selfie; creates the template.
    case kyc
    /// Additional document scan: an identity document's front (and back) images, the portrait
    /// on the front compared with the stored template; no selfie, no template created.
    case additionalDocumentScan
    /// Post-login server biometric authentication against the stored template.
    case serverBiometricAuthentication
    /// Notification step-up: the selfie a notification action of level 4 demands, matched
    /// against the stored template like workflow 8; started by the action, never by the app.
    case notificationStepUp
    /// Biometric opt-in: consent plus the live selfie; creates the template.
    case biometricOptIn

    public var wire: Workflow {
        switch self {
        case .kyc: .kyc
        case .additionalDocumentScan: .additionalDocumentScan
        case .serverBiometricAuthentication: .serverBiometricAuthentication
        case .notificationStepUp: .stepUpBiometric
        case .biometricOptIn: .biometricOptIn
        }
    }

    /// The workflow a request names; nil for one this server does not run.
    public init?(_ wire: Workflow) {
        guard let known = Self.allCases.first(where: { $0.wire == wire }) else { return nil }
        self = known
    }

    public var rawValue: Int { wire.rawValue }
    public init?(rawValue: Int) { self.init(Workflow(rawValue: rawValue)) }

    /// The challenge mode of the result (`nil`: the opt-in result has none in the contract).
    public var challengeMode: ChallengeMode? {
        switch self {
        case .kyc: .kyc
        case .additionalDocumentScan: .documentScan
        case .serverBiometricAuthentication, .notificationStepUp: .serverBiometric
        case .biometricOptIn: nil
        }
    }

    public var orchestrationUseCase: UseCase {
        switch self {
        case .kyc: .kyc
        case .additionalDocumentScan: .additionalDocumentScan
        case .serverBiometricAuthentication: .serverBiometricAuthentication
        case .notificationStepUp: .notificationStepUp
        case .biometricOptIn: .biometricOptIn
        }
    }

    /// Whether the workflow creates the template (and so needs consent).
    public var enrolls: Bool { self == .kyc || self == .biometricOptIn }

    /// Whether the workflow takes a live selfie against a liveness challenge (all but the
    /// document scan, which uploads document images instead of frames).
    public var takesSelfie: Bool { self != .additionalDocumentScan }

    /// Whether the workflow compares with the stored template, and so ends with 600 without one.
    public var needsTemplate: Bool { matchesTemplate || self == .additionalDocumentScan }

    /// Whether the workflow's selfie is matched against the stored template (8 and 9).
    public var matchesTemplate: Bool { self == .serverBiometricAuthentication || self == .notificationStepUp }

    /// The `reason` when the client gives none.
    public var defaultReason: String {
        switch self {
        case .kyc: "Know Your Customer"
        case .additionalDocumentScan: "Additional Document Scan"
        case .serverBiometricAuthentication: "Server Biometric Authentication"
        case .notificationStepUp: "Notification Step-Up"
        case .biometricOptIn: "Biometric Opt-In"
        }
    }
}
