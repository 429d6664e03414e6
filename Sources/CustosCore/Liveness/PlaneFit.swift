import Foundation

/// Least-squares fits of one set of 2-D points onto another: a similarity (rotation, scale,
/// translation) and a homography (the motion of any plane seen by a camera). Liveness uses
/// them to tell a moving head (3-D: neither fits) from a moved photo or screen (a plane: the
/// homography fits).
enum PlaneFit {
    /// A 3x3 matrix, row-major.
    struct Homography {
        var m: [Double]

        func apply(_ p: FacePoint) -> FacePoint {
            let w = m[6] * p.x + m[7] * p.y + m[8]
            guard abs(w) > 1e-12 else { return FacePoint(x: .infinity, y: .infinity) }
            return FacePoint(x: (m[0] * p.x + m[1] * p.y + m[2]) / w, y: (m[3] * p.x + m[4] * p.y + m[5]) / w)
        }

        var inverse: Homography? {
            let a = m
            let c0 = a[4] * a[8] - a[5] * a[7], c1 = a[5] * a[6] - a[3] * a[8], c2 = a[3] * a[7] - a[4] * a[6]
            let det = a[0] * c0 + a[1] * c1 + a[2] * c2
            guard abs(det) > 1e-12 else { return nil }
            return Homography(m: [
                c0 / det, (a[2] * a[7] - a[1] * a[8]) / det, (a[1] * a[5] - a[2] * a[4]) / det,
                c1 / det, (a[0] * a[8] - a[2] * a[6]) / det, (a[2] * a[3] - a[0] * a[5]) / det,
                c2 / det, (a[1] * a[6] - a[0] * a[7]) / det, (a[0] * a[4] - a[1] * a[3]) / det,
            ])
        }
    }

    /// Root-mean-square distance between corresponding points.
    static func rms(_ a: [FacePoint], _ b: [FacePoint]) -> Double {
        guard !a.isEmpty, a.count == b.count else { return .infinity }
        var sum = 0.0
        for (p, q) in zip(a, b) { sum += (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y) }
        return (sum / Double(a.count)).squareRoot()
    }

    /// Residual (RMS) of the best similarity mapping `from` onto `to`.
    static func similarityResidual(from: [FacePoint], to: [FacePoint]) -> Double {
        let n = Double(from.count)
        guard from.count >= 2, from.count == to.count else { return .infinity }
        let ca = FacePoint(x: from.map(\.x).reduce(0, +) / n, y: from.map(\.y).reduce(0, +) / n)
        let cb = FacePoint(x: to.map(\.x).reduce(0, +) / n, y: to.map(\.y).reduce(0, +) / n)
        // As complex numbers: b ≈ s·a with s = <a, b> / <a, a>.
        var re = 0.0, im = 0.0, norm = 0.0
        for (p, q) in zip(from, to) {
            let ax = p.x - ca.x, ay = p.y - ca.y, bx = q.x - cb.x, by = q.y - cb.y
            re += ax * bx + ay * by
            im += ax * by - ay * bx
            norm += ax * ax + ay * ay
        }
        guard norm > 0 else { return .infinity }
        let sr = re / norm, si = im / norm
        let mapped = from.map { p in
            let ax = p.x - ca.x, ay = p.y - ca.y
            return FacePoint(x: sr * ax - si * ay + cb.x, y: si * ax + sr * ay + cb.y)
        }
        return rms(mapped, to)
    }

    /// The least-squares homography mapping `from` onto `to` (at least 4 points), on
    /// normalised coordinates (Hartley) so that pixel scales do not matter.
    static func homography(from: [FacePoint], to: [FacePoint]) -> Homography? {
        guard from.count >= 4, from.count == to.count else { return nil }
        guard let (ta, na) = normalising(from), let (tb, nb) = normalising(to) else { return nil }
        // Unknowns h0…h7 with h8 = 1: two equations per point, solved by normal equations.
        var ata = [Double](repeating: 0, count: 64), atb = [Double](repeating: 0, count: 8)
        for (p, q) in zip(na, nb) {
            let rows: [([Double], Double)] = [
                ([p.x, p.y, 1, 0, 0, 0, -q.x * p.x, -q.x * p.y], q.x),
                ([0, 0, 0, p.x, p.y, 1, -q.y * p.x, -q.y * p.y], q.y),
            ]
            for (row, rhs) in rows {
                for i in 0..<8 {
                    atb[i] += row[i] * rhs
                    for j in 0..<8 { ata[i * 8 + j] += row[i] * row[j] }
                }
            }
        }
        guard let h = solve(ata, atb, n: 8) else { return nil }
        let normalised = Homography(m: h + [1])
        guard let tbInverse = tb.inverse else { return nil }
        return Homography(m: multiply(tbInverse.m, multiply(normalised.m, ta.m)))
    }

    /// Residual (RMS) of the best homography mapping `from` onto `to`, with the homography.
    static func homographyResidual(from: [FacePoint], to: [FacePoint]) -> (residual: Double, homography: Homography?) {
        guard let h = homography(from: from, to: to) else { return (.infinity, nil) }
        return (rms(from.map(h.apply), to), h)
    }

    /// Moves the centroid to the origin and scales the mean distance to √2.
    private static func normalising(_ points: [FacePoint]) -> (Homography, [FacePoint])? {
        let n = Double(points.count)
        let cx = points.map(\.x).reduce(0, +) / n, cy = points.map(\.y).reduce(0, +) / n
        let mean = points.map { ((($0.x - cx) * ($0.x - cx)) + (($0.y - cy) * ($0.y - cy))).squareRoot() }.reduce(0, +) / n
        guard mean > 1e-9 else { return nil }
        let s = 2.0.squareRoot() / mean
        let t = Homography(m: [s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1])
        return (t, points.map { FacePoint(x: s * ($0.x - cx), y: s * ($0.y - cy)) })
    }

    private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var c = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { c[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j] } } }
        return c
    }

    /// Gaussian elimination with partial pivoting; nil when singular.
    private static func solve(_ matrix: [Double], _ rhs: [Double], n: Int) -> [Double]? {
        var a = matrix, b = rhs
        for column in 0..<n {
            var pivot = column
            for row in (column + 1)..<n where abs(a[row * n + column]) > abs(a[pivot * n + column]) { pivot = row }
            guard abs(a[pivot * n + column]) > 1e-12 else { return nil }
            if pivot != column {
                for k in 0..<n { a.swapAt(column * n + k, pivot * n + k) }
                b.swapAt(column, pivot)
            }
            for row in (column + 1)..<n {
                let factor = a[row * n + column] / a[column * n + column]
                guard factor != 0 else { continue }
                for k in column..<n { a[row * n + k] -= factor * a[column * n + k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<n { sum -= a[row * n + k] * x[k] }
            x[row] = sum / a[row * n + row]
        }
        return x
    }
}
