import Foundation

/// The source of "now" for every time-dependent decision, so tests can pin time.
public protocol Clock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemClock: Clock {
    public init() {}
    public func now() -> Date { Date() }
}
