import CustosAPI
import CustosSDK
import Foundation
import Synchronization

/// An app written by following the seeds event handler by event handler, with Foundation and
/// the SDK only: seed 000's Biometric Authentication screen, seed 002's notifications screen
/// with its step-up modal, seed 004's bound sign-in at app start. Each screen keeps what it
/// would show (its texts, its button, its alerts in order) and the test asserts that, against
/// a live server.
final class SeedApp: Sendable {
    struct Alert: Equatable, Sendable, CustomStringConvertible {
        let title: String
        let message: String
        var description: String { "\(title): \(message)" }
    }

    /// What the screens show now.
    struct Shown: Sendable {
        var templateStatus = ""
        var bannerOK: Bool?
        var buttonTitle = "Start Authentication"
        var buttonEnabled = false
        var alerts: [Alert] = [] {
            didSet { if let last = alerts.last, alerts.count > oldValue.count { journal.append("alert: \(last.title)") } }
        }
        /// Alerts and screen changes in the order the user saw them.
        var journal: [String] = []
        var stepUpModalOpen = false
        var actionModalOpen = false
        var screen = "dashboard" {
            didSet { journal.append("screen: \(screen)") }
        }
    }

    /// The screens' state, shared with the handlers.
    private final class Screens: Sendable {
        private let state = Mutex(Shown())
        func withLock<R: Sendable>(_ body: (inout Shown) -> R) -> R { state.withLock { body(&$0) } }
    }

    let client: CustosClient
    private let shown = Screens()
    private let tokens = Mutex<[HandlerToken]>([])

    init(_ client: CustosClient, password: @escaping @Sendable () -> String?) {
        self.client = client
        let shown = self.shown
        func on<Payload>(_ event: CustosEvent<Payload>, _ handler: @escaping @Sendable (Payload) -> Void) {
            let token = client.events.on(event, handler)
            tokens.withLock { $0.append(token) }
        }
        // Seed 000: handleCheckUserBiometricTemplateStatus.
        on(.onIDVCheckUserBiometricTemplateStatus) { event in
            shown.withLock { shown in
                if let error = event.error {
                    shown.templateStatus = "Error: \(error.message)"
                    shown.bannerOK = false
                    shown.buttonEnabled = false
                    shown.alerts.append(Alert(title: "Template Status Check Error", message: "Failed to check template status: \(error.message)"))
                } else if let response = event.response {
                    let exists = response.statusCode == 100
                    shown.templateStatus = "Status: \(response.statusMessage) (Code: \(response.statusCode.rawValue))"
                    shown.bannerOK = exists
                    shown.buttonEnabled = exists
                }
                shown.buttonTitle = "Start Authentication"
            }
        }
        // The dashboard's app-wide handler: every selfie start is confirmed.
        on(.onGetIDVSelfieProcessStartConfirmation) { [client] request in
            client.setIDVSelfieProcessStartConfirmation(true, workflow: request.workflow)
        }
        // Seed 000: processAuthenticationResult — the error, then the status, then the biometric result.
        on(.onIDVServerBiometricAuthenticationResult) { event in
            shown.withLock { shown in
                shown.buttonTitle = "Start Authentication"
                shown.buttonEnabled = true
                if let error = event.error {
                    shown.alerts.append(Alert(title: "Authentication Error", message: "\(error.message)\n\nError Code: \(error.longErrorCode)"))
                } else if let response = event.response, response.statusCode != 100 {
                    shown.alerts.append(Alert(title: "Authentication Failed",
                                              message: "Status: \(response.statusMessage)\nStatus Code: \(response.statusCode.rawValue)"))
                } else if let response = event.response {
                    let display = response.biometricResult?.displayText.rawValue ?? "N/A"
                    let lines = ["Biometric Result: \(display)", "Use Case: \(response.idvAuditInfo.orchestrationUseCase)",
                                 "Transaction ID: \(response.idvAuditInfo.idvAuditTransactionID)", "Attempts Left: \(response.attemptsLeft)"]
                    shown.alerts.append(Alert(title: display == "MATCHED" ? "✅ Authentication Success" : "❌ Authentication Failed",
                                              message: lines.joined(separator: "\n")))
                }
            }
        }
        // Seed 002: the step-up modal asks for the password (challenge mode 3).
        on(.onGetPassword) { [client] request in
            shown.withLock { $0.stepUpModalOpen = request.challengeMode == 3 }
            client.setPassword(password())
        }
        // Seed 002: handleNotificationUpdateResult.
        on(.onUpdateNotification) { event in
            shown.withLock { shown in
                if event.error?.longErrorCode == 131 {
                    shown.stepUpModalOpen = false
                    shown.alerts.append(Alert(title: "Authentication Cancelled", message: "Local device authentication was cancelled. Please try again."))
                    return  // the action modal stays open for a retry
                }
                shown.stepUpModalOpen = false
                shown.actionModalOpen = false
                if let error = event.error {
                    shown.alerts.append(Alert(title: "Update Failed", message: error.message))
                } else if let response = event.response {
                    switch response.statusCode.rawValue {
                    case 0, 100: shown.alerts.append(Alert(title: "Success", message: response.statusMessage))
                    case 110, 153: shown.alerts.append(Alert(title: "Authentication Failed", message: response.statusMessage))
                    default: shown.alerts.append(Alert(title: "Update Failed", message: response.statusMessage))
                    }
                }
            }
        }
        // Seed 002: "SDK will automatically trigger onUserLoggedOff": the app goes to sign-in.
        on(.onUserLoggedOff) { _ in shown.withLock { $0.screen = "login" } }
    }

    var now: Shown { shown.withLock { $0 } }

    /// Waits until the event queue delivered everything emitted so far.
    func settled() async -> Shown {
        await withCheckedContinuation { continuation in client.events.queue.async { continuation.resume() } }
        return now
    }

    /// Seed 000's viewWillAppear: the template check, the button saying so meanwhile.
    func showBiometricScreen() async -> Shown {
        shown.withLock {
            $0.buttonTitle = "Checking Template Status..."
            $0.buttonEnabled = false
        }
        _ = try? await client.checkIDVUserBiometricTemplateStatus()
        return await settled()
    }

    /// Seed 000's Start Authentication button.
    func startAuthentication(_ camera: any FrameSource) async -> Shown {
        shown.withLock {
            $0.buttonTitle = "Authenticating..."
            $0.buttonEnabled = false
        }
        _ = try? await client.initiateIDVServerBiometricAuthentication(reason: "Server Biometric Authentication", frameSource: camera)
        return await settled()
    }

    /// Seed 002: the notifications list, an action tapped in the action modal.
    func answer(_ uuid: String, action: String) async -> Shown {
        shown.withLock { $0.actionModalOpen = true }
        _ = try? await client.updateNotification(uuid: uuid, action: action)
        return await settled()
    }

    func removeHandlers() { tokens.withLock { $0.removeAll() } }
}
