import Foundation

extension IDVService {
    /// Judges the frames answering a challenge: liveness first, then the workflow's purpose
    /// (match against the template; create it; match it against the document portrait).
    /// Workflow 8 failures (not matched, liveness failed) use one of the user's attempts.
    public func submit(userID: String, transactionID: String, nonce: String, frames: [CapturedFrame],
                       document: Data? = nil) throws -> (transaction: IDVTransaction, result: IDVResult) {
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

        // Claimed before any side effect, so a cancel cannot slip in while the frames are judged.
        transaction.state = .judging
        guard try store.updateTransaction(transaction, expected: .challenged) else {
            throw IDVError.transactionState(try store.transaction(id: transaction.id)?.state ?? .cancelled)
        }
        let judged: IDVResult, verdict: LivenessVerdict
        do {
            (judged, verdict) = try judge(transaction, challenge: challenge, frames: frames, document: document, now: now)
        } catch {
            // The nonce is spent; the transaction goes back to where the client can cancel it.
            transaction.state = .challenged
            _ = try? store.updateTransaction(transaction, expected: .judging)
            throw error
        }
        transaction.state = .completed
        transaction.completedAt = clock.now()
        let result = try signed(judged, of: transaction)
        transaction.result = result
        guard try store.updateTransaction(transaction, expected: .judging) else { throw IDVError.transactionState(.completed) }
        var details = ["workflow": String(transaction.workflow.rawValue), "status": String(result.status.rawValue),
                       "liveness": verdict.failure?.rawValue ?? "passed"]
        if let decision = result.decision { details["decision"] = decision.rawValue }
        details["attempts_left"] = String(result.attemptsLeft)
        try audit.record(.idvVerdict, userID: userID, transactionID: transaction.id, details: details)
        if result.templateCreated {
            try audit.record(transaction.replacesTemplate ? .templateReplaced : .enrollment, userID: userID, transactionID: transaction.id,
                             details: ["workflow": String(transaction.workflow.rawValue), "consent_version": transaction.consentVersion ?? ""])
        }
        return (transaction, result)
    }

    /// Liveness, then the workflow's purpose. Every frame is analysed before the replay check
    /// so that a corrupt frame is named as such (422 image_unreadable), not as a replay.
    private func judge(_ transaction: IDVTransaction, challenge: LivenessChallenge, frames: [CapturedFrame], document: Data?,
                       now: Date) throws -> (IDVResult, LivenessVerdict) {
        let digests = frames.map { digester.digest(bytes: $0.jpeg) }
        let analysed = try analyse(frames, digests: digests)
        var judged = challenge
        if let issuedAt = transaction.challengeIssuedAt {
            // The capture cannot have lasted longer than the challenge has existed.
            judged.maximumDuration = min(judged.maximumDuration, now.timeIntervalSince(issuedAt) + 1)
        }
        let verdict = try replayedTake(analysed.map(\.fingerprint), transaction: transaction, now: now)
            ?? liveness.evaluate(analysed, challenge: judged)
        let live = analysed.compactMap(\.faces.first)
        let result: IDVResult
        switch transaction.workflow {
        case .serverBiometricAuthentication:
            result = try authenticate(userID: transaction.userID, verdict: verdict, live: live)
        case .biometricOptIn:
            result = try enroll(transaction, verdict: verdict, live: live, now: now)
        case .kyc:
            result = try enrollWithDocument(transaction, verdict: verdict, live: live, document: document ?? Data(), now: now)
        }
        return (result, verdict)
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
        guard distance <= policy.matchThreshold else {
            return try failedAttempt(userID: userID, IDVResult(status: .success, decision: .notMatched, distance: Self.rounded(distance),
                                                               threshold: policy.matchThreshold, attemptsLeft: 0))
        }
        try identity.resetAttempts(userID: userID)
        // This match is the proof that lets the user replace the template within the window.
        try store.revokeAll(purpose: Purpose.recentMatch, subject: userID)
        try store.issue(SingleUseToken(purpose: Purpose.recentMatch, digest: Data(random.bytes(count: 32)), subject: userID,
                                       expiresAt: clock.now().addingTimeInterval(policy.reenrollmentWindow)))
        return IDVResult(status: .success, decision: .matched, distance: Self.rounded(distance), threshold: policy.matchThreshold,
                         attempts: 1, attemptsLeft: try identity.attemptsLeft(userID: userID))
    }

