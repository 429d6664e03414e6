import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

@Suite("Engine: models, pool, optional models", needsSharedData)
struct FaceEngineTests {
    @Test func missingModelsAreNamedAtStart() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("custos-no-models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        do {
            _ = try FaceEngine(configuration: FaceEngineConfiguration(models: FaceModelFiles(directory: empty), poolSize: 1))
            Issue.record("expected model_missing")
        } catch {
            #expect(error.code == .modelMissing)
            #expect(error.message.contains(FaceModelFiles.shapePredictor5Name) || error.message.contains(FaceModelFiles.descriptorName))
        }
        // A model file of the wrong content is invalid, not missing.
        let real = try FaceModelFiles.locate(searchFrom: [SharedData.packageRoot])
        try Data("not a model".utf8).write(to: empty.appendingPathComponent(FaceModelFiles.shapePredictor5Name))
        try FileManager.default.createSymbolicLink(at: empty.appendingPathComponent(FaceModelFiles.descriptorName), withDestinationURL: real.descriptor)
        do {
            _ = try FaceEngine(configuration: FaceEngineConfiguration(models: FaceModelFiles(directory: empty), poolSize: 1))
            Issue.record("expected model_invalid")
        } catch {
            #expect(error.code == .modelInvalid)
        }
    }

    @Test func modelsDirectoryComesFromTheEnvironmentFirst() throws {
        let files = try FaceModelFiles.locate(environment: ["CUSTOS_MODELS_DIR": "/opt/models"], searchFrom: [])
        #expect(files.directory.path == "/opt/models")
        #expect(throws: FaceError.self) { try FaceModelFiles.locate(environment: [:], searchFrom: [URL(fileURLWithPath: "/")]) }
    }

    @Test func everythingWorksWithoutThe68PointModel() throws {
        let files = try FaceModelFiles.locate(searchFrom: [SharedData.packageRoot])
        let engine = try FaceEngine(configuration: FaceEngineConfiguration(models: files, poolSize: 1, use68PointLandmarks: false,
                                                                           useCNNDetector: false))
        #expect(!engine.has68PointLandmarks)
        let data = try Fixtures.data("identities/Barack_Obama/obama.jpg")
        let face = try #require(engine.analyze(data, options: .selfie).first)
        #expect(face.landmarks.sixtyEight == nil && face.quality.leftEyeAspectRatio == nil)
        let reference = try #require(Fixtures.faces("identities/Barack_Obama/obama.jpg", .selfie).first)
        #expect(face.descriptor == reference.descriptor)   // alignment uses the 5 points only
        #expect(throws: FaceError.self) { try engine.analyze(data, options: FaceOptions(detector: .cnn)) }
    }

    @Test func cnnDetectorFindsFacesWhenLoaded() throws {
        let files = try FaceModelFiles.locate(searchFrom: [SharedData.packageRoot])
        let engine = try FaceEngine(configuration: FaceEngineConfiguration(models: files, poolSize: 1, use68PointLandmarks: false))
        #expect(engine.hasCNNDetector)
        let faces = try engine.analyze(try Fixtures.data("small/obama-240p.jpg"), options: FaceOptions(detector: .cnn, upsample: 1, maxDetectionSide: nil))
        #expect(faces.count == 1)
        let hog = try #require(Fixtures.faces("small/obama-240p.jpg").first)
        #expect(faces[0].box.overlap(with: hog.box) > 0.3)
    }

    @Test func concurrentCallsShareThePoolAndAgreeWithSequentialOnes() async throws {
        let engine = try Fixtures.engine()
        let files = ["identities/Katy_Perry/img43.jpg", "identities/Sundar_Pichai/img25.jpg", "group/kit_with_rose.jpg",
                     "exif/image_T1.jpg", "noface/scream.jpg", "identities/Eric_Clapton/clapton-2.jpg"]
        let inputs = try files.map { try Fixtures.data($0) }
        let sequential = try inputs.map { try engine.analyze($0, options: .selfie) }
        let concurrent = try await withThrowingTaskGroup(of: (Int, [Face]).self) { group in
            for round in 0..<3 {
                for (index, data) in inputs.enumerated() {
                    group.addTask { (index + round * 0, try engine.analyze(data, options: .selfie)) }
                }
            }
            var results: [(Int, [Face])] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(concurrent.count == 18)
        for (index, faces) in concurrent { #expect(faces == sequential[index], "\(files[index])") }
    }

    /// Overload is refused at once: with the only instance held, a request whose first analysis
    /// would wait past the bound is `busy` with a time to retry; nothing it asked for stays
    /// admitted; once the instance is free the same request is admitted, and the figures say so.
    @Test func admissionRefusesWorkThatWouldWaitPastTheBound() throws {
        let files = try FaceModelFiles.locate(searchFrom: [SharedData.packageRoot])
        let engine = try FaceEngine(configuration: FaceEngineConfiguration(models: files, poolSize: 1, use68PointLandmarks: false,
                                                                           useCNNDetector: false, maximumQueueWait: 0.01))
        // Idle: nothing ahead, admitted whatever the request's size.
        let first = try engine.admit(calls: 40)
        #expect(engine.queueStatistics?.admitted == 40)
        first.end()
        first.end()   // twice is harmless
        #expect(engine.queueStatistics?.admitted == 0)

        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            engine.withWorker { _ in
                holding.signal()
                release.wait()
            }
            done.signal()
        }
        holding.wait()
        #expect(engine.queueStatistics?.busy == 1)
        do {
            _ = try engine.admit(calls: 16)
            Issue.record("expected busy with the only instance held")
        } catch {
            #expect(error.code == .busy)
            #expect((error.retryAfterSeconds ?? 0) >= 1)
        }
        let refused = try #require(engine.queueStatistics)
        #expect(refused.refused == 1 && refused.admitted == 0 && refused.expectedWaitSeconds > 0.01)
        release.signal()
        done.wait()
        let admitted = try engine.admit(calls: 16)
        defer { admitted.end() }
        #expect(try engine.analyze(try Fixtures.data("identities/Barack_Obama/obama.jpg"), options: .selfie).count == 1)
        let after = try #require(engine.queueStatistics)
        #expect(after.busy == 0 && after.waiting == 0 && after.refused == 1 && after.waits == 2)
    }

    /// Without a bound (the default) nothing is refused, however much is ahead.
    @Test func noBoundAdmitsEverything() throws {
        let engine = try Fixtures.engine()
        let admissions = try (0..<50).map { _ in try engine.admit(calls: 100) }
        #expect(engine.queueStatistics?.refused == 0)
        for admission in admissions { admission.end() }
    }
}
