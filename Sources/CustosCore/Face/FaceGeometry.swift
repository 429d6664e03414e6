/// A point in image pixels (x to the right, y down).
public struct FacePoint: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Euclidean distance to another point.
    public func distance(to other: FacePoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }

    /// The midpoint of two points.
    public static func midpoint(_ a: FacePoint, _ b: FacePoint) -> FacePoint {
        FacePoint(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
    }
}

/// A face box in image pixels: left/top inclusive, `width` x `height`, with the detector's
/// confidence (HOG: SVM margin, above 0 for a detection; CNN: MMOD score).
public struct FaceBox: Sendable, Hashable, Codable {
    public var left: Int
    public var top: Int
    public var width: Int
    public var height: Int
    public var score: Double

    public init(left: Int, top: Int, width: Int, height: Int, score: Double = 0) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.score = score
    }

    /// One past the last column / row.
    public var right: Int { left + width }
    public var bottom: Int { top + height }

    /// Intersection over union with another box (0 when disjoint).
    public func overlap(with other: FaceBox) -> Double {
        let w = max(0, min(right, other.right) - max(left, other.left))
        let h = max(0, min(bottom, other.bottom) - max(top, other.top))
        let intersection = Double(w * h)
        let union = Double(width * height + other.width * other.height) - intersection
        return union > 0 ? intersection / union : 0
    }
}
