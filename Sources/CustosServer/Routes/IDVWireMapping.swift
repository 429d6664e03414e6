import CustosAPI
import CustosCore
import CustosHTTP
import Foundation

/// IDV domain values → wire types.
enum IDVWireMapping {
    static func templateStatus(_ status: TemplateStatus) -> TemplateStatusResponse {
        TemplateStatusResponse(statusCode: status.statusCode, statusMessage: status.exists ? "Success" : "No template",
                               orchestrationUseCase: .checkTemplate, result: status.exists,
                               attemptsLeft: status.attemptsLeft, userID: status.userID)
    }

    /// The answer to an opt-out: 100 when a template was deleted, 600 when there was none.
    static func optOut(deleted: Bool, userID: String, attemptsLeft: Int) -> TemplateStatusResponse {
        TemplateStatusResponse(statusCode: deleted ? .success : .noTemplate,
                               statusMessage: deleted ? "Template deleted" : "No template",
                               orchestrationUseCase: .biometricOptOut, result: deleted, attemptsLeft: attemptsLeft, userID: userID)
    }

    static func transaction(_ transaction: IDVTransaction, detail: Bool) -> IDVTransactionInfo {
        IDVTransactionInfo(idvAuditTransactionID: transaction.id, workflow: transaction.workflow.wire,
                           challengeMode: transaction.workflow.challengeMode, orchestrationUseCase: transaction.workflow.orchestrationUseCase,
                           reason: transaction.reason, state: transaction.state.rawValue, expiresAt: transaction.expiresAt,
                           result: transaction.result.map { result(of: transaction, $0, detail: detail) })
    }

    static func challenge(_ issued: IssuedChallenge) -> LivenessChallengeInfo {
        LivenessChallengeInfo(
            idvAuditTransactionID: issued.transactionID, workflow: issued.workflow.wire, nonce: issued.nonce,
            actions: issued.challenge.actions.map { LivenessActionInfo(action: $0.rawValue, instruction: $0.instruction) },
            pauseMs: Int((issued.challenge.pause * 1000).rounded()),
            minDurationMs: Int(issued.challenge.minimumDuration * 1000), maxDurationMs: Int(issued.challenge.maximumDuration * 1000),
            minFrames: issued.minimumFrames, maxFrames: issued.maximumFrames, maxFrameBytes: issued.maximumFrameBytes,
            expiresAt: issued.expiresAt)
    }

    static func documentCapture(_ capture: DocumentCapture) -> DocumentCaptureInfo {
        DocumentCaptureInfo(idvAuditTransactionID: capture.transactionID, workflow: capture.workflow.wire,
                            challengeMode: capture.workflow.challengeMode, sides: DocumentSide.allCases.map(\.rawValue),
                            imageTypes: DocumentImageFormat.allCases.map(\.contentType), maxImageBytes: capture.maximumImageBytes,
                            maxImagePixels: capture.maximumImagePixels, expiresAt: capture.expiresAt)
    }

    /// A document image as uploaded, never cached or sniffed as anything but its own type.
    static func documentImage(_ image: DocumentImage) -> Response {
        Response(status: 200, headers: HTTPHeaders([("Content-Type", image.format.contentType), ("Cache-Control", "no-store"),
                                                    ("X-Content-Type-Options", "nosniff")]), body: image.bytes)
    }

    /// A finished (completed or cancelled) transaction's answer to the app: the decision, and
    /// its evidence (score, distance, threshold, liveness reason) only with `detail`.
    static func result(of transaction: IDVTransaction, _ result: IDVResult, detail: Bool) -> IDVResultResponse {
        let biometric = result.decision.map { decision in
            detail ? BiometricResultInfo(displayText: decision, score: result.distance.map { max(0, (10000 * (1 - $0)).rounded() / 10000) },
                                         distance: result.distance, threshold: result.threshold, livenessReason: result.livenessFailure?.rawValue)
                : BiometricResultInfo(displayText: decision)
        }
        let audit = IDVAuditInfo(
            status: result.succeeded ? .success : .failure, idvAuditTransactionID: transaction.id,
            orchestrationUseCase: transaction.workflow.orchestrationUseCase, reason: transaction.reason,
            auditMetrics: AuditMetrics(startTimestamp: Int64(transaction.createdAt.timeIntervalSince1970),
                                       endTimestamp: Int64((transaction.completedAt ?? transaction.createdAt).timeIntervalSince1970)))
        return IDVResultResponse(statusCode: result.status, statusMessage: message(result), userID: transaction.userID,
                                 workflow: transaction.workflow.wire, challengeMode: transaction.workflow.challengeMode,
                                 purpose: transaction.reason, attempts: result.attempts, attemptsLeft: result.attemptsLeft,
                                 biometricResult: biometric, idvAuditInfo: audit, templateCreated: result.templateCreated,
                                 signedResult: result.signedVerdict, lockedUntil: result.lockedUntil)
    }

    /// The relying party's view of a transaction: the decision with its evidence, and the sides
    /// of a document scan's document it can read.
    static func verdict(_ transaction: IDVTransaction, documents: [DocumentSide]) -> IDVVerdictResponse {
        let result = transaction.result
        let livenessPassed = transaction.workflow.takesSelfie ? result?.decision.map { $0 != .livenessFailed } : nil
        return IDVVerdictResponse(
            idvAuditTransactionID: transaction.id, userID: transaction.userID, workflow: transaction.workflow.wire,
            state: transaction.state.rawValue, statusCode: result?.status, decision: result?.decision,
            livenessPassed: livenessPassed, livenessReason: result?.livenessFailure?.rawValue,
            distance: result?.distance, threshold: result?.threshold, attemptsLeft: result?.attemptsLeft, purpose: transaction.reason,
            createdAt: transaction.createdAt, completedAt: transaction.completedAt, signedResult: result?.signedVerdict,
            documents: documents.isEmpty ? nil : documents.map(\.rawValue))
    }

    private static func message(_ result: IDVResult) -> String {
        switch result.status {
        case .success: "Success"
        case .noTemplate: "No biometric template on the server; complete the biometric opt-in first."
        case .attemptsExhausted: "Attempts exhausted; the user is locked for a while."
        case .userCancelledSelfie: "The user cancelled the selfie process."
        default: "Status \(result.status)"
        }
    }
}
