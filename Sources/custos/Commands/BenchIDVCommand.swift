import CustosAPI
import CustosCore
import CustosFace
import CustosSDK
import Foundation

/// `custos bench idv`: full server biometric authentications (workflow 8: initiate, confirm,
/// frames, liveness and match) per second against a running server, through the SDK.
enum BenchIDVCommand {
    static let enroll = Option<String?>.text("enroll", "DIR", help: "JPEG frames each bench user opts in with (name order)").required()
    static let frames = Option<String?>.text("frames", "DIR", help: "JPEG frames of one authentication (name order)").required()
    static let fps = Option<Double>.framesPerSecond("fps", default: 12, help: "frame rate of the authentication frames, in (0, 240]")
    static let enrollFPS = Option<Double?>.framesPerSecond("enroll-fps", help: "frame rate of the opt-in frames (default: --fps)")
    static let size = Option<[Int]>("size", "WxH", default: [640, 480], shownDefault: "640x480",
                                    help: "frames are placed on a canvas of this size", expected: "WxH, 64-4096 each") { text in
        let size = text.split(separator: "x").compactMap { Int($0) }
        return size.count == 2 && size.allSatisfy({ (64...4096).contains($0) }) ? size : nil
    }
    static let concurrency = BenchAccounts.concurrency("parallel users", default: 1)

    static let command = Command(spec: CommandSpec(
        path: "bench idv", summary: "Measure server biometric authentications (latency, per second) against a running server.",
        options: [ClientOptions.server.spec, ClientOptions.apiKey.spec, enroll.spec, frames.spec, fps.spec, enrollFPS.spec, size.spec,
                  BenchAccounts.seconds.spec, concurrency.spec],
        example: "custos bench idv --enroll enroll-frames/ --frames auth-frames/ --seconds 30")
    ) { arguments in
        let (enrollPath, framesPath) = (try arguments[enroll], try arguments[frames])
        let fps = arguments[fps]
        let enrollFPS = arguments[enrollFPS] ?? fps
        let size = arguments[size]
        let (seconds, concurrency) = (arguments[BenchAccounts.seconds], arguments[concurrency])
        let enrollFrames = try canvas(try jpegs(in: enrollPath), width: size[0], height: size[1])
        let authFrames = try canvas(try jpegs(in: framesPath), width: size[0], height: size[1])
        let admin = try ClientOptions.adminClient(arguments)
        let server = try ClientOptions.serverURL(arguments)

        let (latencies, refusals) = try await BenchAccounts.withKeyDirectory { keys in
            let accounts = try await BenchAccounts.provision(concurrency, prefix: "bench-idv", admin: admin, server: server,
                                                             password: "bench password 123", keys: keys)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for account in accounts {
                    group.addTask { try await optIn(account, frames: enrollFrames, fps: enrollFPS) }
                }
                try await group.waitForAll()
            }
            let takes = try shiftedTakes(authFrames, count: min(288, 8 * seconds))
            let deadline = Date().addingTimeInterval(Double(seconds))
            return try await withThrowingTaskGroup(of: Rounds.self) { group in
                for (index, account) in accounts.enumerated() {
                    group.addTask {
                        try await authentications(account.client, frames: authFrames, takes: takes, fps: fps, tag: "\(index)", until: deadline)
                    }
                }
                let all = try await group.reduce(into: Rounds()) { all, one in
                    all.matched += one.matched
                    all.refused += one.refused
                }
                return (all.matched.sorted(), all.refused.sorted())
            }
        }
        guard !latencies.isEmpty else { throw CommandFailure("no authentication completed") }
        let percentile = { (p: Double) in BenchAccounts.percentile(latencies, p) }
        Console.out(String(format: "server biometric authentications (%d frames %dx%d): %d in %ds, %.2f/s, whole flow p50 %.1f ms, p95 %.1f ms (concurrency %d)",
                           authFrames.count, size[0], size[1], latencies.count, seconds, Double(latencies.count) / Double(seconds),
                           percentile(0.5), percentile(0.95), concurrency))
        if !refusals.isEmpty {
            Console.out(String(format: "refused busy (503 server_busy past the SDK's resends; a new round then): %d, whole flow to the refusal p50 %.1f ms, max %.1f ms",
                               refusals.count, BenchAccounts.percentile(refusals, 0.5), refusals.last ?? 0))
        }
        return .ok
    }

    /// Whole-flow milliseconds of the rounds matched, and of those the server refused as busy.
    private struct Rounds: Sendable {
        var matched: [Double] = []
        var refused: [Double] = []
    }

    /// The user's face template, from the opt-in frames; the opt-in starts again, after the
    /// server's `Retry-After`, while the server stays busy past the SDK's own resends.
    private static func optIn(_ account: BenchAccounts.Account, frames: [Data], fps: Double) async throws {
        var enrolled: IDVResultResponse?
        for start in 1...100 where enrolled == nil {
            do {
                enrolled = try await account.client.initiateIDVBiometricOptIn(
                    consentVersion: "bench", frameSource: MemoryFrames(frames: frames, framesPerSecond: fps, tag: account.userID, pace: true))
            } catch let error as CustosError where error.code == "server_busy" && start < 100 {
                try await Task.sleep(for: .seconds(error.retryAfterSeconds ?? 1))
            }
        }
        guard let enrolled else { throw CommandFailure("the opt-in of \(account.userID) found the server busy 100 times") }
        guard enrolled.templateCreated else {
            throw CommandFailure("the opt-in of \(account.userID) answered \(enrolled.statusCode) "
                                 + "\(enrolled.biometricResult?.displayText ?? "") \(enrolled.biometricResult?.livenessReason ?? "")")
        }
    }

    /// One user's authentications until the deadline: their whole-flow latencies in milliseconds.
    /// `takes` holds the first rounds' frames, made before the measurement (each user's server-side
    /// take memory is its own, so users share them); later rounds make theirs between rounds.
    private static func authentications(_ client: CustosClient, frames: [Data], takes: [[Data]], fps: Double, tag: String,
                                        until deadline: Date) async throws -> Rounds {
        var rounds = Rounds()
        var round = 0
        while Date() < deadline {
            round += 1
            // A fresh take each time: the server refuses a take it has seen, however re-encoded, so
            // each round's frames are the recording moved by a few pixels (made before the clock starts).
            let take = round <= takes.count ? takes[round - 1] : try shifted(frames, round: round)
            let source = MemoryFrames(frames: take, framesPerSecond: fps, tag: "\(tag)-\(round)", pace: false)
            let start = DispatchTime.now().uptimeNanoseconds
            let result: IDVResultResponse
            do {
                result = try await client.initiateIDVServerBiometricAuthentication(reason: "bench", frameSource: source)
            } catch let error as CustosError where error.code == "server_busy" {
                rounds.refused.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                try await Task.sleep(for: .seconds(error.retryAfterSeconds ?? 1))
                continue
            }
            guard result.biometricResult?.displayText == .matched else {
                throw CommandFailure("authentication answered \(result.statusCode) \(result.biometricResult?.displayText ?? "") "
                                     + "\(result.biometricResult?.livenessReason ?? "")")
            }
            rounds.matched.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return rounds
    }

    private static func jpegs(in path: String) throws -> [Data] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path))?
            .filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted() ?? []
        guard !names.isEmpty else { throw CommandFailure("no JPEG frames in \(path)") }
        return try names.map { name in
            guard let data = FileManager.default.contents(atPath: (path as NSString).appendingPathComponent(name)) else {
                throw CommandFailure("cannot read \(name) in \(path)")
            }
            return data
        }
    }

    /// The takes of rounds 1 to `count`, made on all cores before the measurement starts, so that
    /// no client is busy warping frames while another user's take is being judged.
    private static func shiftedTakes(_ frames: [Data], count: Int) throws -> [[Data]] {
        try ParallelMap.map(Array(1...max(1, count)), threads: ProcessInfo.processInfo.activeProcessorCount) { round in
            Result { try shifted(frames, round: round) }
        }.map { try $0.get() }
    }

    /// The frames moved by 3 to 24 pixels, differently for each of 288 rounds: what a camera
    /// held a little elsewhere would see (a whole-frame fingerprint moves by far more than the
    /// replay threshold for a 3-pixel shift of a 640-pixel frame).
    private static func shifted(_ frames: [Data], round: Int) throws -> [Data] {
        let step = round % 288 + 1
        let (dx, dy) = (Double(step % 17 * 3 - 24), Double(step / 17 % 17 * 3 - 24))
        return try frames.map { try DecodedImage(data: $0).warped(by: .translation(dx: dx, dy: dy)).jpegData(quality: 90) }
    }

    /// Each frame centred, unscaled, on a black canvas of the given size.
    private static func canvas(_ frames: [Data], width: Int, height: Int) throws -> [Data] {
        try frames.map { jpeg in
            let image = try DecodedImage(data: jpeg)
            let placed = try image.warped(by: .translation(dx: Double(width - image.width) / 2, dy: Double(height - image.height) / 2),
                                          width: width, height: height)
            return try placed.jpegData(quality: 90)
        }
    }
}

