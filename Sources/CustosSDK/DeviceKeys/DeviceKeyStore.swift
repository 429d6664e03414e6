import CustosAPI
import Foundation

/// A device's signing key: P-256, private part never leaves the store.
public protocol DeviceSigningKey: Sendable {
    /// The public key, as sent at activation.
    var publicKey: PublicKeyJWK { get }
    /// An ES256 signature (raw r‖s, 64 bytes) of `message`.
    func sign(_ message: Data) throws -> Data
}

/// Where device keys live: a file on Linux, the Secure Enclave / keychain on Apple platforms.
/// Keys are per account (server + user), so one app can hold several.
public protocol DeviceKeyStore: Sendable {
    /// The account's key, if one exists.
    func key(for account: String) throws -> (any DeviceSigningKey)?
    /// Creates a new key for the account, replacing any old one.
    func createKey(for account: String) throws -> any DeviceSigningKey
    /// Replaces `account`'s key (if any) with the key of `staging`, which then has none.
    /// Activation creates its key under a staging account and moves it only once the server
    /// has accepted it, so a failed activation leaves the working key as it was.
    func moveKey(from staging: String, to account: String) throws
    func deleteKey(for account: String) throws
}
