// libFuzzer targets for the parsers that read what clients send, built by Tests/Fuzz/build.sh
// with coverage and AddressSanitizer over CustosAPI, CustosCore, CustosCrypto and CustosCryptoServices' own sources.
// (and CustosHTTP's request parsing) `CUSTOS_FUZZ_TARGET` chooses the target; each takes any bytes and must answer with a value or
// a thrown error: a trap, a crash, a leak or a hang is a finding.
@testable import CustosAPI
@testable import CustosCore
import CustosCrypto
import CustosCryptoServices
@testable import CustosHTTP
import Foundation

/// The request and answer types of every endpoint: what the server decodes from clients and the
/// SDK from servers.
private let wireTypes: [any Decodable.Type] = Endpoints.all.flatMap { [$0.body, $0.answer] }.compactMap { $0 as? any Decodable.Type }

private let target = ProcessInfo.processInfo.environment["CUSTOS_FUZZ_TARGET"] ?? "json"

/// Fixed keys, made once: a client's key to verify JWS with, and a recipient's for JWE.
private let signingKey = try! P256.PrivateKey.generate()
private let clientJWK = String(decoding: try! JSONEncoder().encode(JWK(publicKey: signingKey.publicKey)), as: UTF8.self)
private let verifier = WebAuthnVerifier(rpID: "localhost", origins: ["http://localhost:8080"], keys: P256DeviceKeyVerifier(),
                                        digester: SHA256SecretDigester())
private let clientData = Data(#"{"type":"webauthn.create","challenge":"AAAA","origin":"http://localhost:8080"}"#.utf8)
/// The digest of that challenge, so that the attestation object itself is read.
private let challengeDigest = SHA256SecretDigester().digest(bytes: Data([0, 0, 0]))

extension Decodable {
    static func fuzzDecode(_ data: Data) { _ = try? WireJSON.decoder().decode(Self.self, from: data) }
}

/// JSON bodies: the first byte picks the type, the rest is the document.
private func fuzzJSON(_ data: Data) {
    guard let selector = data.first, !wireTypes.isEmpty else { return }
    wireTypes[Int(selector) % wireTypes.count].fuzzDecode(data.dropFirst())
}

/// Form bodies, and the OpenID authorization request read from them.
private func fuzzForm(_ data: Data) {
    guard let form = FormBody(parsing: data) else { return }
    _ = try? AuthorizationRequest.validate(form.fields, client: nil)
}

/// CBOR, and the WebAuthn authenticator data and attestation objects built on it.
private func fuzzWebAuthn(_ data: Data) {
    _ = try? CBORValue.decodeAll(data)
    _ = try? CBORValue.decode(data, maximumDepth: 4)
    _ = try? AuthenticatorData(parsing: data)
    _ = try? AttestedAuthenticatorData(parsing: data)
    _ = try? verifier.verifyRegistration(WebAuthnAttestation(attestationObject: data, clientDataJSON: clientData),
                                         challengeDigest: challengeDigest, requireUserVerification: false)
}

/// What a client controls in the request line and headers and the server parses itself: the
/// strict percent-decoding of the path and query, and the client address from X-Forwarded-For
/// (each line of the input one header line).
private func fuzzHTTP(_ data: Data) {
    var bytes = [UInt8](data.prefix(8192)) + [0]
    _ = bytes.withUnsafeMutableBufferPointer { StrictUnescape.decode($0.baseAddress!) }
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if let client = HTTPServer.forwardedClient(lines) { _ = (client.limitKey, client.description) }
    for line in lines.prefix(4) { _ = RemoteAddress(parsing: line).map { ($0.limitKey, $0.description) } }
}

/// JOSE: compact JWS and JWE, and JWKs, as text.
private func fuzzJOSE(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    _ = try? JWS.unverifiedHeader(text)
    _ = try? JWS.verify(text, key: signingKey.publicKey)
    _ = try? P256ClientKeys().verify(text, with: clientJWK)
    _ = try? P256ClientKeys().normalizePublicKey(text, field: "jwk")
    _ = try? JWE.decrypt(text, with: signingKey)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    switch target {
    case "json": fuzzJSON(data)
    case "form": fuzzForm(data)
    case "webauthn": fuzzWebAuthn(data)
    case "jose": fuzzJOSE(data)
    case "http": fuzzHTTP(data)
    default: fatalError("CUSTOS_FUZZ_TARGET must be json, form, webauthn, jose or http")
    }
    return 0
}
