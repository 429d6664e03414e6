/// A 128-d face descriptor (dlib's ResNet embedding). Faces of one person lie close together:
/// the Euclidean distance between two descriptors is the comparison score.
public struct FaceDescriptor: Sendable, Hashable, Codable {
    /// Number of components.
    public static let length = 128

    public let values: [Float]

    /// Fails unless there are exactly `length` finite values.
    public init(_ values: [Float]) throws(FaceError) {
        guard values.count == Self.length, values.allSatisfy(\.isFinite) else {
            throw FaceError(.invalidDescriptor, "a descriptor has \(Self.length) finite values, got \(values.count)")
        }
        self.values = values
    }

    /// Euclidean distance (accumulated in Double).
    public func distance(to other: FaceDescriptor) -> Double {
        var sum = 0.0
        for index in 0..<Self.length {
            let difference = Double(values[index]) - Double(other.values[index])
            sum += difference * difference
        }
        return sum.squareRoot()
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(container.decode([Float].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}
