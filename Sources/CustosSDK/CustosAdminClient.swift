import CustosAPI
import Foundation

/// The relying-party / administrator API, for a back end (or the `custos admin` command),
/// authenticated by an API key (`ck_…`).
public final class CustosAdminClient: Sendable {
    let transport: HTTPTransport
    let apiKey: String

    public init(serverURL: URL, apiKey: String, timeout: TimeInterval = 30, exchange: any HTTPExchange = URLSessionExchange()) throws {
        guard let scheme = serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CustosError.invalidConfiguration("serverURL must be an http or https URL")
        }
        transport = HTTPTransport(baseURL: serverURL, timeout: timeout, exchange: exchange)
        self.apiKey = apiKey
    }

    /// Creates a user and its one-time activation code (give the code to the user out of band).
    public func createUser(_ userID: String) async throws -> CreatedUser {
        try await transport.call(Endpoints.createUser, body: CreateUserRequest(userID: userID), bearer: apiKey)
    }

    public func user(_ userID: String) async throws -> UserInfo {
        try await transport.call(Endpoints.user, userID, bearer: apiKey)
    }

    /// One page of users ordered by id; pass `nextAfter` of the previous page as `after`.
    public func users(after: String? = nil, limit: Int = 100) async throws -> UserList {
        let query = [URLQueryItem(name: "limit", value: String(limit))] + (after.map { [URLQueryItem(name: "after", value: $0)] } ?? [])
        return try await transport.call(Endpoints.users, query: query, bearer: apiKey)
    }

    public func disableUser(_ userID: String) async throws -> UserInfo { try await transport.call(Endpoints.disableUser, userID, bearer: apiKey) }
    public func enableUser(_ userID: String) async throws -> UserInfo { try await transport.call(Endpoints.enableUser, userID, bearer: apiKey) }
    /// Lifts a lockout (status 153) and gives the attempts back.
    public func unlockUser(_ userID: String) async throws -> UserInfo { try await transport.call(Endpoints.unlockUser, userID, bearer: apiKey) }
    /// Expires the password: the user's next password check answers 110 until a new one is set.
    public func expirePassword(_ userID: String) async throws -> UserInfo {
        try await transport.call(Endpoints.expirePassword, userID, bearer: apiKey)
    }

    /// Deletes the user with its devices, sessions and everything biometric.
    public func deleteUser(_ userID: String) async throws {
        _ = try await transport.call(Endpoints.deleteUser, userID, bearer: apiKey)
    }

    /// Voids outstanding codes and issues a new one.
    /// Starts the user over: devices unbound, sessions and tokens ended; a new activation code.
    public func resetUser(_ userID: String) async throws -> ActivationCodeInfo {
        try await transport.call(Endpoints.resetUser, userID, bearer: apiKey)
    }

    public func issueActivationCode(_ userID: String) async throws -> ActivationCodeInfo {
        try await transport.call(Endpoints.issueActivationCode, userID, bearer: apiKey)
    }

    /// Lets the user enrol a biometric template once: a replacement of the existing one, or a
    /// first one on a server that asks every enrolment for a grant. Single-use, expiring.
    public func grantEnrollment(_ userID: String) async throws -> EnrollmentGrantResponse {
        try await transport.call(Endpoints.grantEnrollment, userID, bearer: apiKey)
    }

    /// The relying party's view of an IDV transaction: the decision with its evidence, the
    /// signed result, and for a document scan the sides of the document it can read.
    public func idvVerdict(_ transactionID: String) async throws -> IDVVerdictResponse {
        try await transport.call(Endpoints.verdict, transactionID, bearer: apiKey)
    }

    /// One side (`front`, `back`) of a document scan's identity document, exactly as the user
    /// uploaded it, with its media type (`image/jpeg`, `image/png`). Each read is audited.
    public func idvDocument(_ transactionID: String, side: String) async throws -> IDVDocumentImage {
        let (data, contentType) = try await transport.bytes(Endpoints.documentImage, transactionID, side, bearer: apiKey)
        return IDVDocumentImage(contentType: contentType ?? "application/octet-stream", data: data)
    }

    public func devices(_ userID: String) async throws -> [DeviceInfo] {
        let list = try await transport.call(Endpoints.userDevices, userID, bearer: apiKey)
        return list.devices
    }

    public func revokeDevice(userID: String, deviceID: String) async throws {
        _ = try await transport.call(Endpoints.revokeDevice, userID, deviceID, bearer: apiKey)
    }

    /// The standard OpenID claims this relying party stated about the user (all empty when none).
    public func userClaims(_ userID: String) async throws -> UserClaims {
        try await transport.call(Endpoints.userClaims, userID, bearer: apiKey)
    }

    /// Replaces the user's claims; UserInfo releases them to OpenID clients by scope
    /// (`profile`, `email`, `phone`, `address`). The answer carries the server's `updated_at`.
    @discardableResult
    public func setUserClaims(_ userID: String, _ claims: UserClaims) async throws -> UserClaims {
        try await transport.call(Endpoints.setUserClaims, userID, body: claims, bearer: apiKey)
    }

}

/// A document scan's image as the server keeps it.
public struct IDVDocumentImage: Sendable, Equatable {
    /// `image/jpeg` or `image/png`.
    public let contentType: String
    /// The bytes the user uploaded.
    public let data: Data
}
