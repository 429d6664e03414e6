/// The binding table: for every way a device becomes bound or confirmed, what it requires, what
/// the device may then do, what ends it and who is told. docs/security.md states the same rows
/// (`BindingTableTests` holds them together), and the code reads `startsProbation` and
/// `isConfirmed` from here, so a new way to bind cannot be added without its row.
extension DeviceBinding {
    /// Whether a device bound or confirmed this way starts a probation
    /// (`IdentityPolicy.probation`): every proof that is not another bound device's approval,
    /// except the first activation of a user with no other device.
    public var startsProbation: Bool {
        switch self {
        case .registrationCode, .password, .faceMatch: true
        case .activation, .deviceApproval, .passkey, .unrecorded: false
        }
    }

    /// What the server verified before it bound (or confirmed) the device.
    public var requires: String {
        switch self {
        case .activation: "the user's activation code (single use, 72 h, 5 tries) and a new password; the user's first device"
        case .registrationCode: "a registration code the relying party issued for the user (single use)"
        case .password: "the user's password alone, only where the operator turned `--password-registration` on"
        case .deviceApproval: "a request proved by the password or a registration code, approved on a bound device past its probation: the number it shows typed there and that device's signature"
        case .faceMatch: "a MATCHED server biometric authentication (workflow 8) in the session of a device the password alone bound"
        case .passkey: "a passkey registered in the session of a bound device past its probation, with the password again"
        case .unrecorded: "bound before the server recorded how"
        }
    }

    /// What a device bound (or confirmed) this way may do.
    public var allows: String {
        switch self {
        case .activation, .deviceApproval, .unrecorded: "everything a bound device may: answers at level 3 (acr 3, `swk`)"
        case .registrationCode, .faceMatch: "answers at level 3; on probation: no password change, no unbinding or approving devices, no ending other sessions, no face template change, no passkey"
        case .password: "signs in at acr 1 (`pwd`) only, and nothing on the probation list; its face tries come from one count shared by the user's such devices (the last unbinds it), never the user's attempts"
        case .passkey: "signs in at acr 3 (`swk`) and answers level-1 step-ups with the browser's verification"
        }
    }

    /// What ends the binding (besides deleting the user).
    public var endedBy: String {
        switch self {
        case .password: "a password change or expiry, an unbind, a reset; a registration code or a face match confirms it instead"
        case .registrationCode, .faceMatch: "an unbind (by the user from another device, with one signed answer to the binding notice, or by the relying party), a reset"
        case .activation, .deviceApproval, .passkey, .unrecorded: "an unbind (by the user with the password, or by the relying party), a reset"
        }
    }

    /// Who is told when the device is bound or confirmed.
    public var toldTo: String {
        switch self {
        case .activation, .unrecorded: "the relying party (CAEP `credential-change`)"
        case .passkey: "the relying party (CAEP `credential-change`, `fido2-platform`)"
        case .registrationCode, .password, .faceMatch: "the user's other devices (a notice with its probation and an unbind) and the relying party (CAEP `credential-change`)"
        case .deviceApproval: "the user's other devices but the approving one (a notice with an unbind) and the relying party (CAEP `credential-change`)"
        }
    }

    /// The row of docs/security.md's binding table.
    public var tableRow: String {
        "| `\(rawValue)` | \(requires) | \(allows) | \(endedBy) | \(toldTo) |"
    }
}
