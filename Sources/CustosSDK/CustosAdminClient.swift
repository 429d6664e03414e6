import CustosAPI
import Foundation

/// The relying-party / administrator API, for a back end (or the `custos admin` command),
/// authenticated by an API key (`ck_…`).
public final class CustosAdminClient: Sendable {
    let transport: HTTPTransport
    let apiKey: String

    public init(serverURL: URL, apiKey: String, timeout: TimeInterval = 30) throws {
        guard let scheme = serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CustosError.invalidConfiguration("serverURL must be an http or https URL")
        }
        transport = HTTPTransport(baseURL: serverURL, timeout: timeout)
        self.apiKey = apiKey
    }

    /// Creates a user and its one-time activation code (give the code to the user out of band).
    public func createUser(_ userID: String) async throws -> CreatedUser {
        try await transport.post("/v1/users", CreateUserRequest(userID: userID), bearer: apiKey)
    }

    public func user(_ userID: String) async throws -> UserInfo {
        try await transport.get("/v1/users/\(Self.segment(userID))", bearer: apiKey)
    }

    /// One page of users ordered by id; pass `nextAfter` of the previous page as `after`.
    public func users(after: String? = nil, limit: Int = 100) async throws -> UserList {
        var path = "/v1/users?limit=\(limit)"
        if let after { path += "&after=\(Self.query(after))" }
        return try await transport.get(path, bearer: apiKey)
    }

    public func disableUser(_ userID: String) async throws -> UserInfo { try await action(userID, "disable") }
    public func enableUser(_ userID: String) async throws -> UserInfo { try await action(userID, "enable") }
    /// Lifts a lockout (status 153) and gives the attempts back.
    public func unlockUser(_ userID: String) async throws -> UserInfo { try await action(userID, "unlock") }

    /// Deletes the user with its devices, sessions and everything biometric.
    public func deleteUser(_ userID: String) async throws {
        try await transport.sendExpectingNoContent(method: "DELETE", path: "/v1/users/\(Self.segment(userID))", bearer: apiKey)
    }

    /// Voids outstanding codes and issues a new one.
    public func issueActivationCode(_ userID: String) async throws -> ActivationCodeInfo {
        try await transport.post("/v1/users/\(Self.segment(userID))/activation-code", EmptyBody(), bearer: apiKey)
    }

    /// Lets the user enrol a biometric template once: a replacement of the existing one, or a
    /// first one on a server that asks every enrolment for a grant. Single-use, expiring.
    public func grantEnrollment(_ userID: String) async throws -> EnrollmentGrantResponse {
        try await transport.post("/v1/users/\(Self.segment(userID))/enrollment-grant", EmptyBody(), bearer: apiKey)
    }

    /// The relying party's view of an IDV transaction: the decision with its evidence, the
    /// signed result, and for a document scan the sides of the document it can read.
    public func idvVerdict(_ transactionID: String) async throws -> IDVVerdictResponse {
        try await transport.get("/v1/idv/transactions/\(Self.segment(transactionID))/verdict", bearer: apiKey)
    }

    /// One side (`front`, `back`) of a document scan's identity document, exactly as the user
    /// uploaded it, with its media type (`image/jpeg`, `image/png`). Each read is audited.
    public func idvDocument(_ transactionID: String, side: String) async throws -> IDVDocumentImage {
        let (data, contentType) = try await transport.getBytes(
            "/v1/idv/transactions/\(Self.segment(transactionID))/documents/\(Self.segment(side))", bearer: apiKey)
        return IDVDocumentImage(contentType: contentType ?? "application/octet-stream", data: data)
    }

    public func devices(_ userID: String) async throws -> [DeviceInfo] {
        let list: DeviceList = try await transport.get("/v1/users/\(Self.segment(userID))/devices", bearer: apiKey)
        return list.devices
    }

    public func revokeDevice(userID: String, deviceID: String) async throws {
        try await transport.sendExpectingNoContent(
            method: "DELETE", path: "/v1/users/\(Self.segment(userID))/devices/\(Self.segment(deviceID))", bearer: apiKey)
    }

    private func action(_ userID: String, _ name: String) async throws -> UserInfo {
        try await transport.post("/v1/users/\(Self.segment(userID))/\(name)", EmptyBody(), bearer: apiKey)
    }

    private static func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? value
    }

    private static func query(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
    }
}

struct EmptyBody: Codable {}

/// A document scan's image as the server keeps it.
public struct IDVDocumentImage: Sendable, Equatable {
    /// `image/jpeg` or `image/png`.
    public let contentType: String
    /// The bytes the user uploaded.
    public let data: Data
}
