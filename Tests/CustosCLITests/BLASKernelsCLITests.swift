import CustosAPI
import Foundation
import Testing

/// OpenBLAS picks its matrix kernels by CPU model when it loads and falls back to its generic
/// "Prescott" ones on a model newer than itself, which runs the face networks at about half
/// speed; `custos` then starts itself again with the kernels the CPU supports.
@Suite struct BLASKernelsCLITests {
    /// The kernel sets OpenBLAS reported as it loaded, once per start of the process.
    private static func kernels(_ environment: [String: String], _ arguments: [String] = ["face", "--help"]) throws -> [Substring] {
        let result = try CLI.run(arguments, environment: environment.merging(["OPENBLAS_VERBOSE": "2"]) { $1 })
        #expect(result.status == 0)
        return (result.stdout + result.stderr).split(separator: "\n").filter { $0.hasPrefix("Core: ") }.map { $0.dropFirst(6) }
    }

    /// A command that runs no face network does not restart for the kernels.
    @Test func otherCommandsStartOnce() throws {
        let result = try CLI.run(["version"], environment: ["OPENBLAS_VERBOSE": "2"])
        #expect(result.status == 0)
        #expect(result.stdout == "custos \(CustosVersion.current)\n")
        #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("Core: ") }.count <= 1)
    }

    @Test func theFaceNetworksRunOnKernelsForThisCPU() throws {
        let found = try Self.kernels([:])
        guard let last = found.last else {
            print("BLASKernelsCLITests: the BLAS is not OpenBLAS here; nothing to choose")
            return
        }
        let cpu = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(cpu.split(separator: "\n").first { $0.hasPrefix("flags") }?.split(separator: " ") ?? [])
        if flags.contains("avx2") && flags.contains("fma") && ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] == nil {
            #expect(last != "Prescott", "OpenBLAS chose \(found)")
        }
        #expect(found.count <= 2, "at most one restart: \(found)")
    }

    @Test func anOperatorsChoiceStands() throws {
        #expect(try Self.kernels(["OPENBLAS_CORETYPE": "Haswell"]) == ["Haswell"])
    }
}
