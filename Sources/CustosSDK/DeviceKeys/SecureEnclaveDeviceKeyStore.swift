#if canImport(CryptoKit) && !os(Linux)
import CryptoKit
import CustosAPI
import Foundation
import Security

/// Device keys in the Secure Enclave where there is one (the private key cannot be
/// exported; the keychain keeps only an encrypted handle), else software P-256 keys in the
/// keychain. One key per account.
public struct SecureEnclaveDeviceKeyStore: DeviceKeyStore {
    public let service: String

    public init(service: String = "io.custos.device-key") {
        self.service = service
    }

    public func key(for account: String) throws -> (any DeviceSigningKey)? {
        var query = baseQuery(account)
        query[kSecReturnData as String] = true
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        guard status == errSecSuccess, let data = item as? Data else { return nil }
        if SecureEnclave.isAvailable, let key = try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data) {
            return EnclaveKey(key: key)
        }
        return SoftwareKey(key: try P256.Signing.PrivateKey(rawRepresentation: data))
    }

    public func createKey(for account: String) throws -> any DeviceSigningKey {
        try deleteKey(for: account)
        let (data, key): (Data, any DeviceSigningKey)
        if SecureEnclave.isAvailable {
            let enclave = try SecureEnclave.P256.Signing.PrivateKey()
            (data, key) = (enclave.dataRepresentation, EnclaveKey(key: enclave))
        } else {
            let software = P256.Signing.PrivateKey()
            (data, key) = (software.rawRepresentation, SoftwareKey(key: software))
        }
        var query = baseQuery(account)
        query[kSecValueData as String] = data
        query[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        guard SecItemAdd(query as CFDictionary, nil) == errSecSuccess else {
            throw CustosError.invalidConfiguration("cannot store the device key in the keychain")
        }
        return key
    }

    public func moveKey(from staging: String, to account: String) throws {
        var exists = baseQuery(staging)
        exists[kSecReturnAttributes as String] = true
        guard SecItemCopyMatching(exists as CFDictionary, nil) == errSecSuccess else {
            throw CustosError.invalidConfiguration("there is no staged device key to move")
        }
        try deleteKey(for: account)
        let renamed = [kSecAttrAccount as String: account] as CFDictionary
        guard SecItemUpdate(baseQuery(staging) as CFDictionary, renamed) == errSecSuccess else {
            throw CustosError.invalidConfiguration("cannot move the new device key into place in the keychain")
        }
    }

    public func deleteKey(for account: String) throws {
        SecItemDelete(baseQuery(account) as CFDictionary)
    }

    public func binding(for server: String) throws -> DeviceBinding? {
        var query = bindingQuery(server)
        query[kSecReturnData as String] = true
        var item: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return nil }
        guard let binding = try? JSONDecoder().decode(DeviceBinding.self, from: data), binding.server == server else {
            throw CustosError.invalidConfiguration("the device binding in the keychain is unreadable")
        }
        return binding
    }

    public func saveBinding(_ binding: DeviceBinding) throws {
        try deleteBinding(for: binding.server)
        var query = bindingQuery(binding.server)
        query[kSecValueData as String] = try JSONEncoder().encode(binding)
        query[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        guard SecItemAdd(query as CFDictionary, nil) == errSecSuccess else {
            throw CustosError.invalidConfiguration("cannot store the device binding in the keychain")
        }
    }

    public func deleteBinding(for server: String) throws {
        SecItemDelete(bindingQuery(server) as CFDictionary)
    }

    private func bindingQuery(_ server: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service + ".binding", kSecAttrAccount as String: server]
    }

    private func baseQuery(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }
}

private func jwk(_ key: P256.Signing.PublicKey) -> PublicKeyJWK {
    let raw = key.rawRepresentation
    return PublicKeyJWK(x: Data(raw.prefix(32)).base64URLEncodedString, y: Data(raw.suffix(32)).base64URLEncodedString)
}

private struct EnclaveKey: DeviceSigningKey, @unchecked Sendable {
    let key: SecureEnclave.P256.Signing.PrivateKey
    var publicKey: PublicKeyJWK { jwk(key.publicKey) }
    func sign(_ message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
}

private struct SoftwareKey: DeviceSigningKey, @unchecked Sendable {
    let key: P256.Signing.PrivateKey
    var publicKey: PublicKeyJWK { jwk(key.publicKey) }
    func sign(_ message: Data) throws -> Data { try key.signature(for: message).rawRepresentation }
}
#endif
