import CustosAPI
import Foundation

/// How a selfie workflow ended: with the server's answer (and the 240 error when the user
/// cancelled), or with a failure and no answer.
enum SelfieOutcome: Sendable {
    case answered(IDVResultResponse, CustosError?)
    case failed(CustosError)
}

extension CustosClient {
    /// Runs a selfie workflow and emits its result event exactly once, whatever happens.
    ///
    /// Every way the selfie is abandoned is the seed's 240 path: the app answers the start
    /// confirmation with `false`, leaves it unanswered past `startConfirmationTimeout`, the
    /// task awaiting the workflow is cancelled, or `FrameSource.capture` throws. Each cancels
    /// the transaction on the server (`POST …/cancel`) and emits the result event with
    /// `error == .userCancelled` (`longErrorCode` 240).
    ///
    /// What the call does follows the event, one rule for every path: it returns the event's
    /// `response` when there is one (a cancelled workflow returns the server's cancel answer,
    /// `status_code` 240, or 153 when the cancel used the last attempt) and throws the event's
    /// `error` when there is none (a cancel the server could not be told of throws
    /// `.userCancelled`). A task that was cancelled gets the same answer: the caller learns
    /// how the transaction ended rather than only that it stopped waiting.
    func runSelfieWorkflow(_ request: IDVInitiateRequest, document: Data?, frameSource: (any FrameSource)?,
                           event: CustosEvent<IDVResultEvent>) async throws -> IDVResultResponse {
        let userID = session.userID ?? ""
        let outcome: SelfieOutcome
        do {
            outcome = try await selfieWorkflow(request, document: document, frameSource: frameSource)
        } catch {
            // Cancelled before a transaction existed (or while it was being created): nothing
            // to cancel on the server, but the caller still gets the 240 path.
            outcome = .failed(Task.isCancelled ? CustosError.cancelled("The task awaiting the selfie workflow was cancelled.")
                                               : CustosError(error))
        }
        switch outcome {
        case .answered(let response, let error):
            events.emit(event, IDVResultEvent(userID: userID, error: error, response: response))
            return response
        case .failed(let error):
            events.emit(event, IDVResultEvent(userID: userID, error: error, response: nil))
            throw error
        }
    }

    private func selfieWorkflow(_ request: IDVInitiateRequest, document: Data?, frameSource: (any FrameSource)?) async throws -> SelfieOutcome {
        let bearer = session.sessionToken
        guard let source = frameSource ?? configuration.frameSource else {
            throw CustosError.invalidConfiguration("no FrameSource configured for the selfie capture")
        }
        let transaction: IDVTransactionInfo = try await transport.post("/v1/idv/transactions", request, bearer: bearer)
        if let result = transaction.result { return Self.outcome(result) }
        let path = "/v1/idv/transactions/\(transaction.idvAuditTransactionID)"
        let start = IDVSelfieStartRequest(workflow: transaction.workflow, idvAuditTransactionID: transaction.idvAuditTransactionID,
                                          reason: transaction.reason)
        switch await confirmStart(start) {
        case .confirmed:
            break
        case .declined:
            return await cancelTransaction(path, bearer: bearer, .cancelled("The user declined the selfie process."))
        case .unanswered:
            let seconds = configuration.startConfirmationTimeout
            return await cancelTransaction(path, bearer: bearer, .cancelled(
                "getIDVSelfieProcessStartConfirmation was not answered within \(String(format: "%g", seconds)) s."))
        case .cancelled:
            return await cancelTransaction(path, bearer: bearer, .cancelled("The task awaiting the selfie workflow was cancelled."))
        }
        do {
            let challenge: LivenessChallengeInfo = try await transport.send(method: "POST", path + "/confirm", bearer: bearer)
            let frames: [CapturedImage]
            do {
                frames = try await source.capture(CaptureRequest(challenge))
            } catch {
                // The camera gave up or the user closed it: the capture was abandoned.
                return await cancelTransaction(path, bearer: bearer, .cancelled("The selfie capture ended without frames: \(error)"))
            }
            try Task.checkCancellation()
            let result: IDVResultResponse = try await transport.post(path + "/frames", IDVFramesRequest(
                nonce: challenge.nonce, frames: frames.map { FrameUpload(capturedAtMs: $0.capturedAtMs, image: $0.jpeg) },
                documentImage: document), bearer: bearer)
            return Self.outcome(result)
        } catch where Task.isCancelled {
            return await cancelTransaction(path, bearer: bearer, .cancelled("The task awaiting the selfie workflow was cancelled."))
        }
    }

    /// A server answer as an outcome: a 240 from the server is the user's cancel too.
    private static func outcome(_ result: IDVResultResponse) -> SelfieOutcome {
        .answered(result, result.statusCode == StatusCode.userCancelledSelfie ? .userCancelled : nil)
    }

    /// Cancels the transaction on the server and ends the workflow with `error` (240). The
    /// request runs in a task of its own, so it is sent even when the caller's task was
    /// cancelled (a cancelled task's requests fail at once).
    private func cancelTransaction(_ path: String, bearer: String?, _ error: CustosError) async -> SelfieOutcome {
        let transport = self.transport
        let answer = await Task.detached { () -> IDVResultResponse? in
            try? await transport.send(method: "POST", path + "/cancel", bearer: bearer)
        }.value
        guard let answer else { return .failed(error) }
        return .answered(answer, error)
    }

    /// Asks the app through `getIDVSelfieProcessStartConfirmation` and waits for
    /// `setIDVSelfieProcessStartConfirmation`, at most `startConfirmationTimeout`; with no
    /// handler installed the start counts as confirmed (the app called initiate itself).
    private func confirmStart(_ request: IDVSelfieStartRequest) async -> StartConfirmations.Answer {
        guard events.hasHandler(for: .getIDVSelfieProcessStartConfirmation) else { return .confirmed }
        let events = self.events
        return await confirmations.wait(workflow: request.workflow, timeout: configuration.startConfirmationTimeout) {
            events.emit(.getIDVSelfieProcessStartConfirmation, request)
        }
    }
}