/// Frames from memory, stamped as captured just now at `framesPerSecond`, each made unique
/// by a JPEG comment naming `tag`. With `pace`, it takes as long as the recording (a
/// capture cannot outlast its challenge); without, the measured latency is the server's and
/// the network's alone (the server allows a second of clock skew, more than 5 frames span).
private struct MemoryFrames: FrameSource {
    let frames: [Data]
    let framesPerSecond: Double
    let tag: String
    let pace: Bool

    func capture(_ request: CaptureRequest) async throws -> [CapturedImage] {
        let duration = Double(frames.count - 1) * 1000 / framesPerSecond
        guard duration <= Double(request.maximumDurationMs) else {
            throw CommandFailure(String(format: "%d frames at %g fps span %.0f ms; the challenge allows at most %d ms",
                                        frames.count, framesPerSecond, duration, request.maximumDurationMs))
        }
        let span = Int64(duration)
        if pace { try await Task.sleep(for: .milliseconds(span)) }
        let start = Int64(Date().timeIntervalSince1970 * 1000) - span
        return frames.enumerated().map { index, jpeg in
            CapturedImage(capturedAtMs: start + Int64(Double(index) * 1000 / framesPerSecond),
                          jpeg: PresentationAttacks.withComment(jpeg, "custos bench \(tag) \(index)"))
        }
    }
}
