import CustosFace
import Foundation

let command = CommandLine.arguments.dropFirst().first ?? ""
// The commands that run the face networks want OpenBLAS's kernels for this CPU (a restart:
// BLASKernels); the others would pay it for nothing. `demo` runs a `serve` of its own.
if ["serve", "face", "eval"].contains(command) { BLASKernels.restartWithBestKernelsIfNeeded() }
// The face and evaluation commands are batch work on one process (BatchAllocation).
if ["face", "eval"].contains(command) { BatchAllocation.useOneArena() }
exit(await CommandLineTool.main(CommandLine.arguments).rawValue)
