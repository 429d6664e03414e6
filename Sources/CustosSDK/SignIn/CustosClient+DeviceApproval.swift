import CustosAPI
import Foundation

/// A request, from this device, to be approved on one of the user's bound devices.
public struct DeviceApproval: Sendable, Equatable {
    public var userID: String
    /// Show it: the user types it on the bound device before approving.
    public var number: Int
    public var expiresAt: Date
    /// The secret the claim is made with: keep it in memory, never log it.
    let requestToken: String
}

extension CustosClient {
    /// Asks the user's bound devices to approve this one, with the user's password as the proof
    /// that the requester knows the user: a new key is made (kept only once the server binds it)
    /// and the server sends the user's devices a notification with number matching. Show
    /// `number` to the user, who types it on a bound device and approves there; then call
    /// `awaitDeviceApproval`. A wrong password (or an unknown user id) throws
    /// `approval_proof_rejected` and nothing reaches the user.
    public func requestDeviceApproval(userID: String, deviceName: String, password: String) async throws -> DeviceApproval {
        try await requestDeviceApproval(userID: userID, deviceName: deviceName, password: password, registrationCode: nil)
    }

    /// The same, proved by a registration code the relying party issued for the user (spent by
    /// the request).
    public func requestDeviceApproval(userID: String, deviceName: String, registrationCode: String) async throws -> DeviceApproval {
        try await requestDeviceApproval(userID: userID, deviceName: deviceName, password: nil, registrationCode: registrationCode)
    }

    private func requestDeviceApproval(userID: String, deviceName: String, password: String?,
                                       registrationCode: String?) async throws -> DeviceApproval {
        let keyStore = try requireKeyStore()
        let staging = account(userID) + "|approval"
        try? keyStore.deleteKey(for: staging)
        let key = try keyStore.createKey(for: staging)
        do {
            let ticket = try await transport.call(Endpoints.requestDeviceApproval, body: DeviceApprovalRequestBody(
                userID: userID, deviceName: deviceName, devicePublicKey: key.publicKey, password: password, registrationCode: registrationCode))
            return DeviceApproval(userID: userID, number: ticket.number, expiresAt: ticket.expiresAt, requestToken: ticket.requestToken)
        } catch {
            try? keyStore.deleteKey(for: staging)
            throw error
        }
    }

    /// Waits for the user's answer on the bound device, asking every `interval`: approved, this
    /// device is bound (`DeviceBinding` `device_approval`) and signed in (`onUserLoggedIn`);
    /// denied, failed or expired, the server's `approval_denied` is thrown and the new key is
    /// deleted. Cancelling the task stops the wait (the key stays for another claim).
    public func awaitDeviceApproval(_ approval: DeviceApproval, interval: Duration = .seconds(2)) async throws -> AuthenticationResult {
        try await emitting(.onUserLoggedIn, { AuthenticationEvent(userID: approval.userID, error: $0, response: $1) }) {
            let keyStore = try requireKeyStore()
            let staging = account(approval.userID) + "|approval"
            let result: AuthenticationResult
            while true {
                do {
                    result = try await transport.call(Endpoints.claimDeviceApproval, body: DeviceApprovalClaim(requestToken: approval.requestToken))
                    break
                } catch let error as CustosError where error.code == "approval_pending" {
                    try await Task.sleep(for: interval)
                } catch let error as CustosError where error.code == "approval_denied" {
                    try? keyStore.deleteKey(for: staging)
                    throw error
                }
            }
            guard let deviceID = result.deviceID else { return result }
            try keyStore.moveKey(from: staging, to: account(approval.userID))
            state.withLock { state in
                state.userID = approval.userID
                state.deviceID = deviceID
                state.sessionToken = result.session?.token
            }
            return result
        }
    }
}
