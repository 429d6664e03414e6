import Foundation

extension IDVService {
    /// What a capture shows, worked out before anything is written: the liveness verdict and,
    /// once it passed, the template the capture makes and its distance to what it is compared
    /// with (the stored template, or the document portrait).
    struct Assessment {
        /// Nil for a workflow without a selfie (the document scan judges no liveness).
        var verdict: LivenessVerdict?
        /// The capture's template (nil when liveness failed, or there is no selfie).
        var template: BiometricTemplate?
        var distance: Double?
        /// Workflows 7 and 8 for a user whose template is gone.
        var noTemplate = false
    }

    /// Judges a capture the client sent for a `challenged` transaction. The transaction is
    /// claimed first (`judging`), so a cancel cannot slip in; then one attempt is taken before
    /// anything is judged, so parallel submissions cannot be judged more often than the
    /// attempts allow (none left: nothing is judged, 153). `assess` (the costly part: face
    /// analysis) runs outside the database transaction; the verdict, what it changes
    /// (attempts, template, lock), its audit events and what `keep` stores with it commit
    /// together or not at all. When anything throws nothing was concluded: the attempt is
    /// given back and the transaction goes back to where the client can cancel it.
    ///
    /// `holder`: whose attempts the capture spends (a device the password alone bound spends
    /// its own tries, never the user's: see `BiometricAttemptHolder`).
    func judge(_ claimed: IDVTransaction, now: Date, holder: BiometricAttemptHolder = .user, assess: (IDVTransaction) throws -> Assessment,
               keep: (IDVTransaction, IDVResult) throws -> Void = { _, _ in }) throws -> (transaction: IDVTransaction, result: IDVResult) {
        var transaction = claimed
        let userID = transaction.userID
        transaction.state = .judging
        guard try store.updateTransaction(transaction, expected: .challenged) else {
            throw IDVError.transactionState(try store.transaction(id: transaction.id)?.state ?? .cancelled)
        }
        let used = try takeAttempt(holder, userID: userID)
        do {
            let assessment = try used == nil ? nil : assess(transaction)
            return try store.atomically {
                let result = try signed(try conclude(transaction, assessment, used: used, holder: holder, now: now), of: transaction)
                transaction.state = .completed
                transaction.completedAt = clock.now()
                transaction.result = result
                guard try store.updateTransaction(transaction, expected: .judging) else { throw IDVError.transactionState(.completed) }
                try recordVerdict(result, of: transaction, liveness: assessment.flatMap { $0.noTemplate ? nil : $0.verdict })
                try keep(transaction, result)
                return (transaction, result)
            }
        } catch {
            if used != nil { try? giveBackAttempt(holder, userID: userID) }
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

    /// The verdict and what it changes, inside the transaction. `used` is the attempt taken
    /// for this submission (nil: none was left, nothing was judged). A failure (liveness
    /// failed, not matched) keeps it, so failed enrolments and document scans are no free
    /// oracle either; a server biometric match starts the count again; an enrolment, a
    /// document match or a missing template gives it back.
    private func conclude(_ transaction: IDVTransaction, _ assessment: Assessment?, used: Int64?, holder: BiometricAttemptHolder,
                          now: Date) throws -> IDVResult {
        let userID = transaction.userID
        guard let assessment else {
            return try failure(userID: userID, used: used, holder: holder, IDVResult(status: .attemptsExhausted, attemptsLeft: 0))
        }
        if assessment.noTemplate {
            try giveBackAttempt(holder, userID: userID)
            return IDVResult(status: .noTemplate, attemptsLeft: try attemptsLeft(holder, userID: userID))
        }
        if let verdict = assessment.verdict, !verdict.passed || assessment.template == nil {
            return try failure(userID: userID, used: used, holder: holder, IDVResult(status: .success, decision: .livenessFailed,
                                                                                     livenessFailure: verdict.failure, attemptsLeft: 0))
        }
        if let distance = assessment.distance, distance > policy.matchThreshold {
            return try failure(userID: userID, used: used, holder: holder, IDVResult(status: .success, decision: .notMatched,
                                                                                     distance: Self.rounded(distance),
                                                                                     threshold: policy.matchThreshold, attemptsLeft: 0))
        }
        var result = IDVResult(status: .success, decision: .matched, distance: assessment.distance.map(Self.rounded),
                               threshold: policy.matchThreshold, attempts: 1, attemptsLeft: 0)
        switch transaction.workflow {
        case .serverBiometricAuthentication:
            try identity.resetAttempts(userID: userID, factor: .biometric)
        case .notificationStepUp:
            // The proof answers one notification action; it is no grant to replace the template.
            try identity.resetAttempts(userID: userID, factor: .biometric)
        case .biometricOptIn, .kyc:
            guard let template = assessment.template else { throw FaceError(.noFace, "the capture made no template") }
            if transaction.workflow == .biometricOptIn {
                result = IDVResult(status: .success, decision: .enrolled, templateCreated: true, attempts: 1, attemptsLeft: 0)
            } else {
                result.templateCreated = true
            }
            try saveTemplate(template, for: transaction, now: now)
            try identity.giveBackAttempt(userID: userID, factor: .biometric)
        case .additionalDocumentScan:
            // A document is a photograph, not a live face: its match neither starts the count
            // again (a photo of the user must not buy selfie attempts) nor proves enough to
            // replace the template. It only returns the attempt it took.
            try identity.giveBackAttempt(userID: userID, factor: .biometric)
        }
        if case .unconfirmedDevice = holder {
            // The device's try stays counted, as its failures do; its lease ends.
            try identity.keepUnconfirmedFaceTry(userID: userID, used: used)
        }
        result.attemptsLeft = try attemptsLeft(holder, userID: userID)
        return result
    }

    private func takeAttempt(_ holder: BiometricAttemptHolder, userID: String) throws -> Int64? {
        switch holder {
        case .user: try identity.awaitAttempt(userID: userID, factor: .biometric)
        case .unconfirmedDevice: try identity.takeUnconfirmedFaceTry(userID: userID)
        }
    }

    private func giveBackAttempt(_ holder: BiometricAttemptHolder, userID: String) throws {
        switch holder {
        case .user: try identity.giveBackAttempt(userID: userID, factor: .biometric)
        case .unconfirmedDevice: try identity.giveBackUnconfirmedFaceTry(userID: userID)
        }
    }

    private func attemptsLeft(_ holder: BiometricAttemptHolder, userID: String) throws -> Int {
        switch holder {
        case .user: try identity.attemptsLeft(userID: userID, factor: .biometric)
        case .unconfirmedDevice: try identity.unconfirmedFaceTriesLeft(userID: userID)
        }
    }

    /// A failed factor: the attempt taken for it stays used, and the user is locked when it
    /// was the last (status 153).
    private func failure(userID: String, used: Int64?, holder: BiometricAttemptHolder, _ result: IDVResult) throws -> IDVResult {
        var result = result
        if case .unconfirmedDevice(let deviceID) = holder {
            // Such devices' own tries: the last one unbinds the device, and the user stays unlocked.
            result.attempts = used == nil ? 0 : 1
            result.attemptsLeft = try identity.concludeUnconfirmedFaceTry(deviceID: deviceID, userID: userID, used: used)
            if result.attemptsLeft == 0 { result.status = .attemptsExhausted }
            return result
        }
        let outcome = try identity.concludeFailedAttempt(userID: userID, used: used, factor: .biometric)
        result.attempts = used == nil ? 0 : 1
        result.attemptsLeft = outcome.attemptsLeft
        if outcome.status == .attemptsExhausted {
            result.status = .attemptsExhausted
            result.lockedUntil = outcome.lockedUntil
        }
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

    /// Keeps a MATCHED server biometric authentication as the proof that lets `sessionID` (and
    /// no other session) replace or delete the template within the window; any earlier proof of
    /// the user ends. Inside the verdict's transaction.
    func keepRecentMatch(userID: String, sessionID: String) throws {
        try store.revokeAll(purpose: Purpose.recentMatch, subject: userID)
        try store.issue(SingleUseToken(purpose: Purpose.recentMatch, digest: recentMatchDigest(sessionID: sessionID), subject: userID,
                                       expiresAt: clock.now().addingTimeInterval(policy.reenrollmentWindow)))
    }

    /// Distances are reported to four decimals.
    private static func rounded(_ distance: Double) -> Double { (distance * 10000).rounded() / 10000 }
}
