import CustosAPI

/// The assurance table: for each level, what its `acr` requires the server itself to have
/// verified, the `amr` (RFC 8176) it states, and the NIST SP 800-63B authenticator assurance
/// level that meets. Every ID token, access token, step-up result and CIBA token takes its
/// `acr` and `amr` from here, so a claim never says more than the proof behind it.
///
/// `amr` names what was verified for this answer. `hwk` would need a key whose hardware
/// protection the server checked (an attestation with a trusted root), which no Custos device
/// key or passkey registration carries: every device key is `swk`. A device's own
/// user-verification bit is the app's word about its local prompt: it is recorded, never
/// claimed as `user`.
public struct Assurance: Sendable, Equatable {
    public let level: AuthLevel
    /// RFC 8176 methods, in this order.
    public let amr: [String]
    /// NIST SP 800-63B AAL: 0 for none (nothing proved beyond a session).
    public let aal: Int
    /// What the server verified, in words (docs/security.md's table says the same).
    public let requires: String

    public var acr: String { level.acr }

    public static let table: [Assurance] = [
        Assurance(level: .none, amr: [], aal: 0,
                  requires: "nothing beyond the live session of a bound device that answers"),
        Assurance(level: .password, amr: ["pwd"], aal: 1,
                  requires: "the user's password, verified by the server against its Argon2id hash"),
        Assurance(level: .deviceSignature, amr: ["swk"], aal: 1,
                  requires: "a signature by a device key bound to the user, over this challenge or this content; a software key to the server"),
        Assurance(level: .serverBiometric, amr: ["face", "user"], aal: 2,
                  requires: "a live selfie matched by the server against the enrolled template, liveness passed, in a session a bound device key opened"),
    ]

    /// The row of `level`; app-defined and unknown levels claim nothing.
    public static func of(_ level: AuthLevel) -> Assurance {
        table.first { $0.level == level } ?? Assurance(level: level, amr: [], aal: 0, requires: "nothing this server verifies")
    }

    /// Whether an answer at this row meets `asked` (an `acr` value of a request): a known level
    /// whose assurance level is no higher, and at the same assurance level no higher a level.
    public func meets(acr asked: String) -> Bool {
        guard let level = AuthLevel(acr: asked), Self.table.contains(where: { $0.level == level }) else { return false }
        let wanted = Self.of(level)
        return wanted.aal < aal || (wanted.aal == aal && wanted.level.rawValue <= self.level.rawValue)
    }
}
