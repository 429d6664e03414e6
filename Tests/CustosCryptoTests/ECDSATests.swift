import Foundation
import Testing
@testable import CustosCrypto

/// The P-256 key from RFC 7515 appendix A.3.1.
enum RFC7515Key {
    static let x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let d = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"
}

@Suite("ECDSA P-256")
struct ECDSATests {
    @Test("sign/verify round trip; wrong message, key or signature fails")
    func roundTrip() throws {
        let key = try P256.PrivateKey.generate()
        let message = utf8("attest this")
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verify(signature: signature, message: message))
        #expect(!key.publicKey.verify(signature: signature, message: utf8("attest that")))
        #expect(!(try P256.PrivateKey.generate()).publicKey.verify(signature: signature, message: message))
        var flipped = signature
        flipped[10] ^= 0x01
        #expect(!key.publicKey.verify(signature: flipped, message: message))
        #expect(!key.publicKey.verify(signature: Array(signature.prefix(63)), message: message))
        #expect(key.publicKey.verify(signature: Data(signature), message: Data(message)))
    }

    @Test("DER signatures verify and convert to raw and back")
    func derRoundTrip() throws {
        let key = try P256.PrivateKey.generate()
        let message = utf8("payload")
        let der = try key.signDER(message)
        #expect(key.publicKey.verify(derSignature: der, message: message))
        let raw = try ECDSASignature.derToRaw(der)
        #expect(raw.count == 64)
        #expect(try ECDSASignature.rawToDER(raw) == der)
        #expect(key.publicKey.verify(signature: raw, message: message))
    }

    @Test("DER encoding of small and high-bit components")
    func derEncodingShape() throws {
        let raw = [UInt8](repeating: 0, count: 31) + [1] + [0x80] + [UInt8](repeating: 0, count: 31)
        let der = try ECDSASignature.rawToDER(raw)
        #expect(der == [0x30, 0x26, 0x02, 0x01, 0x01, 0x02, 0x21, 0x00, 0x80] + [UInt8](repeating: 0, count: 31))
        #expect(try ECDSASignature.derToRaw(der) == raw)
    }

    @Test("malformed DER is rejected")
    func malformedDER() throws {
        let valid = try ECDSASignature.rawToDER([UInt8](repeating: 0x11, count: 64))
        let nonMinimal: [UInt8] = [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01]
        let oversized: [UInt8] = [0x30, 0x25, 0x02, 0x21, 0x01] + [UInt8](repeating: 0, count: 32) + [0x02, 0x00]
        for bad in [[], [0x30, 0x00, 0x00], valid + [0x00], Array(valid.dropLast()), nonMinimal, oversized] as [[UInt8]] {
            #expect(throws: CryptoError.self) { try ECDSASignature.derToRaw(bad) }
        }
        #expect(throws: CryptoError.self) { try ECDSASignature.rawToDER([UInt8](repeating: 1, count: 63)) }
    }

    @Test("private scalar from RFC 7515 A.3 derives the published public key")
    func scalarDerivesPublicKey() throws {
        let key = try P256.PrivateKey(rawRepresentation: Base64URL.decode(RFC7515Key.d))
        #expect(Base64URL.encode(key.publicKey.x) == RFC7515Key.x)
        #expect(Base64URL.encode(key.publicKey.y) == RFC7515Key.y)
        #expect(try key.rawRepresentation == Base64URL.decode(RFC7515Key.d))
    }

    @Test("out-of-range scalars are rejected")
    func badScalars() {
        let order = hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        for scalar in [[UInt8](repeating: 0, count: 32), order, [UInt8](repeating: 0xFF, count: 32), [1]] {
            #expect(throws: CryptoError.self) { try P256.PrivateKey(rawRepresentation: scalar) }
        }
    }

    @Test("public key encodings round trip")
    func publicEncodings() throws {
        let key = try P256.PrivateKey.generate().publicKey
        #expect(key.x963Representation.count == 65 && key.x963Representation[0] == 0x04)
        #expect(try P256.PublicKey(x963Representation: key.x963Representation) == key)
        #expect(try P256.PublicKey(x: key.x, y: key.y) == key)
        #expect(try P256.PublicKey(rawRepresentation: key.rawRepresentation) == key)
        #expect(key.derRepresentation.count == 91)
        #expect(try P256.PublicKey(derRepresentation: key.derRepresentation) == key)
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PUBLIC KEY-----\n"))
        #expect(try P256.PublicKey(pemRepresentation: key.pemRepresentation) == key)
    }

    @Test("compressed SubjectPublicKeyInfo is accepted and normalised")
    func compressedSPKI() throws {
        let key = try P256.PrivateKey.generate().publicKey
        let prefix = hex("3039301306072a8648ce3d020106082a8648ce3d030107032200")
        let parity: UInt8 = (key.y[31] & 1) == 1 ? 0x03 : 0x02
        let decoded = try P256.PublicKey(derRepresentation: prefix + [parity] + key.x)
        #expect(decoded == key)
    }

    @Test("private key PKCS#8 DER and PEM round trip")
    func privateEncodings() throws {
        let key = try P256.PrivateKey.generate()
        let der = try key.derRepresentation
        let fromDER = try P256.PrivateKey(derRepresentation: der)
        #expect(try fromDER.rawRepresentation == key.rawRepresentation)
        #expect(fromDER.publicKey == key.publicKey)
        let pem = try key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(try P256.PrivateKey(pemRepresentation: pem).publicKey == key.publicKey)
        #expect(throws: CryptoError.self) { try P256.PrivateKey(derRepresentation: [0x30, 0x00]) }
        #expect(throws: CryptoError.self) { try P256.PublicKey(derRepresentation: der) }
    }

    @Test("invalid points are rejected")
    func invalidPoints() throws {
        let key = try P256.PrivateKey.generate().publicKey
        var offCurve = key.y
        offCurve[31] ^= 0x01
        #expect(throws: CryptoError.pointNotOnCurve) { try P256.PublicKey(x: key.x, y: offCurve) }
        #expect(throws: CryptoError.self) { try P256.PublicKey(x963Representation: [0x02] + key.x + key.y) }
        #expect(throws: CryptoError.self) { try P256.PublicKey(x963Representation: Array(key.x963Representation.prefix(64))) }
        #expect(throws: CryptoError.self) { try P256.PublicKey(x: [UInt8](repeating: 0xFF, count: 32), y: key.y) }
    }

    @Test("private key description does not reveal the scalar")
    func redactedDescription() throws {
        let key = try P256.PrivateKey.generate()
        let scalarHex = hexString(try key.rawRepresentation)
        #expect(!String(describing: key).contains(scalarHex))
        #expect(String(describing: key).contains("redacted"))
    }
}
