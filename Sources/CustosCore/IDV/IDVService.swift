import Foundation

/// Server biometrics: template status, enrollment (opt-in workflow 10, KYC workflow 6),
/// authentication (workflow 8) with a liveness challenge, the additional document scan
/// (workflow 7), opt-out and template key rotation.
///
/// Templates and document images are sealed at rest; nonces, seen frames and attempts change
/// atomically in the store; every transaction, verdict, enrollment, opt-out, rotation and
/// document read goes to the audit trail (never a descriptor, image or secret). Synchronous
/// and thread-safe.
public final class IDVService: Sendable {
    public typealias Storage = IDVTransactionStore & TemplateStore & SingleUseTokenStore & FrameMemoryStore & DocumentStore
        & AtomicStore

    let store: any Storage
    let identity: IdentityService
    let faces: any FaceAnalyzer
    let liveness: any LivenessDetector
    let vault: TemplateVault
    let audit: AuditTrail
    let digester: any SecretDigester
    let random: any RandomSource
    let clock: any Clock
    public let policy: IDVPolicy
    /// Signs each result for the relying party (nil: results are not signed).
    let signer: (any TokenSigner)?
    let verdictSigning: VerdictSigning?

    enum Purpose {
        static let challengeNonce = "idv_nonce"
        /// A MATCHED server biometric authentication, usable once to replace the template.
        static let recentMatch = "idv_recent_match"
        /// A relying party's single-use permission to enrol.
        static let enrollmentGrant = "idv_enrollment_grant"
        /// A transaction a device bound by the password alone started: its closing spends that
        /// kind of device's tries, never the user's attempts (digest of the transaction id,
        /// the device id as payload).
        static let unconfirmedStarter = "idv_unconfirmed_starter"
    }

    public init(store: any Storage, identity: IdentityService, faces: any FaceAnalyzer, liveness: any LivenessDetector,
                cipher: any TemplateCipher, audit: AuditTrail, digester: any SecretDigester, random: any RandomSource,
                clock: any Clock, policy: IDVPolicy, signer: (any TokenSigner)? = nil, verdictSigning: VerdictSigning? = nil) {
        self.store = store
        self.identity = identity
        self.faces = faces
        self.liveness = liveness
        vault = TemplateVault(store: store, cipher: cipher, random: random)
        self.audit = audit
        self.digester = digester
        self.random = random
        self.clock = clock
        self.policy = policy
        self.signer = signer
        self.verdictSigning = verdictSigning
    }

    /// The face engine's queue (nil for an analyzer without one), for `/metrics`.
    public var faceQueue: FaceQueueStatistics? { faces.queueStatistics }

    /// 100 when the user has a template, 600 when not.
    public func templateStatus(userID: String) throws -> TemplateStatus {
        TemplateStatus(userID: userID, exists: try store.template(userID: userID) != nil,
                       attemptsLeft: try identity.attemptsLeft(userID: userID, factor: .biometric))
    }

    /// Deletes the user's template (biometric opt-out); false when there was none. Document
    /// scan images stay: they are identity documents the relying party reviews, not biometric
    /// templates, and go at the end of their retention period or with the user.
    @discardableResult
    ///
    /// Deleting the template needs the proof replacing it needs (a match in this same session,
    /// or the relying party's grant): otherwise a stolen session would delete the face and then
    /// enrol its own where a session suffices for a first template. A refusal counts against
    /// the session.
    public func optOut(userID: String, sessionID: String? = nil) throws -> Bool {
        let now = clock.now()
        return try countingRefusals(sessionID: sessionID, userID: userID) { try store.atomically {
            guard try store.template(userID: userID) != nil else { return false }
            let authorization = try authorizeTemplateChange(userID: userID, sessionID: sessionID, now: now)
            guard try store.deleteTemplate(userID: userID) else { return false }
            try audit.record(.optOut, userID: userID, details: ["authorized_by": authorization.by])
            return true
        } }
    }
}