    private func failedAttempt(userID: String, _ result: IDVResult) throws -> IDVResult {
        var result = result
        let outcome = try identity.recordFailedAttempt(userID: userID)
        result.attempts = 1
        result.attemptsLeft = outcome.attemptsLeft
        if outcome.status == .attemptsExhausted { result.status = .attemptsExhausted }
        return result
    }

    /// Opt-in (workflow 10): a live capture makes the template. A failed capture uses an
    /// attempt: failed enrolments must not be a free oracle for tuning a spoof.
    private func enroll(_ transaction: IDVTransaction, verdict: LivenessVerdict, live: [Face], now: Date) throws -> IDVResult {
        guard verdict.passed else {
            return try failedAttempt(userID: transaction.userID, IDVResult(status: .success, decision: .livenessFailed,
                                                                           livenessFailure: verdict.failure, attemptsLeft: 0))
        }
        try saveTemplate(try FrameRanking.template(from: live, count: policy.templateFrames), for: transaction, now: now)
        return IDVResult(status: .success, decision: .enrolled, templateCreated: true, attempts: 1,
                         attemptsLeft: try identity.attemptsLeft(userID: transaction.userID))
    }

    /// KYC (workflow 6): the live capture makes the template only when it matches the document
    /// portrait. A failed liveness check or match uses an attempt.
    private func enrollWithDocument(_ transaction: IDVTransaction, verdict: LivenessVerdict, live: [Face], document: Data,
                                    now: Date) throws -> IDVResult {
        guard verdict.passed else {
            return try failedAttempt(userID: transaction.userID, IDVResult(status: .success, decision: .livenessFailed,
                                                                           livenessFailure: verdict.failure, attemptsLeft: 0))
        }
        var portraits: [Face]
        do {
            var options = FaceOptions.thorough
            options.maxFaces = policy.maximumDocumentFaces
            portraits = try faces.analyze(document, options: options)
            if portraits.isEmpty { portraits = cnnFallback(document, options: options) ?? [] }
        } catch {
            throw IDVError.imageUnreadable(what: "document image", code: error.code.rawValue)
        }
        guard let portrait = portraits.max(by: { $0.box.width < $1.box.width }), let descriptor = portrait.descriptor else {
            throw IDVError.documentNoFace
        }
        let template = try FrameRanking.template(from: live, count: policy.templateFrames)
        let distance = template.mean.distance(to: descriptor)
        guard distance <= policy.matchThreshold else {
            return try failedAttempt(userID: transaction.userID, IDVResult(status: .success, decision: .notMatched,
                                                                           distance: Self.rounded(distance),
                                                                           threshold: policy.matchThreshold, attemptsLeft: 0))
        }
        try saveTemplate(template, for: transaction, now: now)
        return IDVResult(status: .success, decision: .matched, distance: Self.rounded(distance), threshold: policy.matchThreshold,
                         templateCreated: true, attempts: 1, attemptsLeft: try identity.attemptsLeft(userID: transaction.userID))
    }

    /// Saves the template; a template that appeared since the enrolment started is replaced
    /// only if the enrolment was authorised to replace one.
    private func saveTemplate(_ template: BiometricTemplate, for transaction: IDVTransaction, now: Date) throws {
        if !transaction.replacesTemplate, try store.template(userID: transaction.userID) != nil {
            throw IDVError.templateChangeNeedsProof
        }
        try store.saveTemplate(try vault.seal(template, userID: transaction.userID, workflow: transaction.workflow,
                                              consentVersion: transaction.consentVersion ?? "", consentAt: transaction.createdAt, now: now))
    }

    /// Distances are reported to four decimals.
    private static func rounded(_ distance: Double) -> Double { (distance * 10000).rounded() / 10000 }

