import Foundation

/// How IDV verdicts are signed for the relying party.
public struct VerdictSigning: Sendable, Hashable {
    /// `iss`: this server's public base URL.
    public var issuer: String
    /// `aud` of a verdict about a user created without an API key (the key that created the user
    /// is the audience otherwise).
    public var audience: String
    /// Seconds a signed verdict stays valid (`exp - iat`).
    public var lifetime: TimeInterval

    public init(issuer: String, audience: String, lifetime: TimeInterval = 600) {
        self.issuer = issuer
        self.audience = audience
        self.lifetime = lifetime
    }
}

/// The claims of a signed IDV verdict: what happened, to whom, in which transaction, for
/// which relying party and which of its requests (`nonce`). No biometric data.
struct IDVVerdictClaims: Encodable {
    let iss: String
    let sub: String
    let aud: String
    let iat: Int64
    let exp: Int64
    let jti: String
    let transactionID: String
    let workflow: Int
    let statusCode: Int
    let decision: String?
    let livenessPassed: Bool?
    let attemptsLeft: Int
    let purpose: String
    let nonce: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp, jti, workflow, decision, purpose, nonce
        case transactionID = "idv_audit_transaction_id"
        case statusCode = "status_code"
        case livenessPassed = "liveness_passed"
        case attemptsLeft = "attempts_left"
    }

    init(_ transaction: IDVTransaction, _ result: IDVResult, signing: VerdictSigning, audience: String?, now: Date) {
        iss = signing.issuer
        sub = transaction.userID
        aud = audience ?? signing.audience
        iat = Int64(now.timeIntervalSince1970)
        exp = iat + Int64(signing.lifetime)
        jti = transaction.id
        transactionID = transaction.id
        workflow = transaction.workflow.rawValue
        statusCode = result.status.rawValue
        decision = result.decision?.rawValue
        livenessPassed = transaction.workflow.takesSelfie ? result.decision.map { $0 != .livenessFailed } : nil
        attemptsLeft = result.attemptsLeft
        purpose = transaction.reason
        nonce = transaction.relyingPartyNonce
    }
}

extension IDVService {
    /// The JWS typ of signed verdicts.
    public static let verdictType = "custos-idv-verdict+jwt"

    /// `result` with its signed verdict, when the service signs verdicts.
    func signed(_ result: IDVResult, of transaction: IDVTransaction) throws -> IDVResult {
        guard let signer, let signing = verdictSigning else { return result }
        var signed = result
        let now = clock.now()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // For the relying party that reads it: the API key that created the user (the configured
        // audience for a user created without one).
        let audience = try identity.user(id: transaction.userID).createdBy
        signed.signedVerdict = try signer.sign(payload: try encoder.encode(IDVVerdictClaims(transaction, result, signing: signing, audience: audience,
                                                                                            now: now)),
                                               type: Self.verdictType, now: now)
        return signed
    }
}
