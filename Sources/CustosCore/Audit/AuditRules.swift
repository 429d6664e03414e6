import Foundation

/// What an audit event may carry. The checks keep details to short plain facts; they cannot
/// tell a secret from a fact, so callers must never pass one: no descriptor, image, frame,
/// token, code, password or key material, only identifiers, decisions and counts.
public enum AuditRules {
    /// The most details one event takes.
    public static let maximumDetailCount = 32
    /// The longest detail key, in characters of `A-Z a-z 0-9 . _ -`.
    public static let maximumKeyLength = 64
    /// The longest detail value, in characters.
    public static let maximumValueLength = 512
    /// The longest user or transaction id, in UTF-8 bytes.
    public static let maximumIdentifierLength = 256

    /// Throws `AuditError` unless the event's fields fit the rules above.
    static func check(userID: String?, transactionID: String?, details: [String: String]) throws {
        try checkIdentifier(userID, field: "user_id")
        try checkIdentifier(transactionID, field: "transaction_id")
        guard details.count <= maximumDetailCount else { throw AuditError.tooManyDetails(details.count) }
        for (key, value) in details {
            guard !key.isEmpty, key.utf8.count <= maximumKeyLength, key.utf8.allSatisfy(isKeyByte) else {
                throw AuditError.invalidDetailKey(key)
            }
            guard value.count <= maximumValueLength else {
                throw AuditError.invalidDetailValue(key: key, reason: "is longer than \(maximumValueLength) characters")
            }
            guard !hasControlCharacters(value) else {
                throw AuditError.invalidDetailValue(key: key, reason: "holds control characters")
            }
        }
    }

    static func checkIdentifier(_ value: String?, field: String) throws {
        guard let value else { return }
        guard !value.isEmpty, value.utf8.count <= maximumIdentifierLength, !hasControlCharacters(value) else {
            throw AuditError.invalidIdentifier(field: field)
        }
    }

    private static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == 46 || byte == 95 || byte == 45
    }
}
