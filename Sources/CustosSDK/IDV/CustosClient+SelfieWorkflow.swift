import CustosAPI
import Foundation

/// How a workflow (a selfie, a document scan) ended: with the server's answer (and the 240
/// error when the user cancelled), or with a failure and no answer.
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
        try await runWorkflow(request, start: .onGetIDVSelfieProcessStartConfirmation, process: "selfie process", event: event) {
            guard let source = frameSource ?? self.configuration.frameSource else {
                throw CustosError.invalidConfiguration("no FrameSource configured for the selfie capture")
            }
            return { transactionID, bearer in try await self.uploadSelfie(transactionID, bearer: bearer, source: source, document: document) }
        }
    }

    /// What a workflow sends once the user confirmed its start: given the transaction's id
    /// and the session's bearer, it returns how the workflow ended.
    typealias Upload = @Sendable (_ transactionID: String, _ bearer: String?) async throws -> SelfieOutcome

    /// Runs a workflow and emits its result `event` exactly once, as `runSelfieWorkflow`
    /// describes: `prepare` checks what the workflow needs before the transaction is started
    /// and gives what it uploads after the user confirmed the start (asked through `start`).
    func runWorkflow(_ request: IDVInitiateRequest, start: CustosEvent<IDVSelfieStartRequest>, process: String,
                     event: CustosEvent<IDVResultEvent>, prepare: () throws -> Upload) async throws -> IDVResultResponse {
        let userID = session.userID ?? ""
        return try await loggingOffAfter {
            let outcome: SelfieOutcome
            do {
                outcome = try await workflow(request, start: start, process: process, upload: try prepare())
            } catch {
                // Cancelled before a transaction existed (or while it was being created): nothing
                // to cancel on the server, but the caller still gets the 240 path.
                outcome = .failed(Task.isCancelled ? CustosError.cancelled("The task awaiting the \(process) was cancelled.")
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
    }

    private func workflow(_ request: IDVInitiateRequest, start: CustosEvent<IDVSelfieStartRequest>, process: String,
                          upload: Upload) async throws -> SelfieOutcome {
        let bearer = session.sessionToken
        let transaction = try await transport.call(Endpoints.initiateIDV, body: request, bearer: bearer)
        if let result = transaction.result { return Self.outcome(result) }
        let asked = IDVSelfieStartRequest(workflow: transaction.workflow, idvAuditTransactionID: transaction.idvAuditTransactionID,
                                          reason: transaction.reason)
        return try await confirmAndUpload(asked, bearer: bearer, start: start, process: process, upload: upload)
    }

    /// The part of a workflow after its transaction exists (started by the app, or by a
    /// notification action of level 4): the app's start confirmation, then the upload.
    func confirmAndUpload(_ asked: IDVSelfieStartRequest, bearer: String?, start: CustosEvent<IDVSelfieStartRequest>, process: String,
                          upload: Upload) async throws -> SelfieOutcome {
        let id = asked.idvAuditTransactionID
        switch await confirmStart(asked, event: start) {
        case .confirmed:
            break
        case .declined:
            return await cancelTransaction(id, bearer: bearer, .cancelled("The user declined the \(process)."))
        case .unanswered:
            let seconds = configuration.startConfirmationTimeout
            return await cancelTransaction(id, bearer: bearer, .cancelled(
                "\(start.name) was not answered within \(String(format: "%g", seconds)) s."))
        case .cancelled:
            return await cancelTransaction(id, bearer: bearer, .cancelled("The task awaiting the \(process) was cancelled."))
        }
        do {
            return try await upload(id, bearer)
        } catch where Task.isCancelled {
            return await cancelTransaction(id, bearer: bearer, .cancelled("The task awaiting the \(process) was cancelled."))
        }
    }

    /// The selfie: the liveness challenge, the camera's frames for it, the verdict.
    func uploadSelfie(_ transactionID: String, bearer: String?, source: any FrameSource, document: Data?) async throws -> SelfieOutcome {
        guard case .selfie(let challenge) = try await transport.call(Endpoints.confirmIDV, transactionID, bearer: bearer) else {
            throw CustosError.invalidResponse("the server answered a selfie workflow's start with a document upload")
        }
        let frames: [CapturedImage]
        do {
            frames = try await source.capture(CaptureRequest(challenge))
        } catch {
            // The camera gave up or the user closed it: the capture was abandoned.
            return await cancelTransaction(transactionID, bearer: bearer, .cancelled("The selfie capture ended without frames: \(error)"))
        }
        try Task.checkCancellation()
        let body = IDVFramesRequest(nonce: challenge.nonce, frames: frames.map { FrameUpload(capturedAtMs: $0.capturedAtMs, image: $0.jpeg) },
                                    documentImage: document)
        let result = try await Self.resendingWhileBusy { [transport] in
            try await transport.call(Endpoints.submitFrames, transactionID, body: body, bearer: bearer)
        }
        return Self.outcome(result)
    }

    /// Times an upload is sent again while the server answers 503 `server_busy`.
    public static let busyResends = 3

    /// Sends `upload` again, the very same body, after the server's `Retry-After` (at most 30 s)
    /// while it answers 503 `server_busy`, up to `busyResends` times; then the error is the
    /// caller's, with `retryAfterSeconds`. A refused upload spent nothing (not its nonce, not an
    /// attempt), while giving up would cost one: a new workflow supersedes a transaction whose
    /// challenge was shown as a cancel does.
    static func resendingWhileBusy<T>(_ upload: () async throws -> T) async throws -> T {
        var resent = 0
        while true {
            do {
                return try await upload()
            } catch let error as CustosError where error.code == "server_busy" && resent < busyResends {
                resent += 1
                try await Task.sleep(for: .seconds(min(30, error.retryAfterSeconds ?? 2)))
            }
        }
    }

    /// A server answer as an outcome: a 240 from the server is the user's cancel too.
    static func outcome(_ result: IDVResultResponse) -> SelfieOutcome {
        .answered(result, result.statusCode == StatusCode.userCancelledSelfie ? .userCancelled : nil)
    }

    /// Cancels the transaction on the server and ends the workflow with `error` (240). The
    /// request runs in a task of its own, so it is sent even when the caller's task was
    /// cancelled (a cancelled task's requests fail at once).
    func cancelTransaction(_ transactionID: String, bearer: String?, _ error: CustosError) async -> SelfieOutcome {
        let transport = self.transport
        // A detached task inherits no task locals: a 153 its answer carries still waits for the call's event.
        let pending = PendingLogoffs.current
        let answer = await Task.detached { () -> IDVResultResponse? in
            await PendingLogoffs.$current.withValue(pending) {
                try? await transport.call(Endpoints.cancelIDV, transactionID, bearer: bearer)
            }
        }.value
        guard let answer else { return .failed(error) }
        return .answered(answer, error)
    }

    /// Asks the app through `event` (`onGetIDVSelfieProcessStartConfirmation`,
    /// `onGetIDVDocumentScanProcessStartConfirmation`) and waits for its answer, at most
    /// `startConfirmationTimeout`; with no handler installed the start counts as confirmed
    /// (the app called initiate itself).
    private func confirmStart(_ request: IDVSelfieStartRequest, event: CustosEvent<IDVSelfieStartRequest>) async -> StartConfirmations.Answer {
        guard events.hasHandler(for: event) else { return .confirmed }
        let events = self.events
        return await confirmations.wait(workflow: request.workflow, timeout: configuration.startConfirmationTimeout) {
            events.emit(event, request)
        }
    }
}
