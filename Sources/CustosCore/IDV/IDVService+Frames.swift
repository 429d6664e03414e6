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
        let nonceAccepted = try store.atomically {
            guard let issued = try store.peek(purpose: Purpose.challengeNonce, digest: digest, now: now),
                  issued.subject == userID, issued.payload == Data(transaction.id.utf8),
                  try store.consume(purpose: Purpose.challengeNonce, digest: digest, now: now) != nil else {
                try audit.record(.idvReplayRejected, userID: userID, transactionID: transaction.id)
                return false
            }
            return true
        }
        guard nonceAccepted else { throw IDVError.challengeRejected }

        // Claimed before any side effect, so a cancel cannot slip in while the frames are judged.
        transaction.state = .judging
        guard try store.updateTransaction(transaction, expected: .challenged) else {
            throw IDVError.transactionState(try store.transaction(id: transaction.id)?.state ?? .cancelled)
        }
        // The attempt is taken before the frames are judged, so parallel submissions cannot
        // be judged more often than the attempts allow; none left: nothing is judged.
        let used = try identity.takeAttempt(userID: userID)
        do {
            let assessment = try used == nil ? nil : assess(transaction, challenge: challenge, frames: frames, document: document, now: now)
            // The verdict, what it changes (attempts, template, lock) and its audit events
            // commit together or not at all.
            return try store.atomically {
                let result = try signed(try conclude(transaction, assessment, used: used, now: now), of: transaction)
                transaction.state = .completed
                transaction.completedAt = clock.now()
                transaction.result = result
                guard try store.updateTransaction(transaction, expected: .judging) else { throw IDVError.transactionState(.completed) }
                try recordVerdict(result, of: transaction, liveness: assessment.flatMap { $0.noTemplate ? nil : $0.verdict })
                return (transaction, result)
            }
        } catch {
            // Nothing was concluded: the attempt is given back, the nonce stays spent and the
            // transaction goes back to where the client can cancel it.
            if used != nil { try? identity.giveBackAttempt(userID: userID) }
            transaction.state = .challenged
            _ = try? store.updateTransaction(transaction, expected: .judging)
            throw error
        }
    }

    private func recordVerdict(_ result: IDVResult, of transaction: IDVTransaction, liveness: LivenessVerdict?) throws {
        var details = ["workflow": String(transaction.workflow.rawValue), "status": String(result.status.rawValue)]
        if let liveness { details["liveness"] = liveness.failure?.rawValue ?? "passed" }
        if let decision = result.decision { details["decision"] = decision.rawValue }
        details["attempts_left"] = String(result.attemptsLeft)
        try audit.record(.idvVerdict, userID: transaction.userID, transactionID: transaction.id, details: details)
        if result.templateCreated {
            try audit.record(transaction.replacesTemplate ? .templateReplaced : .enrollment, userID: transaction.userID,
                             transactionID: transaction.id,
                             details: ["workflow": String(transaction.workflow.rawValue), "consent_version": transaction.consentVersion ?? ""])
        }
    }

    /// What the frames show, worked out before anything is written: the liveness verdict and,
    /// once it passed, the template the capture makes and its distance to what it is compared
    /// with (the stored template, or the document portrait).
    struct Assessment {
        var verdict: LivenessVerdict
        /// The capture's template (nil when liveness failed, or there is nothing to compare with).
        var template: BiometricTemplate?
        var distance: Double?
        /// Workflow 8 for a user whose template is gone.
        var noTemplate = false
    }

    /// Liveness, then the workflow's comparison: the costly part (face analysis, the document
    /// portrait), so it runs outside the database transaction. Every frame is analysed before
    /// the replay check so that a corrupt frame is named as such (422 image_unreadable).
    private func assess(_ transaction: IDVTransaction, challenge: LivenessChallenge, frames: [CapturedFrame], document: Data?,
                        now: Date) throws -> Assessment {
        if transaction.workflow == .serverBiometricAuthentication, try store.template(userID: transaction.userID) == nil {
            return Assessment(verdict: .pass("no template"), noTemplate: true)
        }
        let digests = frames.map { digester.digest(bytes: $0.jpeg) }
        let analysed = try analyse(frames, digests: digests)
        var judged = challenge
        if let issuedAt = transaction.challengeIssuedAt {
            // The capture cannot have lasted longer than the challenge has existed.
            judged.maximumDuration = min(judged.maximumDuration, now.timeIntervalSince(issuedAt) + 1)
        }
        let verdict = try replayedTake(analysed.map(\.fingerprint), transaction: transaction, now: now)
            ?? liveness.evaluate(analysed, challenge: judged)
        guard verdict.passed else { return Assessment(verdict: verdict) }
        let template = try FrameRanking.template(from: analysed.compactMap(\.faces.first), count: policy.templateFrames)
        switch transaction.workflow {
        case .serverBiometricAuthentication:
            guard let sealed = try store.template(userID: transaction.userID) else { return Assessment(verdict: verdict, noTemplate: true) }
            let distance = FrameRanking.distance(probe: template, template: try vault.open(sealed))
            return Assessment(verdict: verdict, template: template, distance: distance)
        case .biometricOptIn:
            return Assessment(verdict: verdict, template: template)
        case .kyc:
            let portrait = try documentPortrait(document ?? Data())
            return Assessment(verdict: verdict, template: template, distance: template.mean.distance(to: portrait))
        }
    }

    /// The descriptor of the largest face on the identity document.
    private func documentPortrait(_ document: Data) throws -> FaceDescriptor {
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
        return descriptor
    }

    // MARK: Workflows

    /// The verdict and what it changes, inside the transaction. `used` is the attempt taken
    /// for this submission (nil: none was left, nothing was judged). A failure (liveness
    /// failed, not matched) keeps it, so failed enrolments are no free oracle for tuning a
    /// spoof either; a match starts the count again; an enrolment or a missing template gives
    /// it back.
    private func conclude(_ transaction: IDVTransaction, _ assessment: Assessment?, used: Int64?, now: Date) throws -> IDVResult {
        let userID = transaction.userID
        guard let assessment else {
            return try failure(userID: userID, used: used, IDVResult(status: .attemptsExhausted, attemptsLeft: 0))
        }
        if assessment.noTemplate {
            try identity.giveBackAttempt(userID: userID)
            return IDVResult(status: .noTemplate, attemptsLeft: try identity.attemptsLeft(userID: userID))
        }
        guard assessment.verdict.passed, let template = assessment.template else {
            return try failure(userID: userID, used: used, IDVResult(status: .success, decision: .livenessFailed,
                                                                     livenessFailure: assessment.verdict.failure, attemptsLeft: 0))
        }
        if let distance = assessment.distance, distance > policy.matchThreshold {
            return try failure(userID: userID, used: used, IDVResult(status: .success, decision: .notMatched, distance: Self.rounded(distance),
                                                                     threshold: policy.matchThreshold, attemptsLeft: 0))
        }
        var result = IDVResult(status: .success, decision: .matched, distance: assessment.distance.map(Self.rounded),
                               threshold: policy.matchThreshold, attempts: 1, attemptsLeft: 0)
        switch transaction.workflow {
        case .serverBiometricAuthentication:
            try identity.resetAttempts(userID: userID)
            // This match is the proof that lets the user replace the template within the window.
            try store.revokeAll(purpose: Purpose.recentMatch, subject: userID)
            try store.issue(SingleUseToken(purpose: Purpose.recentMatch, digest: Data(random.bytes(count: 32)), subject: userID,
                                           expiresAt: clock.now().addingTimeInterval(policy.reenrollmentWindow)))
        case .biometricOptIn:
            result = IDVResult(status: .success, decision: .enrolled, templateCreated: true, attempts: 1, attemptsLeft: 0)
            try saveTemplate(template, for: transaction, now: now)
            try identity.giveBackAttempt(userID: userID)
        case .kyc:
            result.templateCreated = true
            try saveTemplate(template, for: transaction, now: now)
            try identity.giveBackAttempt(userID: userID)
        }
        result.attemptsLeft = try identity.attemptsLeft(userID: userID)
        return result
    }

    /// A failed factor: the attempt taken for it stays used, and the user is locked when it
    /// was the last (status 153).
    private func failure(userID: String, used: Int64?, _ result: IDVResult) throws -> IDVResult {
        var result = result
        let outcome = try identity.concludeFailedAttempt(userID: userID, used: used)
        result.attempts = used == nil ? 0 : 1
        result.attemptsLeft = outcome.attemptsLeft
        if outcome.status == .attemptsExhausted { result.status = .attemptsExhausted }
        return result
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
