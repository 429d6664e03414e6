import Foundation

extension IDVService {
    /// Judges the frames answering a challenge: liveness first, then the workflow's purpose
    /// (match against the template; create it; match it against the document portrait).
    /// Workflow 8 failures (not matched, liveness failed) use one of the user's attempts.
    public func submit(userID: String, transactionID: String, nonce: String, frames: [CapturedFrame],
                       document: Data? = nil) throws -> IDVTransaction {
        var transaction = try ownTransaction(userID: userID, id: transactionID)
        guard transaction.state == .challenged, let challenge = transaction.challenge else {
            throw IDVError.transactionState(transaction.state)
        }
        try checkFrames(frames)
        if transaction.workflow == .kyc {
            guard let document, !document.isEmpty else { throw IDVError.documentMissing }
        }
        guard nonce.utf8.count <= 128 else { throw IDVError.challengeRejected }
        let now = clock.now()
        // Checked before it is spent, so that another transaction's nonce burns nothing.
        let digest = digester.digest(nonce)
        guard let issued = try store.peek(purpose: Purpose.challengeNonce, digest: digest, now: now),
              issued.subject == userID, issued.payload == Data(transaction.id.utf8),
              try store.consume(purpose: Purpose.challengeNonce, digest: digest, now: now) != nil else {
            try audit.record(.idvReplayRejected, userID: userID, transactionID: transaction.id)
            throw IDVError.challengeRejected
        }

        let digests = frames.map { digester.digest(bytes: $0.jpeg) }
        let analysed = try analyse(frames, digests: digests)
        var verdict = try seenBefore(digests, userID: userID, now: now)
            ?? liveness.evaluate(analysed, challenge: challenge)
        if verdict.passed, let issuedAt = transaction.challengeIssuedAt {
            // The capture cannot have lasted longer than the challenge has existed.
            let duration = ChallengeLivenessDetector.seconds(from: analysed[0], to: analysed[analysed.count - 1])
            if duration > now.timeIntervalSince(issuedAt) + 1 {
                verdict = .fail(.timing, "the capture claims to last longer than the challenge has existed")
            }
        }
        let live = analysed.compactMap(\.faces.first)

        var result: IDVResult
        switch transaction.workflow {
        case .serverBiometricAuthentication:
            result = try authenticate(userID: userID, verdict: verdict, live: live)
        case .biometricOptIn:
            result = try enroll(transaction, verdict: verdict, live: live, now: now)
        case .kyc:
            result = try enrollWithDocument(transaction, verdict: verdict, live: live, document: document ?? Data(), now: now)
        }
        transaction.state = .completed
        transaction.completedAt = clock.now()
        transaction.result = result
        guard try store.updateTransaction(transaction, expected: .challenged) else { throw IDVError.transactionState(.completed) }
        var details = ["workflow": String(transaction.workflow.rawValue), "status": String(result.status.rawValue),
                       "liveness": verdict.failure?.rawValue ?? "passed"]
        if let decision = result.decision { details["decision"] = decision.rawValue }
        details["attempts_left"] = String(result.attemptsLeft)
        try audit.record(.idvVerdict, userID: userID, transactionID: transaction.id, details: details)
        if result.templateCreated {
            try audit.record(.enrollment, userID: userID, transactionID: transaction.id,
                             details: ["workflow": String(transaction.workflow.rawValue), "consent_version": transaction.consentVersion ?? ""])
        }
        return transaction
    }

    // MARK: Workflows

    private func authenticate(userID: String, verdict: LivenessVerdict, live: [Face]) throws -> IDVResult {
        guard let sealed = try store.template(userID: userID) else {
            return IDVResult(status: .noTemplate, attemptsLeft: try identity.attemptsLeft(userID: userID))
        }
        guard verdict.passed else {
            return try failedAttempt(userID: userID, IDVResult(status: .success, decision: .livenessFailed,
                                                               livenessFailure: verdict.failure, attemptsLeft: 0))
        }
        let template = try vault.open(sealed)
        let probe = try FrameRanking.template(from: live, count: policy.templateFrames)
        let distance = FrameRanking.distance(probe: probe, template: template)
        let rounded = (distance * 10000).rounded() / 10000
        guard distance <= policy.matchThreshold else {
            return try failedAttempt(userID: userID, IDVResult(status: .success, decision: .notMatched, distance: rounded,
                                                               threshold: policy.matchThreshold, attemptsLeft: 0))
        }
        try identity.resetAttempts(userID: userID)
        return IDVResult(status: .success, decision: .matched, distance: rounded, threshold: policy.matchThreshold, attempts: 1,
                         attemptsLeft: try identity.attemptsLeft(userID: userID))
    }

    private func failedAttempt(userID: String, _ result: IDVResult) throws -> IDVResult {
        var result = result
        let outcome = try identity.recordFailedAttempt(userID: userID)
        result.attempts = 1
        result.attemptsLeft = outcome.attemptsLeft
        if outcome.status == .attemptsExhausted { result.status = .attemptsExhausted }
        return result
    }

