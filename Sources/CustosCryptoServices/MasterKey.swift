import CustosAPI
import CustosCore
import CustosCrypto
import Foundation

/// The server's 32-byte root secret. Purpose-specific keys are derived from it with HKDF,
/// so the master key itself never encrypts or signs anything.
///
/// `description`, `debugDescription` and `dump()` show only the key ID, never the bytes.
public struct MasterKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Size of a master key in bytes.
    public static let byteCount = 32
    /// HKDF salt for every derivation.
    static let salt = Array("custos/v1".utf8)

    private let bytes: [UInt8]

    /// A short public identifier (16 hex digits) so stored data can name the key it needs,
    /// derived one-way: hex(SHA-256(HKDF(purpose: "key-id")))[0..<16].
    public let keyID: String

    /// Wraps 32 key bytes.
    /// - Throws: `CryptoError.invalidMasterKey` for any other length.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw CryptoError.invalidMasterKey("expected \(Self.byteCount) bytes, got \(bytes.count)")
        }
        self.bytes = bytes
        var idMaterial = Self.derive(from: bytes, purpose: "key-id", length: 32)
        defer { OpenSSL.cleanse(&idMaterial) }
        self.keyID = String(Hex.encode(SHA256.hash(idMaterial)).prefix(16))
    }

    /// Parses base64 (standard, with or without padding) or base64url text holding 32 bytes.
    /// Surrounding whitespace, such as a trailing newline from a file, is ignored.
    /// - Throws: `CryptoError.invalidMasterKey` naming what is wrong (never echoing the input).
    public init(base64 text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw CryptoError.invalidMasterKey("empty") }
        var decoded: [UInt8]
        if let standard = Self.decodeStandardBase64(trimmed) {
            decoded = standard
        } else if let urlSafe = try? Base64URL.decode(trimmed) {
            decoded = urlSafe
        } else {
            throw CryptoError.invalidMasterKey("not valid base64")
        }
        defer { OpenSSL.cleanse(&decoded) }
        try self.init(bytes: decoded)
    }

    /// A new random master key.
    public static func generate(using random: any RandomSource = SecureRandom()) -> MasterKey {
        do {
            return try MasterKey(bytes: random.bytes(count: byteCount))
        } catch {
            preconditionFailure("random source returned the wrong number of bytes")
        }
    }

    /// The key as standard padded base64, for writing a newly generated key to a secret
    /// store. Named as a function so that exporting is always deliberate.
    public func exportBase64() -> String {
        Data(bytes).base64EncodedString()
    }

    /// Derives `length` bytes for `purpose` (HKDF-SHA-256, salt "custos/v1", info = purpose).
    /// Different purposes give independent keys; the same purpose always gives the same key.
    /// - Precondition: 1 ≤ `length` ≤ 8160.
    public func deriveKey(purpose: String, length: Int = 32) -> [UInt8] {
        Self.derive(from: bytes, purpose: purpose, length: length)
    }

    private static func derive(from bytes: [UInt8], purpose: String, length: Int) -> [UInt8] {
        precondition(length >= 1 && length <= HKDF.maximumOutputByteCount, "derived key length out of range")
        do {
            return try HKDF.deriveKey(inputKeyMaterial: bytes, salt: salt, info: Array(purpose.utf8), outputByteCount: length)
        } catch {
            preconditionFailure("HKDF failed: \(error)")
        }
    }

    private static func decodeStandardBase64(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") }) else { return nil }
        let padded = text.count % 4 == 0 ? text : text + String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }

    /// Shows only the key ID.
    public var description: String { "MasterKey(id: \(keyID))" }
    /// Shows only the key ID.
    public var debugDescription: String { description }
    /// Reflects only the key ID, so `dump()` cannot print the key.
    public var customMirror: Mirror { Mirror(self, children: ["keyID": keyID]) }
}
