import CustosCrypto
import Foundation

/// The master key that seals, and — while the master key is being rotated — the one before
/// it, which still opens what it sealed (`previous_master_key_file`). Everything is sealed
/// under `primary`; opening tries `primary` first and the previous key only when that fails
/// authentication, so a node can run through the rotation without failing on either.
public struct MasterKeys: Sendable, CustomStringConvertible {
    /// The name under which the data records the id of the master key it is sealed with
    /// (`ServerMetadataStore`).
    public static let metadataName = "master_key_id"

    public let primary: MasterKey
    public let previous: MasterKey?

    public init(primary: MasterKey, previous: MasterKey? = nil) {
        self.primary = primary
        self.previous = previous
    }

    /// `plaintext` sealed under the primary key's key for `purpose`.
    func seal(_ plaintext: Data, purpose: String, associatedData: Data) throws -> Data {
        try primary.seal(plaintext, purpose: purpose, associatedData: associatedData)
    }

    /// Opens under the primary key's key for `purpose`, then, when that fails authentication,
    /// under the previous key's. Throws `CryptoError.authenticationFailed` when neither opens it.
    func open(_ sealed: Data, purpose: String, associatedData: Data) throws -> Data {
        do {
            return try primary.open(sealed, purpose: purpose, associatedData: associatedData)
        } catch CryptoError.authenticationFailed {
            guard let previous else { throw CryptoError.authenticationFailed }
            return try previous.open(sealed, purpose: purpose, associatedData: associatedData)
        }
    }

    /// Shows only the key ids.
    public var description: String {
        "MasterKeys(primary: \(primary.keyID)" + (previous.map { ", previous: \($0.keyID)" } ?? "") + ")"
    }
}

extension MasterKey {
    /// AES-256-GCM under the key derived for `purpose`, `associatedData` bound in; the derived
    /// key lives only for the call.
    func seal(_ plaintext: Data, purpose: String, associatedData: Data) throws -> Data {
        var key = deriveKey(purpose: purpose)
        defer { OpenSSL.cleanse(&key) }
        return try AESGCM.seal(plaintext: plaintext, key: key, aad: associatedData)
    }

    /// Opens what `seal` sealed for the same `purpose` and `associatedData`; throws
    /// `CryptoError.authenticationFailed` for another key, purpose or associated data.
    func open(_ sealed: Data, purpose: String, associatedData: Data) throws -> Data {
        var key = deriveKey(purpose: purpose)
        defer { OpenSSL.cleanse(&key) }
        return try AESGCM.open(combined: sealed, key: key, aad: associatedData)
    }
}
