#if os(Linux)
import CustosAPI
import CustosCrypto
import Foundation

/// Device keys as PKCS#8 PEM files in a private directory (0700; files 0600), one per
/// account, named by a digest of the account; bindings as JSON files beside them, one per
/// server.
public struct FileDeviceKeyStore: DeviceKeyStore {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func key(for account: String) throws -> (any DeviceSigningKey)? {
        guard let data = FileManager.default.contents(atPath: path(for: account)) else { return nil }
        do {
            return FileDeviceKey(privateKey: try P256.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self)))
        } catch {
            throw CustosError.invalidConfiguration("the device key file for this account is unreadable")
        }
    }

    public func createKey(for account: String) throws -> any DeviceSigningKey {
        let privateKey = try P256.PrivateKey.generate()
        try write(Data(try privateKey.pemRepresentation.utf8), to: path(for: account), what: "the device key")
        return FileDeviceKey(privateKey: privateKey)
    }

    public func moveKey(from staging: String, to account: String) throws {
        guard rename(path(for: staging), path(for: account)) == 0 else {
            throw CustosError.invalidConfiguration("cannot move the new device key into place in \(directory.path)")
        }
    }

    public func deleteKey(for account: String) throws {
        let path = path(for: account)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    public func binding(for server: String) throws -> DeviceBinding? {
        guard let data = FileManager.default.contents(atPath: bindingPath(for: server)) else { return nil }
        guard let binding = try? JSONDecoder().decode(DeviceBinding.self, from: data), binding.server == server else {
            throw CustosError.invalidConfiguration("the device binding file for this server is unreadable")
        }
        return binding
    }

    public func saveBinding(_ binding: DeviceBinding) throws {
        try write(try JSONEncoder().encode(binding), to: bindingPath(for: binding.server), what: "the device binding")
    }

    public func deleteBinding(for server: String) throws {
        let path = bindingPath(for: server)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    /// Writes a private file whole in the private directory: a temporary file of its own (several
    /// clients may share the directory) renamed into place, so readers see the old or the new.
    private func write(_ contents: Data, to path: String, what: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let temporary = path + "." + UUID().uuidString + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: contents, attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            throw CustosError.invalidConfiguration("cannot write \(what) in \(directory.path)")
        }
    }

    private func bindingPath(for server: String) -> String {
        directory.appendingPathComponent("device-binding-" + Base64URL.encode(Array(SHA256.hash(utf8: server).prefix(12))) + ".json").path
    }

    private func path(for account: String) -> String {
        directory.appendingPathComponent("device-key-" + Base64URL.encode(Array(SHA256.hash(utf8: account).prefix(12))) + ".pem").path
    }
}

struct FileDeviceKey: DeviceSigningKey {
    let privateKey: P256.PrivateKey

    var publicKey: PublicKeyJWK {
        let jwk = JWK(publicKey: privateKey.publicKey)
        return PublicKeyJWK(x: jwk.x ?? "", y: jwk.y ?? "")
    }

    func sign(_ message: Data) throws -> Data {
        try privateKey.sign(message)
    }
}
#endif
