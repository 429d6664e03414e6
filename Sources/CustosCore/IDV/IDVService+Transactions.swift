import Foundation

/// Consent to store a biometric template.
public struct BiometricConsent: Sendable, Equatable {
    public var accepted: Bool
    /// Which consent text the user saw.
    public var version: String

    public init(accepted: Bool, version: String) {
        self.accepted = accepted
        self.version = version
    }
}

extension IDVService {
    /// Starts a workflow: the transaction waits for the user to confirm the start. Server
    /// biometric authentication and the document scan without a template complete at once
    /// with 600 (no attempt used).
    ///
    /// A user has at most one open transaction: starting one closes the others, and a closed
    /// one whose liveness challenge was out uses an attempt (so re-rolling challenges is not
    /// free). An enrolment needs proof to replace an existing template, and a grant under
    /// `--enrollment grant` (see `authorizeEnrollment`). `sessionID`: the session that asks;
    /// only a match made in that very session is proof (a refusal counts against it).
    /// `deviceID`: the session's device; one the password alone bound may start workflow 8 only,
    /// and its transaction's closing spends its kind's tries (`BiometricAttemptHolder`).
    public func initiate(userID: String, workflow: IDVWorkflow, reason: String?, consent: BiometricConsent?,
                         relyingPartyNonce: String? = nil, sessionID: String? = nil, deviceID: String? = nil) throws -> IDVTransaction {
        let reason = reason ?? workflow.defaultReason
        try checkText(reason, field: "reason")
        if let relyingPartyNonce { try checkText(relyingPartyNonce, field: "rp_nonce") }
        var consentVersion: String?
        if workflow.enrolls {
            guard let consent, consent.accepted else { throw IDVError.consentRequired }
            try checkText(consent.version, field: "consent.version")
            consentVersion = consent.version
        }
        let now = clock.now()
        let holder = try identity.biometricAttemptHolder(deviceID: deviceID, workflow: workflow)
        // The grant or match it uses, the transactions it closes and its audit event go together.
        return try countingRefusals(sessionID: sessionID, userID: userID) { try store.atomically {
            var details = ["workflow": String(workflow.rawValue)]
            var replacesTemplate = false
            if workflow.enrolls {
                let authorization = try authorizeTemplateChange(userID: userID, sessionID: sessionID, now: now)
                replacesTemplate = authorization.replaces
                details["authorized_by"] = authorization.by
            }
            try closeOpenTransactions(userID: userID, now: now)
            var transaction = IDVTransaction(id: identity.newID(), userID: userID, workflow: workflow, reason: reason, state: .awaitingConfirmation,
                                             consentVersion: consentVersion, createdAt: now,
                                             expiresAt: now.addingTimeInterval(policy.transactionLifetime), replacesTemplate: replacesTemplate,
                                             relyingPartyNonce: relyingPartyNonce)
            if let consentVersion { details["consent_version"] = consentVersion }
            if workflow.needsTemplate, try store.template(userID: userID) == nil {
                transaction.state = .completed
                transaction.completedAt = now
                transaction.result = try signed(IDVResult(status: .noTemplate, attemptsLeft: try identity.attemptsLeft(userID: userID, factor: .biometric)),
                                                of: transaction)
                details["status"] = "600"
            }
            try store.createTransaction(transaction)
            if case .unconfirmedDevice(let starter) = holder {
                try store.issue(SingleUseToken(purpose: Purpose.unconfirmedStarter, digest: digester.digest("starter:" + transaction.id),
                                               subject: userID, payload: Data(starter.utf8), expiresAt: transaction.expiresAt.addingTimeInterval(86400)))
            }
            try audit.record(.idvTransactionStarted, userID: userID, transactionID: transaction.id, details: details)
            return transaction
        } }
    }

