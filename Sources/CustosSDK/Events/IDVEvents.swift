import CustosAPI

/// The app is asked to confirm the start of a selfie process (`workflow` 6, 8 or 10; answer
/// with `CustosClient.setIDVSelfieProcessStartConfirmation(_:workflow:)`) or of a document
/// scan (`workflow` 7; answer with `setIDVDocumentScanProcessStartConfirmation(_:workflow:)`).
public struct IDVSelfieStartRequest: Sendable, Equatable {
    public let workflow: Workflow
    public let idvAuditTransactionID: String
    public let reason: String
}

/// A workflow's result (a selfie, a document scan) in the contract's three tiers: `error` (240
/// when the user declined, left the start confirmation unanswered or abandoned the capture;
/// transport and server failures), then `response.statusCode` (100, 600, 153, 240), then the detail
/// (`biometricResult.displayText`, `idvAuditInfo`). A cancelled workflow carries both the
/// 240 error and, when the server confirmed the cancel, its answer.
public struct IDVResultEvent: Sendable, Equatable {
    public let userID: String
    public let error: CustosError?
    public let response: IDVResultResponse?
}

/// The template status check's result in the same three tiers: `error` (the check failed:
/// transport, server, session), then `response.statusCode` (100 template exists, 600 none),
/// then the detail (`attemptsLeft`).
public struct TemplateStatusEvent: Sendable, Equatable {
    public let userID: String
    public let error: CustosError?
    public let response: TemplateStatusResponse?
}

extension CustosEvent where Payload == TemplateStatusEvent {
    /// The answer to `checkIDVUserBiometricTemplateStatus()`, or its failure.
    public static var onIDVCheckUserBiometricTemplateStatus: CustosEvent<TemplateStatusEvent> {
        CustosEvent("onIDVCheckUserBiometricTemplateStatus")
    }
}

extension CustosEvent where Payload == IDVSelfieStartRequest {
    /// Seed 002's name: the app confirms (or declines) the selfie before it starts.
    public static var onGetIDVSelfieProcessStartConfirmation: CustosEvent<IDVSelfieStartRequest> {
        CustosEvent("onGetIDVSelfieProcessStartConfirmation")
    }
    /// Workflow 7, before the document is uploaded.
    public static var onGetIDVDocumentScanProcessStartConfirmation: CustosEvent<IDVSelfieStartRequest> {
        CustosEvent("onGetIDVDocumentScanProcessStartConfirmation")
    }
    @available(*, deprecated, renamed: "onGetIDVSelfieProcessStartConfirmation")
    public static var getIDVSelfieProcessStartConfirmation: CustosEvent<IDVSelfieStartRequest> { onGetIDVSelfieProcessStartConfirmation }
    @available(*, deprecated, renamed: "onGetIDVDocumentScanProcessStartConfirmation")
    public static var getIDVDocumentScanProcessStartConfirmation: CustosEvent<IDVSelfieStartRequest> {
        onGetIDVDocumentScanProcessStartConfirmation
    }
}

extension CustosEvent where Payload == IDVResultEvent {
    /// Workflow 8 (challenge mode 25).
    public static var onIDVServerBiometricAuthenticationResult: CustosEvent<IDVResultEvent> {
        CustosEvent("onIDVServerBiometricAuthenticationResult")
    }
    /// Workflow 6 (challenge mode 9).
    public static var onActivatedCustomerKYCResponse: CustosEvent<IDVResultEvent> { CustosEvent("onActivatedCustomerKYCResponse") }
    /// Workflow 7 (challenge mode 10).
    public static var onIDVAdditionalDocumentScanResult: CustosEvent<IDVResultEvent> {
        CustosEvent("onIDVAdditionalDocumentScanResult")
    }
    /// Workflow 10.
    public static var onIDVBiometricOptInResult: CustosEvent<IDVResultEvent> { CustosEvent("onIDVBiometricOptInResult") }
}
