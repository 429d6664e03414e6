import CustosAPI
import Foundation

extension CustosClient {
    /// `checkIDVUserBiometricTemplateStatus()`: whether the signed-in user has a face template
    /// on the server (100) or not (600). Emits `onIDVCheckUserBiometricTemplateStatus`, on
    /// failure too (with the error, which the call also throws).
    @discardableResult
    public func checkIDVUserBiometricTemplateStatus() async throws -> TemplateStatusResponse {
        let current = session
        return try await emitting(.onIDVCheckUserBiometricTemplateStatus, {
            TemplateStatusEvent(userID: $1?.userID ?? current.userID ?? "", error: $0, response: $1)
        }) {
            try await transport.call(Endpoints.templateStatus, bearer: current.sessionToken)
        }
    }

    /// Server biometric authentication (workflow 8, challenge mode 25) against the stored
    /// template: asks the app to confirm (`onGetIDVSelfieProcessStartConfirmation`), runs the
    /// liveness challenge through `frameSource`, and returns the result (also emitted as
    /// `onIDVServerBiometricAuthenticationResult`). Declining, leaving the confirmation
    /// unanswered, cancelling the task or a capture that throws end it with error 240 (see
    /// `runSelfieWorkflow`).
    @discardableResult
    public func initiateIDVServerBiometricAuthentication(reason: String, frameSource: (any FrameSource)? = nil) async throws -> IDVResultResponse {
        try await runSelfieWorkflow(IDVInitiateRequest(workflow: .serverBiometricAuthentication, reason: reason), document: nil, frameSource: frameSource,
                                    event: .onIDVServerBiometricAuthenticationResult)
    }

    /// Biometric opt-in (workflow 10): consent, then a live selfie that becomes the template.
    /// Emits `onIDVBiometricOptInResult`.
    @discardableResult
    public func initiateIDVBiometricOptIn(consentVersion: String, reason: String? = nil,
                                          frameSource: (any FrameSource)? = nil) async throws -> IDVResultResponse {
        try await runSelfieWorkflow(IDVInitiateRequest(workflow: .biometricOptIn, reason: reason, consent: IDVConsent(accepted: true, version: consentVersion)),
                                    document: nil, frameSource: frameSource, event: .onIDVBiometricOptInResult)
    }

    /// Post-login KYC (workflow 6, challenge mode 9): the document portrait plus a live selfie
    /// that must match it; on a match the selfie becomes the template. Emits
    /// `onActivatedCustomerKYCResponse`.
    @discardableResult
    public func initiateActivatedCustomerKYC(documentImage: Data, consentVersion: String, reason: String? = nil,
                                             frameSource: (any FrameSource)? = nil) async throws -> IDVResultResponse {
        try await runSelfieWorkflow(IDVInitiateRequest(workflow: .kyc, reason: reason, consent: IDVConsent(accepted: true, version: consentVersion)),
                                    document: documentImage, frameSource: frameSource, event: .onActivatedCustomerKYCResponse)
    }

    /// Biometric opt-out: deletes the user's template (100), or says there was none (600).
    @discardableResult
    public func optOutIDVBiometric() async throws -> TemplateStatusResponse {
        try await transport.call(Endpoints.optOut, bearer: session.sessionToken)
    }

    /// The app's answer to `onGetIDVSelfieProcessStartConfirmation`: `true` opens the camera,
    /// `false` ends the workflow with error 240.
    public func setIDVSelfieProcessStartConfirmation(_ confirmed: Bool, workflow: Workflow) {
        confirmations.answer(confirmed, workflow: workflow)
    }
}