    /// Runs a template change, counting a refusal for want of proof against the session that
    /// asked (outside the change's database transaction, which the refusal rolls back).
    func countingRefusals<T>(sessionID: String?, userID: String, _ change: () throws -> T) throws -> T {
        do {
            return try change()
        } catch IDVError.templateChangeNeedsProof {
            if let sessionID { try identity.countRefusedTemplateChange(sessionID: sessionID, userID: userID) }
            throw IDVError.templateChangeNeedsProof
        }
    }

    /// The digest under which a MATCHED server biometric authentication is kept as proof for a
    /// template change: the session's own, so that it proves nothing to any other session.
    func recentMatchDigest(sessionID: String) -> Data {
        digester.digest("recent_match:" + sessionID)
    }

    /// Whether an enrolment may start, and on what authority. While a template exists only
    /// proof replaces it: a MATCHED server biometric authentication within the re-enrolment
    /// window made in this same session (so on this device), or a relying-party grant (either
    /// is used up here). Without a template the session suffices, unless the policy asks every
    /// enrolment for a grant.
    func authorizeTemplateChange(userID: String, sessionID: String?, now: Date) throws -> (replaces: Bool, by: String) {
        if try store.template(userID: userID) != nil {
            if let sessionID, try store.consume(purpose: Purpose.recentMatch, digest: recentMatchDigest(sessionID: sessionID), now: now)?
                .subject == userID {
                return (true, "recent_match")
            }
            if try store.consumeAny(purpose: Purpose.enrollmentGrant, subject: userID, now: now) != nil { return (true, "grant") }
            throw IDVError.templateChangeNeedsProof
        }
        switch policy.enrollment {
        case .session:
            return (false, "session")
        case .grant:
            guard try store.consumeAny(purpose: Purpose.enrollmentGrant, subject: userID, now: now) != nil else {
                throw IDVError.enrollmentGrantRequired
            }
            return (false, "grant")
        }
    }

    /// The relying party lets the user enrol once (a first template under `--enrollment
    /// grant`, or a replacement, or an opt-out): a single-use grant that expires, audited with
    /// `actor` (the API key that granted it).
    @discardableResult
    public func grantEnrollment(userID: String, actor: String) throws -> Date {
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(policy.enrollmentGrantLifetime)
        try store.atomically {
            try store.issue(SingleUseToken(purpose: Purpose.enrollmentGrant, digest: Data(random.bytes(count: 32)), subject: userID,
                                           expiresAt: expiresAt))
            try audit.record(.enrollmentGranted, userID: userID, details: ["expires_at": ISO8601DateFormatter().string(from: expiresAt),
                                                                          AuditActor.detail: actor])
        }
        return expiresAt
    }

    /// Ends the user's open transactions (a new one supersedes them); each one whose challenge
    /// was out uses an attempt, as a cancel would.
    private func closeOpenTransactions(userID: String, now: Date) throws {
        for open in try store.openTransactions(userID: userID) {
            _ = try close(open, now: now, why: .superseded)
        }
    }

    /// Closes transactions whose time ran out unanswered (housekeeping): a challenge that was
    /// out and abandoned uses an attempt like a cancel. Returns how many were closed.
    @discardableResult
    public func closeExpiredTransactions(batch: Int = 100) throws -> Int {
        let now = clock.now()
        var closed = 0
        for expired in try store.expiredOpenTransactions(now: now, limit: batch) where try close(expired, now: now, why: .expired) != nil {
            closed += 1
        }
        return closed
    }

    /// Why an open transaction is closed (audited).
    enum Closing: String { case cancelled, superseded, expired }

