import CustosAPI
import CustosCore
import CustosCrypto
import Foundation

/// Webhook secrets derived from the master key, one per API key (HKDF, purpose
/// `custos/webhook/<key id>`): nothing to store, the same on every node. Rotating the master key
/// changes them; relying parties fetch theirs again (`GET /v1/webhooks/secret`).
public struct MasterKeyWebhookSigner: WebhookSigner {
    private let masterKey: MasterKey

    public init(masterKey: MasterKey) {
        self.masterKey = masterKey
    }

    public func secret(apiKeyID: String) -> String {
        "whsec_" + Data(masterKey.deriveKey(purpose: "custos/webhook/" + apiKeyID)).base64URLEncodedString
    }

    /// `t=<timestamp>,v1=<hex HMAC-SHA256(secret, "<timestamp>." + body)>`; the key is the
    /// secret's text as the relying party received it.
    public func signatureHeader(apiKeyID: String, timestamp: Int, body: Data) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        let code = HMACSHA256.authenticate(key: Data(secret(apiKeyID: apiKeyID).utf8), message: message)
        return "t=\(timestamp),v1=\(Hex.encode(Array(code)))"
    }
}
