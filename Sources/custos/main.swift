import CustosFace
import Foundation

BLASKernels.restartWithBestKernelsIfNeeded()
// The face and evaluation commands are batch work on one process (BatchAllocation).
if let command = CommandLine.arguments.dropFirst().first, ["face", "eval"].contains(command) {
    BatchAllocation.useOneArena()
}
exit(await CommandLineTool.main(CommandLine.arguments).rawValue)