    /// Moves an open transaction to `cancelled` (240). Once its liveness challenge was out, the
    /// closing uses an attempt (153 when that was the last): the challenge was seen, and a free
    /// cancel would let a script re-roll challenges until one fits a recording. A document
    /// scan's cancel is free: it has no challenge to re-roll and nothing was judged. Nil when
    /// another request moved the transaction first.
    private func close(_ open: IDVTransaction, now: Date, why: Closing) throws -> (IDVTransaction, IDVResult)? {
        // The closing, the attempt it uses and its audit event go together.
        try store.atomically {
            var transaction = open
            let expected = transaction.state
            transaction.state = .cancelled
            transaction.completedAt = now
            var result = IDVResult(status: .userCancelledSelfie, attemptsLeft: try identity.attemptsLeft(userID: transaction.userID, factor: .biometric))
            transaction.result = result
            guard try store.updateTransaction(transaction, expected: expected) else { return nil }
            var attemptUsed = false
            if expected == .challenged && transaction.workflow.takesSelfie,
               let starter = try store.peek(purpose: Purpose.unconfirmedStarter, digest: digester.digest("starter:" + transaction.id), now: now),
               starter.subject == transaction.userID {
                // Started by a device the password alone bound: its kind's tries, never the user's.
                let used = try identity.takeUnconfirmedFaceTry(userID: transaction.userID)
                attemptUsed = used != nil
                result.attempts = attemptUsed ? 1 : 0
                result.attemptsLeft = try identity.concludeUnconfirmedFaceTry(deviceID: String(decoding: starter.payload, as: UTF8.self),
                                                                              userID: transaction.userID, used: used)
                if attemptUsed && result.attemptsLeft == 0 { result.status = .attemptsExhausted }
            } else if expected == .challenged && transaction.workflow.takesSelfie {
                // Inside the transaction there is no waiting for attempts that verdicts in flight
                // hold: with none free the cancel uses none, and answers 153 only to a locked user.
                let used = try identity.takeAttempt(userID: transaction.userID, factor: .biometric)
                if try used != nil || identity.user(id: transaction.userID).isLocked(at: now) {
                    let outcome = try identity.concludeFailedAttempt(userID: transaction.userID, used: used, factor: .biometric)
                    attemptUsed = used != nil
                    result.attempts = attemptUsed ? 1 : 0
                    result.attemptsLeft = outcome.attemptsLeft
                    if outcome.status == .attemptsExhausted {
                        result.status = .attemptsExhausted
                        result.lockedUntil = outcome.lockedUntil
                    }
                }
            }
            result = try signed(result, of: transaction)
            transaction.result = result
            _ = try store.updateTransaction(transaction, expected: .cancelled)
            var details = ["workflow": String(transaction.workflow.rawValue), "attempts_left": String(result.attemptsLeft),
                           "attempt_used": attemptUsed ? "true" : "false"]
            if why != .cancelled { details[why.rawValue] = "true" }
            try audit.record(.idvCancelled, userID: transaction.userID, transactionID: transaction.id, details: details)
            return (transaction, result)
        }
    }

    /// The user confirmed the start: a selfie workflow gets its liveness challenge (single-use
    /// nonce, random actions, time window); a document scan the upload of the document's
    /// images, until the transaction expires.
    public func confirm(userID: String, transactionID: String) throws -> ConfirmedStart {
        var transaction = try ownTransaction(userID: userID, id: transactionID)
        let now = clock.now()
        guard transaction.state == .awaitingConfirmation else { throw IDVError.transactionState(transaction.state) }
        guard transaction.expiresAt > now else { throw IDVError.transactionExpired }
        guard transaction.workflow.takesSelfie else {
            transaction.state = .challenged
            guard try store.updateTransaction(transaction, expected: .awaitingConfirmation) else {
                throw IDVError.transactionState(try store.transaction(id: transactionID)?.state ?? .cancelled)
            }
            return .document(DocumentCapture(transactionID: transaction.id, workflow: transaction.workflow,
                                             maximumImageBytes: policy.liveness.maximumFrameBytes,
                                             maximumImagePixels: policy.maximumFramePixels, expiresAt: transaction.expiresAt))
        }
        let liveness = policy.liveness
        let challenge = LivenessChallenge(actions: drawActions(), minimumDuration: liveness.minimumDuration,
                                          maximumDuration: liveness.maximumDuration, pause: drawPause())
        let expiresAt = min(transaction.expiresAt, now.addingTimeInterval(liveness.challengeLifetime))
        let nonce = Data(random.bytes(count: 32)).base64URLEncodedString
        transaction.state = .challenged
        transaction.challenge = challenge
        transaction.challengeIssuedAt = now
        transaction.expiresAt = expiresAt
        guard try store.updateTransaction(transaction, expected: .awaitingConfirmation) else {
            throw IDVError.transactionState(try store.transaction(id: transactionID)?.state ?? .cancelled)
        }
        try store.issue(SingleUseToken(purpose: Purpose.challengeNonce, digest: digester.digest(nonce), subject: userID,
                                       payload: Data(transaction.id.utf8), expiresAt: expiresAt))
        return .selfie(IssuedChallenge(transactionID: transaction.id, workflow: transaction.workflow, nonce: nonce, challenge: challenge,
                                       expiresAt: expiresAt, minimumFrames: liveness.minimumFrames, maximumFrames: liveness.maximumFrames,
                                       maximumFrameBytes: liveness.maximumFrameBytes))
    }

