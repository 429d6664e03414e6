import CustosAPI
import Foundation

extension CustosClient {
    /// Additional document scan (workflow 7, challenge mode 10): asks the app to confirm the
    /// start (`onGetIDVDocumentScanProcessStartConfirmation`), uploads the identity document's
    /// `front` image (JPEG or PNG, with the portrait) and its `back` when it has one, and
    /// returns the result: `biometric_result.display_text` MATCHED when the portrait matches
    /// the user's template, NOT_MATCHED otherwise (one attempt used), `status_code` 600
    /// without a template. The result is also emitted as `onIDVAdditionalDocumentScanResult`,
    /// on failure too (with the error, which the call then throws). Declining, leaving the
    /// confirmation unanswered or cancelling the task end it with error 240, as the selfie
    /// workflows do.
    ///
    /// The server keeps the images sealed for the relying party's review (readable by API
    /// key) until its retention period ends or the user is deleted.
    @discardableResult
    public func initiateIDVAdditionalDocumentScan(reason: String, front: Data, back: Data? = nil) async throws -> IDVResultResponse {
        try await runWorkflow(IDVInitiateRequest(workflow: .additionalDocumentScan, reason: reason), start: .onGetIDVDocumentScanProcessStartConfirmation,
                              process: "document scan", event: .onIDVAdditionalDocumentScanResult) {
            { [transport] transactionID, bearer in
                guard case .document = try await transport.call(Endpoints.confirmIDV, transactionID, bearer: bearer) else {
                    throw CustosError.invalidResponse("the server answered a document scan's start with a liveness challenge")
                }
                try Task.checkCancellation()
                let result = try await Self.resendingWhileBusy {
                    try await transport.call(Endpoints.submitDocument, transactionID, body: IDVDocumentRequest(frontImage: front, backImage: back),
                                             bearer: bearer)
                }
                return Self.outcome(result)
            }
        }
    }

    /// The app's answer to `onGetIDVDocumentScanProcessStartConfirmation`: `true` uploads the
    /// document, `false` ends the workflow with error 240.
    public func setIDVDocumentScanProcessStartConfirmation(_ confirmed: Bool, workflow: Workflow) {
        confirmations.answer(confirmed, workflow: workflow)
    }
}
