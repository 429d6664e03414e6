import Foundation

extension IDVService {
    /// Judges the frames answering a challenge: liveness first, then the workflow's purpose
    /// (match against the template; create it; match it against the document portrait).
    /// Workflow 8 failures (not matched, liveness failed) use one of the user's attempts.
    /// `deviceID` is the device whose session sent the frames: a workflow 8 match confirms it
    /// when the password alone had bound it (`IdentityService.confirmByFaceMatch`).
    /// `sessionID`: the session that sent them; a workflow 8 match is proof for a template change
    /// in that session only.
    public func submit(userID: String, transactionID: String, nonce: String, frames: [CapturedFrame],
                       document: Data? = nil, deviceID: String? = nil,
                       sessionID: String? = nil) throws -> (transaction: IDVTransaction, result: IDVResult) {
        let transaction = try ownTransaction(userID: userID, id: transactionID)
        guard transaction.workflow.takesSelfie else { throw IDVError.wrongStep(workflow: transaction.workflow.rawValue) }
        guard transaction.state == .challenged, let challenge = transaction.challenge else {
            throw IDVError.transactionState(transaction.state)
        }
        try checkFrames(frames)
        // Before the nonce is spent: a device the password alone bound spends only its own tries.
        let holder = try identity.biometricAttemptHolder(deviceID: deviceID, workflow: transaction.workflow)
        if transaction.workflow == .kyc {
            guard let document, !document.isEmpty else { throw IDVError.documentMissing }
        }
        guard nonce.utf8.count <= 128 else { throw IDVError.challengeRejected }
        let now = clock.now()
        // Checked before it is spent, so that another transaction's nonce burns nothing.
        let digest = digester.digest(nonce)
        func nonceIsLive() throws -> Bool {
            guard let issued = try store.peek(purpose: Purpose.challengeNonce, digest: digest, now: now) else { return false }
            return issued.subject == userID && issued.payload == Data(transaction.id.utf8)
        }
        guard try nonceIsLive() else {
            try audit.record(.idvReplayRejected, userID: userID, transactionID: transaction.id)
            throw IDVError.challengeRejected
        }
        // Refused before anything is spent (the nonce, an attempt) when the face engine could not
        // start on these frames soon: overload answers at once, and the same upload may be sent
        // again. Admitted, the frames count in the engine's queue until their analysis ends.
        let admission = try faces.admit(calls: frames.count)
        defer { admission.end() }
        let nonceAccepted = try store.atomically {
            guard try nonceIsLive(), try store.consume(purpose: Purpose.challengeNonce, digest: digest, now: now) != nil else {
                try audit.record(.idvReplayRejected, userID: userID, transactionID: transaction.id)
                return false
            }
            return true
        }
        guard nonceAccepted else { throw IDVError.challengeRejected }

        return try judge(transaction, now: now, holder: holder, assess: {
            defer { admission.end() }
            return try assess($0, challenge: challenge, frames: frames, document: document, now: now)
        }) {
            transaction, result in
            guard transaction.workflow == .serverBiometricAuthentication, result.decision == .matched else { return }
            if let sessionID { try keepRecentMatch(userID: userID, sessionID: sessionID) }
            if let deviceID { _ = try identity.confirmByFaceMatch(deviceID: deviceID, userID: userID, transactionID: transaction.id) }
        }
    }

    /// Liveness, then the workflow's comparison: the costly part (face analysis, the document
    /// portrait), so it runs outside the database transaction. Every frame is analysed before
    /// the replay check so that a corrupt frame is named as such (422 image_unreadable).
    private func assess(_ transaction: IDVTransaction, challenge: LivenessChallenge, frames: [CapturedFrame], document: Data?,
                        now: Date) throws -> Assessment {
        if transaction.workflow.matchesTemplate, try store.template(userID: transaction.userID) == nil {
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
        case .serverBiometricAuthentication, .notificationStepUp:
            guard let sealed = try store.template(userID: transaction.userID) else { return Assessment(verdict: verdict, noTemplate: true) }
            let distance = FrameRanking.distance(probe: template, template: try vault.open(sealed))
            return Assessment(verdict: verdict, template: template, distance: distance)
        case .biometricOptIn:
            return Assessment(verdict: verdict, template: template)
        case .kyc:
            let portrait = try documentPortrait(document ?? Data(), what: "document image")
            return Assessment(verdict: verdict, template: template, distance: template.mean.distance(to: portrait))
        case .additionalDocumentScan:
            throw IDVError.wrongStep(workflow: transaction.workflow.rawValue)
        }
    }

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
