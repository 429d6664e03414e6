@testable import CustosHTTP
import Foundation
import Testing
import Synchronization

/// The pieces every access-log line and every answer is built from, written by hand for speed:
/// each must still read as what it claims to be.
@Suite struct LogLineTests {
    @Test func generatedRequestIDsAreThePrefixAndTheCounterInHex() throws {
        let ids = [0, 9, 10, 255, 4096, UInt64(UInt32.max), UInt64.max].map { RequestID.make(number: $0) }
        let prefix = try #require(ids.first?.split(separator: "-").first)
        #expect((1...8).contains(prefix.count) && prefix.allSatisfy(\.isHexDigit))
        #expect(ids.map { $0.dropFirst(prefix.count + 1) } == ["0", "9", "a", "ff", "1000", "ffffffff", "ffffffffffffffff"])
        #expect(ids.allSatisfy(RequestID.isAcceptable))
        #expect(RequestID.make(clientValue: nil) != RequestID.make(clientValue: nil))
    }

    @Test func everyLineCarriesTheTimeInUTCWithMilliseconds() throws {
        let sink = MemoryLogSink()
        let logger = Logger(sink: sink, level: .debug)
        let before = Date()
        logger.access(method: "GET", route: "/healthz", status: 200, durationMicroseconds: 12, requestID: "r-1")
        logger.warning("slow", ["ratio": .double(1.5), "ok": .bool(false), "count": .int(-3)])
        let after = Date()
        #expect(sink.lines.count == 2)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for line in sink.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let stamp = try #require(object["ts"] as? String)
            #expect(stamp.count == 24 && stamp.hasSuffix("Z"))
            let time = try #require(formatter.date(from: stamp))
            #expect(time >= before.addingTimeInterval(-0.001) && time <= after)
        }
        let warning = try #require(try JSONSerialization.jsonObject(with: Data(sink.lines[1].utf8)) as? [String: Any])
        #expect(warning["level"] as? String == "warning")
        #expect(warning["ratio"] as? Double == 1.5)
        #expect(warning["ok"] as? Bool == false)
        #expect(warning["count"] as? Int == -3)
    }

    /// The file sink takes access lines formatted on the stack; one too long for that buffer
    /// (a hostile method name) goes the ordinary way, whole and escaped, never cut.
    @Test func accessLinesReachTheFileSinkWholeLongOrShort() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("custos-log-\(UUID().uuidString)").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(path) }
        let sink = FileDescriptorLogSink(fileDescriptor: fd)
        let logger = Logger(sink: sink)
        let hostile = String(repeating: "P\"\\\n\u{01}é", count: 200)
        logger.access(method: "GET", route: "/healthz", status: 200, durationMicroseconds: 7, requestID: "r-1")
        logger.access(method: hostile, route: "unmatched", status: 400, durationMicroseconds: 9, requestID: "r-2")
        logger.info("after", ["n": .int(1)])
        sink.flush()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["request_id"] as? String } == ["r-1", "r-2", nil])
        #expect(objects[0]["method"] as? String == "GET" && objects[0]["duration_us"] as? Int == 7)
        #expect(objects[1]["method"] as? String == hostile && objects[1]["status"] as? Int == 400)
        #expect(objects[2]["event"] as? String == "after")
    }
    /// Lines written from many threads into a pipe (where a write larger than PIPE_BUF is not
    /// atomic), with flushes racing the buffer filling up: every line arrives whole, once, and
    /// each thread's lines in the order it wrote them.
    @Test func concurrentLinesReachAPipeWholeAndInOrder() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let received = Mutex(Data())
        let reader = Thread {
            var chunk = [UInt8](repeating: 0, count: 1024)
            while true {
                // Small, slow reads keep the pipe full, so writers block part-way through.
                let n = read(readEnd, &chunk, chunk.count)
                if n <= 0 { break }
                received.withLock { $0.append(contentsOf: chunk[0..<n]) }
            }
        }
        reader.start()
        let threads = 6, perThread = 1500
        do {
            let sink = FileDescriptorLogSink(fileDescriptor: writeEnd, interval: .milliseconds(1), bufferBytes: 8 * 1024)
            let logger = Logger(sink: sink)
            let pad = String(repeating: "x", count: 300)
            DispatchQueue.concurrentPerform(iterations: threads + 1) { thread in
                if thread == threads {
                    for _ in 0..<2000 { sink.flush() }
                    return
                }
                for index in 0..<perThread {
                    logger.info("line", ["thread": .int(thread), "index": .int(index), "pad": .string(pad)])
                }
            }
            sink.flush()
        }
        close(writeEnd)
        while !reader.isFinished { usleep(1000) }
        close(readEnd)
        let lines = received.withLock { $0 }.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == threads * perThread)
        var next = [Int](repeating: 0, count: threads)
        var torn = 0, outOfOrder = 0
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                  let thread = object["thread"] as? Int, let index = object["index"] as? Int else {
                torn += 1
                continue
            }
            if index != next[thread] { outOfOrder += 1 }
            next[thread] = index + 1
        }
        #expect(torn == 0)
        #expect(outOfOrder == 0)
        #expect(next == [Int](repeating: perThread, count: threads))
    }
}
