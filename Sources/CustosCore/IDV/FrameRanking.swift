import Foundation

/// Picks the frames a template (or a live probe) is made of: large, sharp, frontal faces
/// with open eyes first.
enum FrameRanking {
    /// 0-1: how usable the face is for matching.
    static func score(_ face: Face) -> Double {
        let q = face.quality
        let size = min(1, q.faceWidth / 160)
        let frontal = max(0, 1 - abs(q.yaw) / 45) * max(0, 1 - abs(q.pitch) / 45)
        let sharp = min(1, q.sharpness / 100)
        let eyes = [q.leftEyeAspectRatio, q.rightEyeAspectRatio].compactMap { $0 }
        let open = eyes.isEmpty || eyes.reduce(0, +) / Double(eyes.count) >= 0.2 ? 1.0 : 0.3
        return size * frontal * (0.5 + 0.5 * sharp) * open
    }

    /// The template of the best `count` faces (each with a descriptor).
    static func template(from faces: [Face], count: Int) throws -> BiometricTemplate {
        let ranked = faces.filter { $0.descriptor != nil }.map { ($0, score($0)) }.sorted { $0.1 > $1.1 }.prefix(count)
        let descriptors = ranked.compactMap { $0.0.descriptor }
        guard !descriptors.isEmpty else { throw FaceError(.noFace, "no frame has a face descriptor") }
        var sum = [Float](repeating: 0, count: FaceDescriptor.length)
        for descriptor in descriptors { for index in sum.indices { sum[index] += descriptor.values[index] } }
        let mean = try FaceDescriptor(sum.map { $0 / Float(descriptors.count) })
        let quality = ranked.map(\.1).reduce(0, +) / Double(ranked.count)
        return BiometricTemplate(descriptors: descriptors, mean: mean, quality: (quality * 1000).rounded() / 1000)
    }

    /// Distance of a live probe to a template: the probe's mean against the template's mean,
    /// or against its closest single descriptor when that is nearer.
    static func distance(probe: BiometricTemplate, template: BiometricTemplate) -> Double {
        ([template.mean] + template.descriptors).map { probe.mean.distance(to: $0) }.min() ?? .infinity
    }
}
