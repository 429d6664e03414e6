import CustosAPI
import CustosSDK
import Foundation

/// A new device for an active user: `custos device register` (with a registration code, the
/// approval of a bound device, or the password where the server allows it) and the relying
/// party's `custos admin device link` that issues the code.
enum DeviceRegistrationCommands {
    static let all: [Command] = [register, link]

    static let user = Option<String?>.text("user", "USER", help: "the user id").required()
    static let code = Option<String?>.text("code", "CODE", help: "the registration code (from admin device link); without it, the password")
    static let name = Option<String?>.text("name", "NAME", help: "device name (default: this host's name)")
    static let approval = Flag("approval", help: "ask the user's bound devices to approve this one, proved by the password: prints the number to type there, then waits")

    static let register = Command(spec: CommandSpec(
        path: "device register", summary: "Bind this device to an active user with a registration code, a bound device's approval or the password; log in.",
        options: [user.spec, code.spec, approval.spec, name.spec, ClientOptions.passwordStdin.spec,
                  ClientOptions.server.spec, ClientOptions.profile.spec, ClientOptions.json.spec],
        example: "custos device register --user alice --code rc_…"),
        validate: { arguments in
            let proofs = [arguments[code] != nil, arguments[ClientOptions.passwordStdin]].filter { $0 }.count
            if proofs > 1 { throw UsageError("give one of --code or the password") }
            if arguments[approval] && arguments[code] != nil { throw UsageError("--approval asks with the password; leave out --code") }
        }
    ) { arguments in
        let userID = try arguments[user]
        let server = try ClientOptions.serverURL(arguments)
        let directory = Profile.directory(arguments)
        let client = try Profile.client(server: server, directory: directory)
        let deviceName = arguments[name] ?? ProcessInfo.processInfo.hostName
        let result: AuthenticationResult
        if let registrationCode = arguments[code] {
            result = try await client.registerDevice(userID: userID, registrationCode: registrationCode, deviceName: deviceName)
        } else if arguments[approval] {
            let password = try PasswordInput.read(arguments, prompt: "Password for \(userID): ")
            let request = try await client.requestDeviceApproval(userID: userID, deviceName: deviceName, password: password)
            FileHandle.standardError.write(Data((
                "on a device already bound to \(userID), approve \"\(deviceName)\" and type this number: \(request.number)\n"
                + "(custos notifications act <uuid> approve --number \(request.number)); waiting until \(iso(request.expiresAt))…\n").utf8))
            result = try await client.awaitDeviceApproval(request, interval: .seconds(1))
        } else {
            let password = try PasswordInput.read(arguments, prompt: "Password for \(userID): ")
            result = try await client.registerDevice(userID: userID, password: password, deviceName: deviceName)
        }
        if let deviceID = result.deviceID {
            try Profile(server: server.absoluteString, userID: userID, deviceID: deviceID, sessionToken: result.session?.token).save(directory)
        }
        return try DeviceCommands.report(arguments, result, success: "registered \(result.deviceID ?? "?") for \(userID); logged in")
    }

    static let link = Command(spec: CommandSpec(
        path: "admin device link", summary: "Issue a one-time registration code that binds a new device to an active user.",
        options: AdminUserCommands.remote + [user.spec], example: "custos admin device link --user alice")
    ) { arguments in
        let issued = try await ClientOptions.adminClient(arguments).issueRegistrationCode(try arguments[user])
        try ClientOptions.output(arguments, issued) {
            ["registration code for \(issued.userID) (single use, expires \(iso(issued.expiresAt))):", issued.registrationCode,
             "on the new device: custos device register --user \(issued.userID) --code \(issued.registrationCode)"]
        }
        return .ok
    }
}
