import CustosAPI
import Foundation

/// A device's signing key: P-256, private part never leaves the store.
public protocol DeviceSigningKey: Sendable {
    /// The public key, as sent at activation.
    var publicKey: PublicKeyJWK { get }
    /// An ES256 signature (raw r‖s, 64 bytes) of `message`.
    func sign(_ message: Data) throws -> Data
}

/// What binds this device to a user on one server: the user, the device id the server gave at
/// activation, and the server. Kept beside the device key, so an app that starts afresh can
/// sign the bound user in (`authenticateBoundUser`) without having saved anything itself.
public struct DeviceBinding: Codable, Sendable, Equatable {
    /// The server's URL, as in `CustosClient.Configuration.serverURL`.
    public var server: String
    public var userID: String
    public var deviceID: String

    public init(server: String, userID: String, deviceID: String) {
        self.server = server
        self.userID = userID
        self.deviceID = deviceID
    }
}

/// Where device keys live: a file on Linux, the Secure Enclave / keychain on Apple platforms.
/// Keys are per account (server + user), so one app can hold several; the binding is per
/// server (the user this device signs in as there).
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
    /// The binding saved for `server`, if any.
    func binding(for server: String) throws -> DeviceBinding?
    /// Saves `binding`, replacing the one of its server.
    func saveBinding(_ binding: DeviceBinding) throws
    func deleteBinding(for server: String) throws
}
