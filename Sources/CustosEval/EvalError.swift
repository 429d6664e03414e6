import CustosCore
import Foundation

/// A data set or pairs file that cannot be read or makes no sense, named precisely enough to fix.
public struct EvalError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reading the images an evaluation names.
public enum EvalFiles {
    public static func read(_ path: String) throws(FaceError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FaceError(.imageUnreadable, "cannot read \(path)")
        }
    }
}