    /// The user declined the start (240, no attempt used, as the seed says) or cancelled the
    /// capture once the challenge was out (240, and an attempt used; 153 when it was the last).
    public func cancel(userID: String, transactionID: String) throws -> (transaction: IDVTransaction, result: IDVResult) {
        let transaction = try ownTransaction(userID: userID, id: transactionID)
        guard transaction.state == .awaitingConfirmation || transaction.state == .challenged else {
            throw IDVError.transactionState(transaction.state)
        }
        guard let closed = try close(transaction, now: clock.now(), why: .cancelled) else {
            throw IDVError.transactionState(try store.transaction(id: transactionID)?.state ?? .cancelled)
        }
        return closed
    }

    /// Any user's transaction, for the relying party (API key).
    public func transaction(id: String) throws -> IDVTransaction {
        guard id.utf8.count <= 64, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              let transaction = try store.transaction(id: id) else { throw IDVError.transactionNotFound }
        return transaction
    }

    /// A transaction as a relying party reads it: its verdict is for the key that created the
    /// user (and administrators); to any other key it reads as not found.
    public func transaction(id: String, readBy key: APIKey) throws -> IDVTransaction {
        let transaction = try transaction(id: id)
        let owner = try identity.user(id: transaction.userID).createdBy
        guard key.scope == .admin || owner == key.id else {
            throw IDVError.transactionNotFound
        }
        return transaction
    }

    /// The user's own transaction; someone else's reads as not found.
    public func ownTransaction(userID: String, id: String) throws -> IDVTransaction {
        let transaction = try transaction(id: id)
        guard transaction.userID == userID else { throw IDVError.transactionNotFound }
        return transaction
    }

    /// `actionsPerChallenge` actions from the allowed set, never the same twice in a row.
    func drawActions() -> [LivenessAction] {
        let allowed = policy.liveness.allowedActions
        var actions: [LivenessAction] = []
        while actions.count < policy.liveness.actionsPerChallenge {
            let candidates = allowed.filter { $0 != actions.last }
            let pick = candidates.isEmpty ? allowed : candidates
            actions.append(pick[random.uniform(below: pick.count)])
        }
        return actions
    }

    /// A pause from the policy's range, in tenths of a second.
    func drawPause() -> TimeInterval {
        let range = policy.liveness.pauseRange
        let steps = Int(((range.upperBound - range.lowerBound) * 10).rounded())
        guard steps > 0 else { return range.lowerBound }
        return range.lowerBound + Double(random.uniform(below: min(steps, 255) + 1)) / 10
    }

    func checkText(_ text: String, field: String) throws {
        guard !text.isEmpty, text.count <= policy.maximumReasonLength else {
            throw IDVError.invalidInput(field: field, reason: "must have 1-\(policy.maximumReasonLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw IDVError.invalidInput(field: field, reason: "must not contain control characters")
        }
    }
}