    // MARK: Frames

    /// Cheap checks before the nonce is spent: count, size, JPEG signature, declared pixels.
    private func checkFrames(_ frames: [CapturedFrame]) throws {
        let limits = policy.liveness
        guard frames.count >= limits.minimumFrames, frames.count <= limits.maximumFrames else {
            throw IDVError.invalidInput(field: "frames", reason: "must hold \(limits.minimumFrames)-\(limits.maximumFrames) frames, got \(frames.count)")
        }
        for (index, frame) in frames.enumerated() {
            guard frame.jpeg.count <= limits.maximumFrameBytes else { throw IDVError.frameTooLarge(index: index, limit: limits.maximumFrameBytes) }
            guard frame.jpeg.count >= 4, frame.jpeg.prefix(3).elementsEqual([0xFF, 0xD8, 0xFF]) else { throw IDVError.frameNotJPEG(index: index) }
            if let size = faces.declaredSize(of: frame.jpeg), size.width * size.height > policy.maximumFramePixels {
                throw IDVError.frameDimensionsTooLarge(index: index, limit: policy.maximumFramePixels)
            }
        }
    }

    /// The faces the CNN detector finds where HOG found none (a turned or dim face); nil when
    /// the CNN model is not loaded or the image fails again.
    func cnnFallback(_ image: Data, options: FaceOptions) -> [Face]? {
        var cnn = options
        cnn.detector = .cnn
        return try? faces.analyze(image, options: cnn)
    }

    /// Face analysis of every frame, spread over the engine's workers; frames where HOG finds
    /// no face get a second look by the CNN detector, at most `cnnFallbackFrames` per take (the
    /// CNN costs a few hundred milliseconds a frame, so a take of empty frames cannot buy many).
    private func analyse(_ frames: [CapturedFrame], digests: [Data]) throws -> [LivenessFrame] {
        let outcomes = ParallelMap.map(frames, threads: frames.count) {
            [faces, policy] frame -> Result<(faces: [Face], fingerprint: FrameFingerprint?), FaceError> in
            do throws(FaceError) {
                return .success(try faces.analyzeFrame(frame.jpeg, options: policy.frameOptions))
            } catch {
                return .failure(error)
            }
        }
        var fallbacks = policy.cnnFallbackFrames
        return try zip(frames, outcomes).enumerated().map { index, pair in
            switch pair.1 {
            case .success(var found):
                if found.faces.isEmpty, fallbacks > 0 {
                    fallbacks -= 1
                    found.faces = cnnFallback(pair.0.jpeg, options: policy.frameOptions) ?? []
                }
                return LivenessFrame(capturedAtMilliseconds: pair.0.capturedAtMilliseconds, digest: digests[index], faces: found.faces,
                                     fingerprint: found.fingerprint)
            case .failure(let error):
                throw IDVError.imageUnreadable(what: "frame \(index + 1)", code: error.code.rawValue)
            }
        }
    }

    /// A replay verdict when the take lines up with one this user submitted before (however
    /// re-encoded, resized, mirrored or reversed: `SequenceReplay`); remembers this take.
    private func replayedTake(_ fingerprints: [FrameFingerprint?], transaction: IDVTransaction, now: Date) throws -> LivenessVerdict? {
        guard policy.seenFrameMemory > 0 else { return nil }
        let userID = transaction.userID
        let replay = policy.liveness.replay
        var replayed = false
        for memory in try store.frameMemories(userID: userID, now: now, limit: policy.seenTakesCompared) {
            // A memory that no longer opens (altered in the database) proves nothing either way;
            // it must not lock the user out of every later authentication.
            guard let earlier = try? vault.openFrames(memory) else { continue }
            if replay.replays(fingerprints, earlier: earlier) {
                replayed = true
                break
            }
        }
        try store.saveFrameMemory(try vault.sealFrames(fingerprints, id: transaction.id, userID: userID, now: now,
                                                       expiresAt: now.addingTimeInterval(policy.seenFrameMemory)))
        return replayed ? .fail(.replay, "the frames replay a take submitted before") : nil
    }
}
