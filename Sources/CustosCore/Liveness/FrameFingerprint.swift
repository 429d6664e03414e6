import Foundation

/// What a frame shows, for telling a replayed frame from a new one whatever its bytes: the
/// whole frame reduced to a 32 x 32 luma grid, transformed (DCT-II), and its 63 lowest
/// frequencies but the mean kept as a unit vector.
///
/// Appended bytes, re-encoding, resizing and brightness or contrast changes barely move it
/// (the grid averages codec noise away; dropping the mean and normalising cancel brightness
/// and contrast; a resized frame gives the same grid), while motion moves it. A mirrored
/// frame is caught by comparing against `mirrored`, which flips the horizontal frequencies'
/// signs. On ../shared/data/liveness, re-encoding moves it by about 0.001, resizing to 80% by
/// about 0.005; consecutive frames of a person holding still differ by 0.003-0.01, of a
/// turning head by 0.02-0.2 (`SequenceReplay` judges whole takes, not single frames).
///
/// It is not a face image: 63 coarse frequency weights of the whole scene, without their
/// mean and scale, hold no more than an 8 x 8 block pattern in which a face is a few blocks.
/// It is still stored sealed, like templates, and only as long as `seenFrameMemory`.
public struct FrameFingerprint: Sendable, Hashable, Codable {
    /// Side of the luma grid the frame is reduced to.
    public static let gridSide = 32
    /// Lowest frequencies kept per axis (the (0, 0) mean is dropped).
    public static let frequencies = 8
    public static let length = frequencies * frequencies - 1

    /// Unit vector of `length` coefficients, row (vertical frequency) major.
    public let values: [Float]

    /// From stored values; nil unless there are `length` finite ones.
    public init?(values: [Float]) {
        guard values.count == Self.length, values.allSatisfy(\.isFinite) else { return nil }
        self.values = values
    }

    /// From a `gridSide` x `gridSide` luma grid (rows top-down); nil for a flat grid.
    public init?(luma grid: [Double]) {
        let side = Self.gridSide, kept = Self.frequencies
        guard grid.count == side * side else { return nil }
        // Separable DCT-II: rows, then columns, only the kept frequencies.
        let basis = Self.basis
        var rows = [Double](repeating: 0, count: side * kept)
        for y in 0..<side {
            for u in 0..<kept {
                var sum = 0.0
                for x in 0..<side { sum += grid[y * side + x] * basis[u * side + x] }
                rows[y * kept + u] = sum
            }
        }
        var coefficients: [Double] = []
        coefficients.reserveCapacity(Self.length)
        for v in 0..<kept {
            for u in 0..<kept where u != 0 || v != 0 {
                var sum = 0.0
                for y in 0..<side { sum += rows[y * kept + u] * basis[v * side + y] }
                coefficients.append(sum)
            }
        }
        let norm = coefficients.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard norm > 1e-9 else { return nil }
        values = coefficients.map { Float($0 / norm) }
    }

    /// cos(pi (2x + 1) k / 2N) for k < frequencies, x < gridSide.
    private static let basis: [Double] = {
        let side = gridSide
        var table = [Double](repeating: 0, count: frequencies * side)
        for k in 0..<frequencies {
            for x in 0..<side { table[k * side + x] = cos(Double.pi * Double(2 * x + 1) * Double(k) / Double(2 * side)) }
        }
        return table
    }()

    /// The fingerprint of the horizontally mirrored frame (odd horizontal frequencies change sign).
    public var mirrored: FrameFingerprint {
        var flipped = values
        var index = 0
        for v in 0..<Self.frequencies {
            for u in 0..<Self.frequencies where u != 0 || v != 0 {
                if u % 2 == 1 { flipped[index] = -flipped[index] }
                index += 1
            }
        }
        return FrameFingerprint(uncheckedValues: flipped)
    }

    private init(uncheckedValues: [Float]) { values = uncheckedValues }

    /// Euclidean distance between the unit vectors: 0 for the same picture, about 1.4 for
    /// unrelated ones.
    public func distance(to other: FrameFingerprint) -> Double {
        var sum: Float = 0
        for index in 0..<min(values.count, other.values.count) {
            let difference = values[index] - other.values[index]
            sum += difference * difference
        }
        return Double(sum.squareRoot())
    }

    /// `distance(to: other.mirrored)`, without making the mirror image.
    public func distanceToMirror(of other: FrameFingerprint) -> Double {
        let signs = Self.mirrorSigns
        var sum: Float = 0
        for index in 0..<min(values.count, other.values.count) {
            let difference = values[index] - signs[index] * other.values[index]
            sum += difference * difference
        }
        return Double(sum.squareRoot())
    }

    /// -1 where `mirrored` changes a coefficient's sign, else 1.
    private static let mirrorSigns: [Float] = {
        var signs: [Float] = []
        for v in 0..<frequencies {
            for u in 0..<frequencies where u != 0 || v != 0 { signs.append(u % 2 == 1 ? -1 : 1) }
        }
        return signs
    }()

    /// The smaller of the distances to `other` and to its mirror image.
    public func distanceAllowingMirror(to other: FrameFingerprint) -> Double {
        min(distance(to: other), distanceToMirror(of: other))
    }
}
