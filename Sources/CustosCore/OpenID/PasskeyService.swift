import Foundation

/// Passkeys as Custos's own credentials: the signed-in user registers one (WebAuthn's
/// registration ceremony, attestation `none` or `packed` self-attestation), and it then signs
/// the user in to Custos without a user id, and to OpenID clients as a bound device does (the
/// provider's sign-in, `OIDCService`, takes passkeys and device keys through one verifier).
public final class PasskeyService: Sendable {
    public typealias Storage = OIDCStore & IdentityStore & SingleUseTokenStore & AtomicStore

    let store: any Storage
    let identity: IdentityService
    let webAuthn: WebAuthnVerifier
    let digester: any SecretDigester
    let random: any RandomSource
    let clock: any Clock
    let audit: AuditTrail?
    /// The relying party id, the origin and the challenges' lifetime are the provider's.
    let policy: OIDCPolicy

    public init(store: any Storage, identity: IdentityService, keys: any DeviceKeyVerifier, digester: any SecretDigester,
                random: any RandomSource, clock: any Clock, audit: AuditTrail? = nil, policy: OIDCPolicy) {
        self.store = store
        self.identity = identity
        self.webAuthn = WebAuthnVerifier(rpID: policy.rpID, origins: [policy.origin], keys: keys, digester: digester)
        self.digester = digester
        self.random = random
        self.clock = clock
        self.audit = audit
        self.policy = policy
    }

    /// The passkeys of the provider `oidc`: its store, relying party id and origin.
    public convenience init(sharing oidc: OIDCService) {
        self.init(store: oidc.store, identity: oidc.identity, keys: oidc.identity.keys, digester: oidc.digester, random: oidc.random,
                  clock: oidc.clock, audit: oidc.audit, policy: oidc.policy)
    }
}
