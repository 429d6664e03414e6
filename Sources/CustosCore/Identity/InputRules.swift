import Foundation

/// Shapes of identifiers and free text accepted from clients.
enum InputRules {
    /// User ids are chosen by the relying party: 1–128 of `A-Z a-z 0-9 . _ @ + -`.
    static func checkUserID(_ id: String, field: String = "user_id") throws {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= 128, utf8.allSatisfy(isIDByte) else {
            throw IdentityError.invalidInput(field: field, reason: "must be 1-128 characters of A-Z a-z 0-9 . _ @ + -")
        }
    }

    /// Server-issued ids and tokens: 1–128 of base64url / hex characters.
    static func checkToken(_ value: String, field: String) throws {
        let utf8 = value.utf8
        guard !utf8.isEmpty, utf8.count <= 128, utf8.allSatisfy(isIDByte) else {
            throw IdentityError.invalidInput(field: field, reason: "is not a valid identifier")
        }
    }

    static func checkName(_ name: String, field: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw IdentityError.invalidInput(field: field, reason: "must be 1-100 printable characters")
        }
        return trimmed
    }

    static func checkPasswordLength(_ password: String, field: String) throws {
        guard password.utf8.count <= 1024 else {
            throw IdentityError.invalidInput(field: field, reason: "is too long")
        }
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == 46 || byte == 95 || byte == 64 || byte == 43 || byte == 45
    }
}
