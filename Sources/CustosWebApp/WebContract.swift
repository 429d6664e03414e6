import CustosAPI
import Foundation

/// `contract.js`: the API's contract for the web app, written from CustosAPI when the server
/// starts — every endpoint of the table by its name (method and path template), the contract's
/// status codes, workflows, challenge modes and auth levels with their names. The app's
/// scripts import it instead of typing paths and codes again, so they cannot drift from what
/// the server routes.
enum WebContract {
    static let statusCodes: [(String, StatusCode)] = [
        ("success", .success), ("successAlternate", .successAlternate), ("stepUpRequired", .stepUpRequired),
        ("passwordExpired", .passwordExpired), ("localAuthenticationCancelled", .localAuthenticationCancelled),
        ("attemptsExhausted", .attemptsExhausted), ("userCancelledSelfie", .userCancelledSelfie),
        ("credentialsRejected", .credentialsRejected), ("noTemplate", .noTemplate),
    ]
    static let workflows: [(String, Workflow)] = [
        ("kyc", .kyc), ("additionalDocumentScan", .additionalDocumentScan), ("serverBiometricAuthentication", .serverBiometricAuthentication),
        ("stepUpBiometric", .stepUpBiometric), ("biometricOptIn", .biometricOptIn),
    ]
    static let challengeModes: [(String, ChallengeMode)] = [
        ("password", .password), ("kyc", .kyc), ("documentScan", .documentScan), ("serverBiometric", .serverBiometric),
    ]
    /// Each level, and what it asks of the user in words.
    static let authLevels: [(String, AuthLevel, String)] = [
        ("none", .none, "no step-up"), ("password", .password, "password"), ("appDefined", .appDefined, "app-defined"),
        ("deviceSignature", .deviceSignature, "device signature"), ("serverBiometric", .serverBiometric, "server biometric"),
    ]

    static func javascript() -> String {
        let endpoints = Dictionary(uniqueKeysWithValues: Endpoints.named.map { ($0.name, ["method": $0.endpoint.method.rawValue, "path": $0.endpoint.path]) })
        let levelNames = Dictionary(uniqueKeysWithValues: authLevels.map { (String($0.1.rawValue), $0.2) })
        return """
        // The API's contract for the web app, written by the server from CustosAPI when it starts:
        // the endpoint table by name, and the contract's codes. Not a file of the source tree.
        const freeze = (value) => Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "object" ? Object.freeze(v) : v])));

        export const endpoints = freeze(\(json(endpoints)));
        export const status = freeze(\(json(Dictionary(uniqueKeysWithValues: statusCodes.map { ($0.0, $0.1.rawValue) }))));
        export const workflow = freeze(\(json(Dictionary(uniqueKeysWithValues: workflows.map { ($0.0, $0.1.rawValue) }))));
        export const challengeMode = freeze(\(json(Dictionary(uniqueKeysWithValues: challengeModes.map { ($0.0, $0.1.rawValue) }))));
        export const authLevel = freeze(\(json(Dictionary(uniqueKeysWithValues: authLevels.map { ($0.0, $0.1.rawValue) }))));
        /** What each auth level asks of the user, by its number. */
        export const authLevelNames = freeze(\(json(levelNames)));

        /** `endpoint`'s path with its `{…}` segments filled by `params`, in order, each encoded as one segment. */
        export function pathOf(endpoint, params = []) {
          let index = 0;
          const path = endpoint.path.replace(/\\{[^}]+\\}/g, () => {
            if (index >= params.length) throw new Error(`${endpoint.path} needs more parameters`);
            return encodeURIComponent(params[index++]);
          });
          if (index !== params.length) throw new Error(`${endpoint.path} takes ${index} parameters`);
          return path;
        }

        """
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and integers only: encoding cannot fail.
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}
