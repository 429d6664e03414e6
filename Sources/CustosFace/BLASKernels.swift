import CFaceShim
import Foundation

/// OpenBLAS's kernels for this CPU (see `cfs_blas_preferred_coretype`): the face networks'
/// matrix products run at about half speed on the generic ones OpenBLAS falls back to for a
/// CPU model newer than itself.
public enum BLASKernels {
    /// The kernel set OpenBLAS runs (e.g. "SkylakeX"), or nil when the BLAS is not OpenBLAS.
    public static var current: String? {
        cfs_blas_corename().map { String(cString: $0) }
    }

    /// When OpenBLAS fell back to its generic kernels on a CPU with AVX2 or AVX-512, runs this
    /// program again in place (same process id, arguments and open descriptors) with
    /// OPENBLAS_CORETYPE naming the right set: OpenBLAS reads it only while loading. Returns
    /// when nothing needs to change, or when the restart failed (then on the generic kernels).
    /// Call it first thing in `main`, before anything has been read or written, in the
    /// commands that run the face networks (a restart costs the others time for nothing).
    public static func restartWithBestKernelsIfNeeded() {
        guard let core = cfs_blas_preferred_coretype() else { return }
        setenv("OPENBLAS_CORETYPE", core, 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
    }
}
