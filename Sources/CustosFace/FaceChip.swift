import CustosCore

/// A face aligned on its 5 landmarks: `size` x `size` packed RGB, as the descriptor network takes it.
public struct FaceChip: Sendable, Hashable {
    /// The descriptor network's input side.
    public static let descriptorSize = 150
    /// Space around the landmarks (dlib's and face_recognition's 0.25).
    public static let descriptorPadding = 0.25

    public let size: Int
    public let rgb: [UInt8]

    public init(size: Int, rgb: [UInt8]) {
        self.size = size
        self.rgb = rgb
    }

    /// Mean luma (0-255), BT.601 weights.
    public var brightness: Double {
        var sum = 0.0
        for index in stride(from: 0, to: rgb.count, by: 3) { sum += luma(index) }
        return rgb.isEmpty ? 0 : sum / Double(rgb.count / 3)
    }

    /// Variance of the 4-neighbour Laplacian of the luma (interior pixels): low when blurred.
    public var sharpness: Double {
        guard size >= 3 else { return 0 }
        var gray = [Double](repeating: 0, count: size * size)
        for pixel in 0..<(size * size) { gray[pixel] = luma(pixel * 3) }
        var sum = 0.0, sumOfSquares = 0.0
        for y in 1..<(size - 1) {
            for x in 1..<(size - 1) {
                let i = y * size + x
                let laplacian = gray[i - 1] + gray[i + 1] + gray[i - size] + gray[i + size] - 4 * gray[i]
                sum += laplacian
                sumOfSquares += laplacian * laplacian
            }
        }
        let n = Double((size - 2) * (size - 2))
        let mean = sum / n
        return max(0, sumOfSquares / n - mean * mean)
    }

    private func luma(_ index: Int) -> Double {
        0.299 * Double(rgb[index]) + 0.587 * Double(rgb[index + 1]) + 0.114 * Double(rgb[index + 2])
    }
}
