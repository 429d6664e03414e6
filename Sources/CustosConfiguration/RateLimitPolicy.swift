import Foundation

/// How many requests the authentication endpoints take in a window, per client address and
/// per user; 0 turns a limit off.
public struct RateLimitPolicy: Sendable, Equatable {
    public var perClient: Int
    public var perUser: Int
    public var window: TimeInterval

    public init(perClient: Int = 300, perUser: Int = 30, window: TimeInterval = 60) {
        self.perClient = perClient
        self.perUser = perUser
        self.window = window
    }
}
