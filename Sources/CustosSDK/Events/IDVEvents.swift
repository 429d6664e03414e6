import CustosAPI

/// The app is asked to confirm the start of a selfie process (`workflow` 6, 8 or 10); answer
/// with `CustosClient.setIDVSelfieProcessStartConfirmation(_:workflow:)`.
public struct IDVSelfieStartRequest: Sendable, Equatable {
    public let workflow: Int
    public let idvAuditTransactionID: String
    public let reason: String
}

/// A selfie workflow's result in the contract's three tiers: `error` (240 when the user
/// declined or cancelled; transport and server failures), then `response.statusCode`
/// (100, 600, 153), then the detail (`biometricResult.displayText`, `idvAuditInfo`).
public struct IDVResultEvent: Sendable {
    public let userID: String
    public let error: CustosError?
    public let response: IDVResultResponse?
}

extension CustosEvent where Payload == TemplateStatusResponse {
    /// The answer to `checkIDVUserBiometricTemplateStatus()`: 100 template exists, 600 none.
    public static var onIDVCheckUserBiometricTemplateStatus: CustosEvent<TemplateStatusResponse> {
        CustosEvent("onIDVCheckUserBiometricTemplateStatus")
    }
}

extension CustosEvent where Payload == IDVSelfieStartRequest {
    public static var getIDVSelfieProcessStartConfirmation: CustosEvent<IDVSelfieStartRequest> {
        CustosEvent("getIDVSelfieProcessStartConfirmation")
    }
}

extension CustosEvent where Payload == IDVResultEvent {
    /// Workflow 8 (challenge mode 25).
    public static var onIDVServerBiometricAuthenticationResult: CustosEvent<IDVResultEvent> {
        CustosEvent("onIDVServerBiometricAuthenticationResult")
    }
    /// Workflow 6 (challenge mode 9).
    public static var onActivatedCustomerKYCResponse: CustosEvent<IDVResultEvent> { CustosEvent("onActivatedCustomerKYCResponse") }
    /// Workflow 10.
    public static var onIDVBiometricOptInResult: CustosEvent<IDVResultEvent> { CustosEvent("onIDVBiometricOptInResult") }
}
