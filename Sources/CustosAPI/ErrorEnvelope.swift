/// The body of every error answer: `{"error":{"code":"<stable_snake_case>","message":"<human text>"}}`.
public struct ErrorEnvelope: Codable, Equatable, Sendable {
    public struct Detail: Codable, Equatable, Sendable {
        /// Stable, machine-readable, snake_case.
        public var code: String
        /// For people; never carries internal detail.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: String, message: String) {
        error = Detail(code: code, message: message)
    }
}
