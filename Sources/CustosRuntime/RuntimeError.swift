/// Why the server's parts could not be put together, in one line that says what to fix.
/// `configuration` problems are the operator's to correct (a missing or malformed key);
/// `failure`s happened while acting on a sound configuration (a file that cannot be read,
/// data sealed with another key). The CLI maps them to its usage and failure exit statuses.
public struct RuntimeError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case configuration, failure
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