    private func enroll(_ transaction: IDVTransaction, verdict: LivenessVerdict, live: [Face], now: Date) throws -> IDVResult {
        let attemptsLeft = try identity.attemptsLeft(userID: transaction.userID)
        guard verdict.passed else {
            return IDVResult(status: .success, decision: .livenessFailed, livenessFailure: verdict.failure, attempts: 1, attemptsLeft: attemptsLeft)
        }
        let template = try FrameRanking.template(from: live, count: policy.templateFrames)
        try store.saveTemplate(try vault.seal(template, userID: transaction.userID, workflow: transaction.workflow,
                                        consentVersion: transaction.consentVersion ?? "", consentAt: transaction.createdAt, now: now))
        return IDVResult(status: .success, decision: .enrolled, templateCreated: true, attempts: 1, attemptsLeft: attemptsLeft)
    }

    private func enrollWithDocument(_ transaction: IDVTransaction, verdict: LivenessVerdict, live: [Face], document: Data,
                                    now: Date) throws -> IDVResult {
        let attemptsLeft = try identity.attemptsLeft(userID: transaction.userID)
        guard verdict.passed else {
            return IDVResult(status: .success, decision: .livenessFailed, livenessFailure: verdict.failure, attempts: 1, attemptsLeft: attemptsLeft)
        }
        let portraits: [Face]
        do {
            portraits = try faces.analyze(document, options: .thorough)
        } catch {
            throw IDVError.imageUnreadable(what: "document image", code: error.code.rawValue)
        }
        guard let portrait = portraits.max(by: { $0.box.width < $1.box.width }), let descriptor = portrait.descriptor else {
            throw IDVError.documentNoFace
        }
        let template = try FrameRanking.template(from: live, count: policy.templateFrames)
        let distance = template.mean.distance(to: descriptor)
        let rounded = (distance * 10000).rounded() / 10000
        guard distance <= policy.matchThreshold else {
            return IDVResult(status: .success, decision: .notMatched, distance: rounded, threshold: policy.matchThreshold, attempts: 1,
                             attemptsLeft: attemptsLeft)
        }
        try store.saveTemplate(try vault.seal(template, userID: transaction.userID, workflow: transaction.workflow,
                                        consentVersion: transaction.consentVersion ?? "", consentAt: transaction.createdAt, now: now))
        return IDVResult(status: .success, decision: .matched, distance: rounded, threshold: policy.matchThreshold,
                         templateCreated: true, attempts: 1, attemptsLeft: attemptsLeft)
    }

    // MARK: Frames

    /// Cheap checks before the nonce is spent: count, size, JPEG signature.
    private func checkFrames(_ frames: [CapturedFrame]) throws {
        let limits = policy.liveness
        guard frames.count >= limits.minimumFrames, frames.count <= limits.maximumFrames else {
            throw IDVError.invalidInput(field: "frames", reason: "must hold \(limits.minimumFrames)-\(limits.maximumFrames) frames, got \(frames.count)")
        }
        for (index, frame) in frames.enumerated() {
            guard frame.jpeg.count <= limits.maximumFrameBytes else { throw IDVError.frameTooLarge(index: index, limit: limits.maximumFrameBytes) }
            guard frame.jpeg.count >= 4, frame.jpeg.prefix(3).elementsEqual([0xFF, 0xD8, 0xFF]) else { throw IDVError.frameNotJPEG(index: index) }
        }
    }

    /// Face analysis of every frame, spread over the engine's workers.
    private func analyse(_ frames: [CapturedFrame], digests: [Data]) throws -> [LivenessFrame] {
        let results = AnalysisResults(count: frames.count)
        DispatchQueue.concurrentPerform(iterations: frames.count) { index in
            let outcome: Result<[Face], FaceError>
            do throws(FaceError) {
                outcome = .success(try faces.analyze(frames[index].jpeg, options: policy.frameOptions))
            } catch {
                outcome = .failure(error)
            }
            results.set(index, outcome)
        }
        return try frames.enumerated().map { index, frame in
            switch results.get(index) {
            case .success(let found):
                return LivenessFrame(capturedAtMilliseconds: frame.capturedAtMilliseconds, digest: digests[index], faces: found)
            case .failure(let error):
                throw IDVError.imageUnreadable(what: "frame \(index + 1)", code: error.code.rawValue)
            case nil:
                throw IDVError.imageUnreadable(what: "frame \(index + 1)", code: FaceError.Code.engineFailure.rawValue)
            }
        }
    }

    /// A replay verdict when a frame was submitted before by this user; remembers the rest.
    private func seenBefore(_ digests: [Data], userID: String, now: Date) throws -> LivenessVerdict? {
        var replayed = false
        for digest in digests {
            var keyed = Data(userID.utf8)
            keyed.append(0)
            keyed.append(digest)
            do {
                try store.issue(SingleUseToken(purpose: Purpose.seenFrame, digest: digester.digest(bytes: keyed), subject: userID,
                                               expiresAt: now.addingTimeInterval(policy.seenFrameMemory)))
            } catch StoreError.duplicate {
                replayed = true
            }
        }
        return replayed ? .fail(.replay, "a frame was submitted before") : nil
    }
}

/// Per-frame outcomes written by concurrent workers.
private final class AnalysisResults: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<[Face], FaceError>?]

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Result<[Face], FaceError>) {
        lock.withLock { values[index] = value }
    }

    func get(_ index: Int) -> Result<[Face], FaceError>? {
        lock.withLock { values[index] }
    }
}
