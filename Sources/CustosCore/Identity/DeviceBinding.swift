/// How a device came to be bound to its user: what the server verified before it accepted the
/// device's key. A device bound by the password alone proves no more than the password did, so
/// it signs in at the password's level and cannot answer for a bound device (level 3, approving
/// another device, unbinding one) until one of the other proofs confirms it.
public enum DeviceBinding: String, Sendable, CaseIterable {
    /// The user's activation code: the first device.
    case activation
    /// A registration code the relying party or an administrator issued for the user.
    case registrationCode = "registration_code"
    /// The user's password alone (only where the operator turned password registration on).
    case password
    /// Approved, with number matching, on a device already bound to the user.
    case deviceApproval = "device_approval"
    /// A server face match with liveness against the enrolled template (workflow 8), taken in
    /// the session of a device bound by the password alone: it confirms that device.
    case faceMatch = "face_match"
    /// A passkey registered in the session of a confirmed device, with the password again.
    case passkey
    /// Bound before the server recorded how (an earlier version): taken as confirmed.
    case unrecorded

    /// Whether the device answers for a bound device: every proof but the password alone.
    public var isConfirmed: Bool { self != .password }
}
