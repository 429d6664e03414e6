import Foundation

/// The JSON conventions of the wire, shared by server and SDK so they cannot drift:
/// snake_case keys (declared per type), ISO 8601 dates, sorted keys.
public enum WireJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// The server's decoder of request bodies: `decoder()`, and a type that refuses names it
    /// does not know (`UserClaims`) does so here only, so an older SDK or a stored value still
    /// reads a newer answer.
    public static func requestDecoder() -> JSONDecoder {
        let decoder = decoder()
        decoder.userInfo[refusesUnknownNames] = true
        return decoder
    }

    /// Set in `requestDecoder`: the body is a request, where an unknown name is an error.
    public static let refusesUnknownNames = CodingUserInfoKey(rawValue: "custos.refusesUnknownNames")!
}
