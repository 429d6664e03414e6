import CustosAPI
import Foundation
import Synchronization

extension CustosClient {
    /// `checkIDVUserBiometricTemplateStatus()`: whether the signed-in user has a face template
    /// on the server (100) or not (600). Emits `onIDVCheckUserBiometricTemplateStatus`.
    @discardableResult
    public func checkIDVUserBiometricTemplateStatus() async throws -> TemplateStatusResponse {
        let status: TemplateStatusResponse = try await transport.get("/v1/idv/template", bearer: session.sessionToken)
        events.emit(.onIDVCheckUserBiometricTemplateStatus, status)
        return status
    }

    /// Server biometric authentication (workflow 8, challenge mode 25) against the stored
    /// template: asks the app to confirm (`getIDVSelfieProcessStartConfirmation`), runs the
    /// liveness challenge through `frameSource`, and returns the result (also emitted as
    /// `onIDVServerBiometricAuthenticationResult`). Declining answers `status_code` 240.
    @discardableResult
    public func initiateIDVServerBiometricAuthentication(reason: String, frameSource: (any FrameSource)? = nil) async throws -> IDVResultResponse {
        try await runSelfieWorkflow(IDVInitiateRequest(workflow: 8, reason: reason), document: nil, frameSource: frameSource,
                                    event: .onIDVServerBiometricAuthenticationResult)
    }

    /// Biometric opt-in (workflow 10): consent, then a live selfie that becomes the template.
    /// Emits `onIDVBiometricOptInResult`.
    @discardableResult
    public func initiateIDVBiometricOptIn(consentVersion: String, reason: String? = nil,
                                          frameSource: (any FrameSource)? = nil) async throws -> IDVResultResponse {
        try await runSelfieWorkflow(IDVInitiateRequest(workflow: 10, reason: reason, consent: IDVConsent(accepted: true, version: consentVersion)),
                                    document: nil, frameSource: frameSource, event: .onIDVBiometricOptInResult)
    }

    /// Post-login KYC (workflow 6, challenge mode 9): the document portrait plus a live selfie
    /// that must match it; on a match the selfie becomes the template. Emits
    /// `onActivatedCustomerKYCResponse`.
    @discardableResult
    public func initiateActivatedCustomerKYC(documentImage: Data, consentVersion: String, reason: String? = nil,
                                             frameSource: (any FrameSource)? = nil) async throws -> IDVResultResponse {
        try await runSelfieWorkflow(IDVInitiateRequest(workflow: 6, reason: reason, consent: IDVConsent(accepted: true, version: consentVersion)),
                                    document: documentImage, frameSource: frameSource, event: .onActivatedCustomerKYCResponse)
    }

    /// Biometric opt-out: deletes the user's template (100), or says there was none (600).
    @discardableResult
    public func optOutIDVBiometric() async throws -> TemplateStatusResponse {
        try await transport.send(method: "DELETE", "/v1/idv/template", bearer: session.sessionToken)
    }

    /// The app's answer to `getIDVSelfieProcessStartConfirmation`: `true` opens the camera,
    /// `false` ends the workflow with error 240.
    public func setIDVSelfieProcessStartConfirmation(_ confirmed: Bool, workflow: Int) {
        confirmations.answer(confirmed, workflow: workflow)
    }

    private func runSelfieWorkflow(_ request: IDVInitiateRequest, document: Data?, frameSource: (any FrameSource)?,
                                   event: CustosEvent<IDVResultEvent>) async throws -> IDVResultResponse {
        let userID = session.userID ?? ""
        do {
            let response = try await selfieWorkflow(request, document: document, frameSource: frameSource)
            let cancelled = response.statusCode == 240
            events.emit(event, IDVResultEvent(userID: userID, error: cancelled ? .userCancelled : nil, response: response))
            return response
        } catch let error as CustosError {
            events.emit(event, IDVResultEvent(userID: userID, error: error, response: nil))
            throw error
        }
    }

    private func selfieWorkflow(_ request: IDVInitiateRequest, document: Data?, frameSource: (any FrameSource)?) async throws -> IDVResultResponse {
        let bearer = session.sessionToken
        guard let source = frameSource ?? configuration.frameSource else {
            throw CustosError.invalidConfiguration("no FrameSource configured for the selfie capture")
        }
        let transaction: IDVTransactionInfo = try await transport.post("/v1/idv/transactions", request, bearer: bearer)
        if let result = transaction.result { return result }
        let path = "/v1/idv/transactions/\(transaction.idvAuditTransactionID)"
        let start = IDVSelfieStartRequest(workflow: transaction.workflow, idvAuditTransactionID: transaction.idvAuditTransactionID,
                                          reason: transaction.reason)
        guard await confirmStart(start) else {
            return try await transport.send(method: "POST", path + "/cancel", bearer: bearer)
        }
        let challenge: LivenessChallengeInfo = try await transport.send(method: "POST", path + "/confirm", bearer: bearer)
        let frames: [CapturedImage]
        do {
            frames = try await source.capture(CaptureRequest(challenge))
        } catch {
            // The capture failed or was abandoned: close the transaction as cancelled.
            let _: IDVResultResponse? = try? await transport.send(method: "POST", path + "/cancel", bearer: bearer)
            throw error
        }
        return try await transport.post(path + "/frames", IDVFramesRequest(
            nonce: challenge.nonce, frames: frames.map { FrameUpload(capturedAtMs: $0.capturedAtMs, image: $0.jpeg) },
            documentImage: document), bearer: bearer)
    }

    /// Asks the app through `getIDVSelfieProcessStartConfirmation` and waits for
    /// `setIDVSelfieProcessStartConfirmation`; with no handler installed the start counts as
    /// confirmed (the app called initiate itself).
    private func confirmStart(_ request: IDVSelfieStartRequest) async -> Bool {
        guard events.hasHandler(for: .getIDVSelfieProcessStartConfirmation) else { return true }
        return await withCheckedContinuation { continuation in
            confirmations.wait(workflow: request.workflow, continuation)
            events.emit(.getIDVSelfieProcessStartConfirmation, request)
        }
    }
}

/// Workflows waiting for the app's start confirmation.
final class StartConfirmations: Sendable {
    private let waiting = Mutex<[Int: CheckedContinuation<Bool, Never>]>([:])

    func wait(workflow: Int, _ continuation: CheckedContinuation<Bool, Never>) {
        let previous = waiting.withLock { $0.updateValue(continuation, forKey: workflow) }
        previous?.resume(returning: false)
    }

    func answer(_ confirmed: Bool, workflow: Int) {
        waiting.withLock { $0.removeValue(forKey: workflow) }?.resume(returning: confirmed)
    }
}
