import Foundation

/// The standard claims about a user (OpenID Connect Core §5.1) that the relying party that
/// owns the user states: `PUT /v1/users/{id}/claims` sets them, and the OpenID provider
/// releases those of the scopes a client was granted (§5.4) from UserInfo. The same type is
/// the body, the stored value and the claims UserInfo adds to `sub`.
///
/// `updated_at` (seconds since 1970, as §5.1 has it) is the server's: the time of the last
/// change, whatever a request sends. In a request (`WireJSON.requestDecoder`), names the
/// server does not keep are refused, so a misspelt claim is not silently lost; elsewhere (the
/// SDK, the store) they are ignored, so a newer server's answer still reads.
public struct UserClaims: Codable, Equatable, Sendable {
    // profile
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    public var middleName: String?
    public var nickname: String?
    public var preferredUsername: String?
    /// URLs (http or https).
    public var profile: String?
    public var picture: String?
    public var website: String?
    public var gender: String?
    /// `YYYY-MM-DD`, `YYYY`, or `0000-MM-DD` when the year is withheld.
    public var birthdate: String?
    /// An IANA time zone, such as `Europe/Paris`.
    public var zoneinfo: String?
    /// A BCP 47 language tag, such as `fr-CA`.
    public var locale: String?
    // email
    public var email: String?
    /// Whether the relying party verified the address (its word, not this server's).
    public var emailVerified: Bool?
    // phone
    /// E.164, such as `+33612345678`.
    public var phoneNumber: String?
    public var phoneNumberVerified: Bool?
    // address
    public var address: Address?
    public var updatedAt: Int64?

    /// OpenID Connect Core §5.1.1.
    public struct Address: Codable, Equatable, Sendable {
        public var formatted: String?
        public var streetAddress: String?
        public var locality: String?
        public var region: String?
        public var postalCode: String?
        public var country: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case formatted, locality, region, country
            case streetAddress = "street_address"
            case postalCode = "postal_code"
        }

        public init(formatted: String? = nil, streetAddress: String? = nil, locality: String? = nil, region: String? = nil,
                    postalCode: String? = nil, country: String? = nil) {
            self.formatted = formatted
            self.streetAddress = streetAddress
            self.locality = locality
            self.region = region
            self.postalCode = postalCode
            self.country = country
        }

        public init(from decoder: any Decoder) throws {
            try UserClaims.refuseUnknownKeys(decoder, known: CodingKeys.self)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            formatted = try container.decodeIfPresent(String.self, forKey: .formatted)
            streetAddress = try container.decodeIfPresent(String.self, forKey: .streetAddress)
            locality = try container.decodeIfPresent(String.self, forKey: .locality)
            region = try container.decodeIfPresent(String.self, forKey: .region)
            postalCode = try container.decodeIfPresent(String.self, forKey: .postalCode)
            country = try container.decodeIfPresent(String.self, forKey: .country)
        }

        public var isEmpty: Bool { self == Address() }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, nickname, profile, picture, website, gender, birthdate, zoneinfo, locale, email, address
        case givenName = "given_name"
        case familyName = "family_name"
        case middleName = "middle_name"
        case preferredUsername = "preferred_username"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case phoneNumberVerified = "phone_number_verified"
        case updatedAt = "updated_at"
    }

    public init(name: String? = nil, givenName: String? = nil, familyName: String? = nil, middleName: String? = nil,
                nickname: String? = nil, preferredUsername: String? = nil, profile: String? = nil, picture: String? = nil,
                website: String? = nil, gender: String? = nil, birthdate: String? = nil, zoneinfo: String? = nil,
                locale: String? = nil, email: String? = nil, emailVerified: Bool? = nil, phoneNumber: String? = nil,
                phoneNumberVerified: Bool? = nil, address: Address? = nil, updatedAt: Int64? = nil) {
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.middleName = middleName
        self.nickname = nickname
        self.preferredUsername = preferredUsername
        self.profile = profile
        self.picture = picture
        self.website = website
        self.gender = gender
        self.birthdate = birthdate
        self.zoneinfo = zoneinfo
        self.locale = locale
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.phoneNumberVerified = phoneNumberVerified
        self.address = address
        self.updatedAt = updatedAt
    }

    public init(from decoder: any Decoder) throws {
        try Self.refuseUnknownKeys(decoder, known: CodingKeys.self)
        try self.init(flattenedWith: decoder)
    }

    /// The claims of an object that may hold other members too (UserInfo's `sub`).
    init(flattenedWith decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String? { try container.decodeIfPresent(String.self, forKey: key) }
        self.init(name: try text(.name), givenName: try text(.givenName), familyName: try text(.familyName),
                  middleName: try text(.middleName), nickname: try text(.nickname), preferredUsername: try text(.preferredUsername),
                  profile: try text(.profile), picture: try text(.picture), website: try text(.website), gender: try text(.gender),
                  birthdate: try text(.birthdate), zoneinfo: try text(.zoneinfo), locale: try text(.locale), email: try text(.email),
                  emailVerified: try container.decodeIfPresent(Bool.self, forKey: .emailVerified),
                  phoneNumber: try text(.phoneNumber),
                  phoneNumberVerified: try container.decodeIfPresent(Bool.self, forKey: .phoneNumberVerified),
                  address: try container.decodeIfPresent(Address.self, forKey: .address),
                  updatedAt: try container.decodeIfPresent(Int64.self, forKey: .updatedAt))
    }

    /// The claim names, as OpenID Connect spells them.
    public static var names: [String] { CodingKeys.allCases.map(\.stringValue) }

    /// In a request, a key this type does not have is an error naming that key, not a value dropped.
    static func refuseUnknownKeys<Known: CodingKey & CaseIterable>(_ decoder: any Decoder, known: Known.Type) throws {
        guard decoder.userInfo[WireJSON.refusesUnknownNames] as? Bool == true else { return }
        let names = Set(Known.allCases.map(\.stringValue))
        let container = try decoder.container(keyedBy: NamedKey.self)
        if let unknown = container.allKeys.first(where: { !names.contains($0.stringValue) }) {
            throw DecodingError.dataCorruptedError(forKey: unknown, in: container,
                                                   debugDescription: "\(unknown.stringValue) is not a claim this server keeps")
        }
    }

    private struct NamedKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }
}
