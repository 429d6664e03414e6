/// The identity-verification workflows, numbered as in the contract.
public enum IDVWorkflow: Int, Sendable, Codable, CaseIterable {
    /// Post-login KYC: a document portrait plus the live selfie; creates the template.
    case kyc = 6
    /// Additional document scan: an identity document's front (and back) images, the portrait
    /// on the front compared with the stored template; no selfie, no template created.
    case additionalDocumentScan = 7
    /// Post-login server biometric authentication against the stored template.
    case serverBiometricAuthentication = 8
    /// Biometric opt-in: consent plus the live selfie; creates the template.
    case biometricOptIn = 10

    /// The challenge mode of the result (`nil`: the opt-in result has none in the contract).
    public var challengeMode: Int? {
        switch self {
        case .kyc: 9
        case .additionalDocumentScan: 10
        case .serverBiometricAuthentication: 25
        case .biometricOptIn: nil
        }
    }

    public var orchestrationUseCase: String {
        switch self {
        case .kyc: "RDNA_IDV_POSTLOGIN_KYC"
        case .additionalDocumentScan: "RDNA_IDV_POSTLOGIN_ADDITIONAL_DOCUMENT_SCAN"
        case .serverBiometricAuthentication: "RDNA_IDV_POSTLOGIN_IDV_SELFIE_BIOMETRIC"
        case .biometricOptIn: "RDNA_IDV_BIOMETRIC_OPT_IN"
        }
    }

    /// Whether the workflow creates the template (and so needs consent).
    public var enrolls: Bool { self == .kyc || self == .biometricOptIn }

    /// Whether the workflow takes a live selfie against a liveness challenge (all but the
    /// document scan, which uploads document images instead of frames).
    public var takesSelfie: Bool { self != .additionalDocumentScan }

    /// Whether the workflow compares with the stored template, and so ends with 600 without one.
    public var needsTemplate: Bool { self == .serverBiometricAuthentication || self == .additionalDocumentScan }

    /// The `reason` when the client gives none.
    public var defaultReason: String {
        switch self {
        case .kyc: "Know Your Customer"
        case .additionalDocumentScan: "Additional Document Scan"
        case .serverBiometricAuthentication: "Server Biometric Authentication"
        case .biometricOptIn: "Biometric Opt-In"
        }
    }

    /// The use case of the template status check.
    public static let templateCheckUseCase = "RDNA_IDV_CHECK_TEMPLATE"
    /// The use case of deleting the template (biometric opt-out).
    public static let optOutUseCase = "RDNA_IDV_BIOMETRIC_OPT_OUT"
}
