import CustosSDK
import Foundation

/// What `custos device activate` / `login` keep between runs: the server, the user, the
/// device and the session token (a secret: the file is 0600 in a 0700 directory), with the
/// device key beside it.
struct Profile: Codable {
    var server: String
    var userID: String
    var deviceID: String
    var sessionToken: String?

    enum CodingKeys: String, CodingKey {
        case server
        case userID = "user_id"
        case deviceID = "device_id"
        case sessionToken = "session_token"
    }

    static func directory(_ arguments: ParsedArguments) -> URL {
        if let path = arguments[ClientOptions.profile] ?? ProcessInfo.processInfo.environment["CUSTOS_PROFILE"] {
            return URL(fileURLWithPath: path)
        }
        // $HOME first: on Linux the account's home from the password database ignores it.
        if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".custos/profile")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".custos/profile")
    }

    static func load(_ directory: URL) throws -> Profile {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent("profile.json").path) else {
            throw UsageError("no profile in \(directory.path): run 'custos device activate' first")
        }
        do {
            return try JSONDecoder().decode(Profile.self, from: data)
        } catch {
            throw UsageError("the profile in \(directory.path) is unreadable")
        }
    }

    func save(_ directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = directory.appendingPathComponent("profile.json").path
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            throw CommandFailure("cannot write the profile in \(directory.path)")
        }
    }

    /// The same scheme, host, port and path, whatever the case of the host or a trailing slash.
    private static func sameServer(_ a: URL, _ b: URL) -> Bool {
        func normal(_ url: URL) -> [String] {
            [url.scheme?.lowercased() ?? "", url.host?.lowercased() ?? "", url.port.map(String.init) ?? "",
             url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path]
        }
        return normal(a) == normal(b)
    }

    static func client(server: URL, directory: URL) throws -> CustosClient {
        try CustosClient(configuration: .init(serverURL: server, keyStore: FileDeviceKeyStore(directory: directory.appendingPathComponent("keys"))))
    }

    /// What a command run as this device starts with: the command line's profile, where it
    /// lives, and a client for its server resumed in its session (if it has one). The server
    /// is the one the profile was activated against: its device key and session mean nothing
    /// elsewhere, and the session token is a secret that no other server should be sent, so a
    /// different `--server` or `CUSTOS_SERVER` is refused rather than followed or ignored.
    static func open(_ arguments: ParsedArguments) throws -> (profile: Profile, directory: URL, client: CustosClient) {
        let directory = directory(arguments)
        let profile = try load(directory)
        guard let server = URL(string: profile.server) else { throw UsageError("the profile's server URL is unreadable") }
        if let given = try ClientOptions.givenServer(arguments), !sameServer(given, server) {
            throw UsageError("the profile in \(directory.path) belongs to \(profile.server), not \(given.absoluteString): "
                             + "its session is sent to no other server (activate a device there with another --profile)")
        }
        let client = try client(server: server, directory: directory)
        client.restore(SessionState(userID: profile.userID, deviceID: profile.deviceID, sessionToken: profile.sessionToken))
        return (profile, directory, client)
    }
}
