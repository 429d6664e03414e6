import CustosAPI
import Foundation

extension CustosAdminClient {
    /// Sends a notification to a user; the answer holds its uuid (and, with number matching, the
    /// number to show on the relying party's own screen).
    public func createNotification(_ request: CreateNotificationRequest) async throws -> CreatedNotification {
        try await transport.call(Endpoints.createNotification, body: request, bearer: apiKey)
    }

    /// A notification's state, its signed result once final, and its webhook's delivery.
    public func notificationResult(_ uuid: String) async throws -> NotificationResult {
        try await transport.call(Endpoints.notificationResult, uuid, bearer: apiKey)
    }

    /// The secret that signs this API key's webhooks.
    public func webhookSecret() async throws -> WebhookSecretInfo {
        try await transport.call(Endpoints.webhookSecret, bearer: apiKey)
    }
}
