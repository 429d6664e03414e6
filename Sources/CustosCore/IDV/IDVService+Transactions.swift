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
    /// Starts a selfie workflow: the transaction waits for the user to confirm the start.
    /// Server biometric authentication without a template completes at once with 600 (no
    /// attempt used).
    public func initiate(userID: String, workflow: IDVWorkflow, reason: String?, consent: BiometricConsent?) throws -> IDVTransaction {
        let reason = reason ?? workflow.defaultReason
        try checkText(reason, field: "reason")
        var consentVersion: String?
        if workflow.enrolls {
            guard let consent, consent.accepted else { throw IDVError.consentRequired }
            try checkText(consent.version, field: "consent.version")
            consentVersion = consent.version
        }
        let now = clock.now()
        var transaction = IDVTransaction(id: identity.newID(), userID: userID, workflow: workflow, reason: reason, state: .awaitingConfirmation,
                                         consentVersion: consentVersion, createdAt: now,
                                         expiresAt: now.addingTimeInterval(policy.transactionLifetime))
        var details = ["workflow": String(workflow.rawValue)]
        if let consentVersion { details["consent_version"] = consentVersion }
        if workflow == .serverBiometricAuthentication, try store.template(userID: userID) == nil {
            transaction.state = .completed
            transaction.completedAt = now
            transaction.result = IDVResult(status: .noTemplate, attemptsLeft: try identity.attemptsLeft(userID: userID))
            details["status"] = "600"
        }
        try store.createTransaction(transaction)
        try audit.record(.idvTransactionStarted, userID: userID, transactionID: transaction.id, details: details)
        return transaction
    }

    /// The user confirmed the start: issues the liveness challenge (single-use nonce, random
    /// actions, time window).
    public func confirm(userID: String, transactionID: String) throws -> IssuedChallenge {
        var transaction = try ownTransaction(userID: userID, id: transactionID)
        let now = clock.now()
        guard transaction.state == .awaitingConfirmation else { throw IDVError.transactionState(transaction.state) }
        guard transaction.expiresAt > now else { throw IDVError.transactionExpired }
        let liveness = policy.liveness
        let challenge = LivenessChallenge(actions: drawActions(), minimumDuration: liveness.minimumDuration,
                                          maximumDuration: liveness.maximumDuration)
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
        return IssuedChallenge(transactionID: transaction.id, workflow: transaction.workflow, nonce: nonce, challenge: challenge,
                               expiresAt: expiresAt, minimumFrames: liveness.minimumFrames, maximumFrames: liveness.maximumFrames,
                               maximumFrameBytes: liveness.maximumFrameBytes)
    }

    /// The user declined the start or cancelled the capture: the transaction closes with 240
    /// and uses no attempt.
    public func cancel(userID: String, transactionID: String) throws -> (transaction: IDVTransaction, result: IDVResult) {
        var transaction = try ownTransaction(userID: userID, id: transactionID)
        let expected = transaction.state
        guard expected == .awaitingConfirmation || expected == .challenged else { throw IDVError.transactionState(expected) }
        let now = clock.now()
        transaction.state = .cancelled
        transaction.completedAt = now
        let result = IDVResult(status: .cancelled, attemptsLeft: try identity.attemptsLeft(userID: userID))
        transaction.result = result
        guard try store.updateTransaction(transaction, expected: expected) else {
            throw IDVError.transactionState(try store.transaction(id: transactionID)?.state ?? .cancelled)
        }
        try audit.record(.idvCancelled, userID: userID, transactionID: transaction.id,
                         details: ["workflow": String(transaction.workflow.rawValue)])
        return (transaction, result)
    }

    /// The user's own transaction; someone else's reads as not found.
    public func ownTransaction(userID: String, id: String) throws -> IDVTransaction {
        guard id.utf8.count <= 64, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
              let transaction = try store.transaction(id: id), transaction.userID == userID else { throw IDVError.transactionNotFound }
        return transaction
    }

    /// `actionsPerChallenge` actions from the allowed set, never the same twice in a row.
    func drawActions() -> [LivenessAction] {
        let allowed = policy.liveness.allowedActions
        var actions: [LivenessAction] = []
        while actions.count < policy.liveness.actionsPerChallenge {
            let candidates = allowed.filter { $0 != actions.last }
            let pick = candidates.isEmpty ? allowed : candidates
            actions.append(pick[uniform(below: pick.count)])
        }
        return actions
    }

    /// A uniformly random index below `count` (rejection sampling, no modulo bias).
    func uniform(below count: Int) -> Int {
        let limit = 256 - 256 % count
        while true {
            let byte = Int(random.bytes(count: 1)[0])
            if byte < limit { return byte % count }
        }
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
