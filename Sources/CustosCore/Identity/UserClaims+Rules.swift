import CustosAPI
import Foundation

/// What the server accepts as a user's standard claims, and which of them a grant's scopes
/// release (OpenID Connect Core §5.1 and §5.4).
extension UserClaims {
    /// The claims checked, with an all-empty address dropped; `invalidInput` names the first
    /// claim that is not of its kind. A verified flag needs the value it vouches for.
    public func checked() throws -> UserClaims {
        var claims = self
        for (field, value, limit) in [("name", name, 255), ("given_name", givenName, 255), ("family_name", familyName, 255),
                                      ("middle_name", middleName, 255), ("nickname", nickname, 255),
                                      ("preferred_username", preferredUsername, 255), ("gender", gender, 64)] {
            try Self.checkText(value, field: field, limit: limit)
        }
        for (field, value) in [("profile", profile), ("picture", picture), ("website", website)] {
            try Self.checkURL(value, field: field)
        }
        try Self.check(birthdate, field: "birthdate", #"[0-9]{4}|[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"#,
                       "must be YYYY-MM-DD, YYYY or 0000-MM-DD")
        try Self.checkCalendarDate(birthdate)
        try Self.check(zoneinfo, field: "zoneinfo", #"[A-Za-z][A-Za-z0-9_+-]{0,31}(/[A-Za-z0-9_+-]{1,32}){0,3}"#,
                       "must be an IANA time zone such as Europe/Paris")
        try Self.check(locale, field: "locale", #"[A-Za-z]{1,8}([-_][A-Za-z0-9]{1,8}){0,7}"#, "must be a BCP 47 language tag such as fr-CA")
        try Self.checkEmail(email)
        try Self.check(phoneNumber, field: "phone_number", #"\+[1-9][0-9]{6,14}(;ext=[0-9]{1,10})?"#,
                       "must be E.164 (+ and 7 to 15 digits), such as +33612345678, optionally ;ext=123")
        if emailVerified != nil, email == nil {
            throw IdentityError.invalidInput(field: "email_verified", reason: "states nothing without email")
        }
        if phoneNumberVerified != nil, phoneNumber == nil {
            throw IdentityError.invalidInput(field: "phone_number_verified", reason: "states nothing without phone_number")
        }
        if let address {
            try Self.checkText(address.formatted, field: "address.formatted", limit: 512, lines: true)
            try Self.checkText(address.streetAddress, field: "address.street_address", limit: 512, lines: true)
            for (field, value) in [("address.locality", address.locality), ("address.region", address.region),
                                   ("address.postal_code", address.postalCode), ("address.country", address.country)] {
                try Self.checkText(value, field: field, limit: 128)
            }
            if address.isEmpty { claims.address = nil }
        }
        return claims
    }

    /// True when no claim is stated (`updated_at` aside).
    public var isEmpty: Bool {
        var bare = self
        bare.updatedAt = nil
        return bare == UserClaims()
    }

    /// The names of the claims stated (`updated_at` aside), sorted: what the audit records.
    public var statedNames: [String] {
        let object = (try? JSONSerialization.jsonObject(with: JSONEncoder().encode(self))) as? [String: Any] ?? [:]
        return object.keys.filter { $0 != "updated_at" }.sorted()
    }

    /// The scopes that release claims, each with what it releases (§5.4).
    public static let scopes = ["profile", "email", "phone", "address"]

    /// The claims the granted `scopes` release; nothing of a scope not granted.
    public func released(to scopes: [String]) -> UserClaims {
        var released = UserClaims()
        if scopes.contains("profile") {
            released = self
            released.email = nil
            released.emailVerified = nil
            released.phoneNumber = nil
            released.phoneNumberVerified = nil
            released.address = nil
        }
        if scopes.contains("email") {
            released.email = email
            released.emailVerified = emailVerified
        }
        if scopes.contains("phone") {
            released.phoneNumber = phoneNumber
            released.phoneNumberVerified = phoneNumberVerified
        }
        if scopes.contains("address") { released.address = address }
        return released
    }

    /// Printable text of 1 to `limit` characters and at most 4 × `limit` bytes: no control
    /// character, no character that hides or reorders text (`disguises`), and line breaks (CR,
    /// LF) only where the claim is multi-line (an address). The joiners of Persian, Indic and
    /// emoji writing stay.
    private static func checkText(_ value: String?, field: String, limit: Int, lines: Bool = false) throws {
        guard let value else { return }
        let control = value.unicodeScalars.contains { scalar in
            if lines, scalar == "\n" || scalar == "\r" { return false }
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: return true
            default: return disguises(scalar)
            }
        }
        guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, value.count <= limit, value.utf8.count <= 4 * limit, !control else {
            throw IdentityError.invalidInput(field: field, reason: "must be 1-\(limit) printable characters")
        }
    }

    /// Characters that hide, reorder or fake text: every format character (bidirectional
    /// controls, zero-width space, soft hyphen, tag characters…) but the joiners U+200C and
    /// U+200D that Persian, Indic and emoji writing need, and the Hangul fillers, which show
    /// nothing.
    static func disguises(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200C, 0x200D: false
        case 0x115F, 0x1160, 0x3164, 0xFFA0: true
        default: scalar.properties.generalCategory == .format
        }
    }

    /// `pattern` matched against the whole value: `pattern` has no anchors, `\A` and `\z` are
    /// added (`$` would also match before a final line break).
    private static func check(_ value: String?, field: String, _ pattern: String, _ reason: String) throws {
        guard let value else { return }
        guard value.range(of: #"\A(?:"# + pattern + #")\z"#, options: .regularExpression) != nil else {
            throw IdentityError.invalidInput(field: field, reason: reason)
        }
    }

    /// A birthdate's year other than 0000 (the year withheld), and a day its month has.
    private static func checkCalendarDate(_ value: String?) throws {
        guard let value else { return }
        let parts = value.split(separator: "-").compactMap { Int($0) }
        let valid: Bool
        if parts.count == 3 {
            let (year, month, day) = (parts[0], parts[1], parts[2])
            let leap = year == 0 || (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
            valid = day <= [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        } else {
            valid = parts.first != 0
        }
        guard valid else { throw IdentityError.invalidInput(field: "birthdate", reason: "is not a day of the calendar (or a year other than 0000)") }
    }

    /// An absolute http or https URL of at most 2,048 bytes, without credentials.
    private static func checkURL(_ value: String?, field: String) throws {
        guard let value else { return }
        guard value.utf8.count <= 2048, let url = URLComponents(string: value), ["http", "https"].contains(url.scheme?.lowercased()),
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil else {
            throw IdentityError.invalidInput(field: field, reason: "must be an absolute http or https URL of at most 2048 bytes, without credentials")
        }
    }

    /// An addr-spec in its common form: one `@`, a local part of at most 64 bytes and a domain
    /// with a dot, no space or control character; at most 254 bytes (RFC 5321 §4.5.3.1).
    private static func checkEmail(_ value: String?) throws {
        guard let value else { return }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        // No space, control, separator or format character: none belongs in an address.
        let clean = !value.unicodeScalars.contains {
            $0.properties.isWhitespace || [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
        }
        guard clean, value.utf8.count <= 254, parts.count == 2, (1...64).contains(parts[0].utf8.count),
              parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains("..") else {
            throw IdentityError.invalidInput(field: "email", reason: "must be an address such as alice@example.com (at most 254 bytes)")
        }
    }
}
