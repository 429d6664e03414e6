import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

@Suite("Same identity below the threshold, different identities above", needsSharedData)
struct FaceIdentityTests {
    @Test func portraitSetsSeparateAtTheDefaultThreshold() throws {
        let engine = try Fixtures.engine()
        let policy = try FaceMatchPolicy()
        var samples: [(identity: String, file: String, descriptor: FaceDescriptor)] = []
        for row in try Fixtures.files(kind: "portrait") where row["file"]?.hasPrefix("identities/") == true {
            let file = try #require(row["file"])
            let face = try #require(Fixtures.largest(try Fixtures.faces(file)), "\(file)")
            samples.append((try #require(row["identity"]), file, try #require(face.descriptor)))
        }
        #expect(samples.count >= 60)
        var genuine = 0, impostor = 0
        for (i, a) in samples.enumerated() {
            for b in samples[(i + 1)...] {
                let distance = engine.distance(a.descriptor, b.descriptor)
                if a.identity == b.identity {
                    genuine += 1
                    #expect(policy.decide(distance: distance) == .same, "\(a.file) vs \(b.file): \(distance)")
                } else {
                    impostor += 1
                    #expect(policy.decide(distance: distance) == .different, "\(a.file) vs \(b.file): \(distance)")
                }
            }
        }
        #expect(genuine >= 60 && impostor >= 2000)
    }

    @Test func flipAndJittersStayCloseToThePlainDescriptor() throws {
        let engine = try Fixtures.engine()
        let data = try Fixtures.data("identities/Angelina_Jolie/img5.jpg")
        let plain = try #require(engine.analyze(data, options: FaceOptions(flip: false)).first?.descriptor)
        let flipped = try #require(engine.analyze(data, options: FaceOptions(flip: true)).first?.descriptor)
        let jittered = try #require(engine.analyze(data, options: FaceOptions(jitters: 5)).first?.descriptor)
        #expect(plain != flipped)
        #expect(engine.distance(plain, flipped) < 0.15)
        #expect(engine.distance(plain, jittered) < 0.15)
        // Same seed per worker: jitters are reproducible on one engine instance.
        let again = try engine.withWorker { worker in try worker.analyze(try engine.decode(data), options: FaceOptions(jitters: 3)) }
        let twice = try engine.withWorker { worker in try worker.analyze(try engine.decode(data), options: FaceOptions(jitters: 3)) }
        #expect(again.count == 1 && twice.count == 1)
    }

    @Test func batchDescriptorsMatchOneAtATime() throws {
        let engine = try Fixtures.engine()
        let image = try engine.decode(try Fixtures.data("group/two_people.jpg"))
        try engine.withWorker { worker in
            let faces = try worker.analyze(image, options: .thorough)
            try #require(faces.count == 2)
            let chips = try faces.map { try worker.chip(image, landmarks: $0.landmarks) }
            let batch = try worker.descriptors(chips)
            for (index, chip) in chips.enumerated() {
                let single = try worker.descriptors([chip])[0]
                for (x, y) in zip(single.values, batch[index].values) { #expect(abs(x - y) < 1e-4) }
            }
        }
    }
}
