/// `workflow`: the identity-verification workflows, numbered as in the contract.
public struct Workflow: OpenCode, ExpressibleByIntegerLiteral {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Post-login KYC: a document portrait plus the live selfie; creates the template.
    public static let kyc: Workflow = 6
    /// Additional document scan: the portrait on an identity document against the template.
    public static let additionalDocumentScan: Workflow = 7
    /// Post-login server biometric authentication against the stored template.
    public static let serverBiometricAuthentication: Workflow = 8
    /// Step-up: the server biometric demanded by one action of a transaction approval.
    public static let stepUpBiometric: Workflow = 9
    /// Biometric opt-in: consent plus the live selfie; creates the template.
    public static let biometricOptIn: Workflow = 10
}

/// `challenge_mode`: which proof a result or a step-up action asks for.
public struct ChallengeMode: OpenCode, ExpressibleByIntegerLiteral {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The password (a step-up action's level).
    public static let password: ChallengeMode = 3
    /// Post-login KYC's selfie with a document portrait.
    public static let kyc: ChallengeMode = 9
    /// The additional document scan.
    public static let documentScan: ChallengeMode = 10
    /// The server biometric selfie.
    public static let serverBiometric: ChallengeMode = 25
}

/// `orchestration_use_case` of `idv_audit_info` and the template answers.
public struct UseCase: OpenCode, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let kyc: UseCase = "RDNA_IDV_POSTLOGIN_KYC"
    public static let additionalDocumentScan: UseCase = "RDNA_IDV_POSTLOGIN_ADDITIONAL_DOCUMENT_SCAN"
    public static let serverBiometricAuthentication: UseCase = "RDNA_IDV_POSTLOGIN_IDV_SELFIE_BIOMETRIC"
    public static let biometricOptIn: UseCase = "RDNA_IDV_BIOMETRIC_OPT_IN"
    public static let notificationStepUp: UseCase = "RDNA_IDV_POSTLOGIN_STEPUP_NOTIFICATION"
    /// The template status check.
    public static let checkTemplate: UseCase = "RDNA_IDV_CHECK_TEMPLATE"
    /// Deleting the template (biometric opt-out).
    public static let biometricOptOut: UseCase = "RDNA_IDV_BIOMETRIC_OPT_OUT"
}

/// `biometric_result.display_text` and the relying party's `decision`.
public struct DisplayText: OpenCode, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let matched: DisplayText = "MATCHED"
    public static let notMatched: DisplayText = "NOT_MATCHED"
    public static let livenessFailed: DisplayText = "LIVENESS_FAILED"
    /// Opt-in and KYC: the template was created.
    public static let enrolled: DisplayText = "ENROLLED"
}

/// `idv_audit_info.status`.
public struct AuditStatus: OpenCode, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let success: AuditStatus = "SUCCESS"
    public static let failure: AuditStatus = "FAILURE"
}

/// The proof a notification action demands (the seed's `authLevel`): 0 none, 1 the password
/// (challenge mode 3), 2 app-defined (refused unless configured), 3 a signature by the bound
/// device's key, 4 server biometric (workflow 9). 3 and 4 never fall back to a weaker factor.
public struct AuthLevel: OpenCode, ExpressibleByIntegerLiteral, Comparable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let none: AuthLevel = 0
    public static let password: AuthLevel = 1
    public static let appDefined: AuthLevel = 2
    public static let deviceSignature: AuthLevel = 3
    public static let serverBiometric: AuthLevel = 4

    public static func < (lhs: AuthLevel, rhs: AuthLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The OpenID Connect `amr` values of the proof (RFC 8176).
    /// The `acr` value an OpenID client asks for and finds in the ID token.
    public var acr: String { "urn:custos:acr:\(rawValue)" }

    /// The level an `acr` value names; nil for one this server does not know.
    public init?(acr: String) {
        let prefix = "urn:custos:acr:"
        guard acr.hasPrefix(prefix), let value = Int(acr.dropFirst(prefix.count)) else { return nil }
        self.init(rawValue: value)
    }
}
