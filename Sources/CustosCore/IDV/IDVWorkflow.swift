/// The selfie workflows, numbered as in the contract.
public enum IDVWorkflow: Int, Sendable, Codable, CaseIterable {
    /// Post-login KYC: a document portrait plus the live selfie; creates the template.
    case kyc = 6
    /// Post-login server biometric authentication against the stored template.
    case serverBiometricAuthentication = 8
    /// Biometric opt-in: consent plus the live selfie; creates the template.
    case biometricOptIn = 10

    /// The challenge mode of the result (`nil`: the opt-in result has none in the contract).
    public var challengeMode: Int? {
        switch self {
        case .kyc: 9
        case .serverBiometricAuthentication: 25
        case .biometricOptIn: nil
        }
    }

    public var orchestrationUseCase: String {
        switch self {
        case .kyc: "RDNA_IDV_POSTLOGIN_KYC"
        case .serverBiometricAuthentication: "RDNA_IDV_POSTLOGIN_IDV_SELFIE_BIOMETRIC"
        case .biometricOptIn: "RDNA_IDV_BIOMETRIC_OPT_IN"
        }
    }

    /// Whether the workflow creates the template (and so needs consent).
    public var enrolls: Bool { self != .serverBiometricAuthentication }

    /// The `reason` when the client gives none.
    public var defaultReason: String {
        switch self {
        case .kyc: "Know Your Customer"
        case .serverBiometricAuthentication: "Server Biometric Authentication"
        case .biometricOptIn: "Biometric Opt-In"
        }
    }

    /// The use case of the template status check.
    public static let templateCheckUseCase = "RDNA_IDV_CHECK_TEMPLATE"
    /// The use case of deleting the template (biometric opt-out).
    public static let optOutUseCase = "RDNA_IDV_BIOMETRIC_OPT_OUT"
}
