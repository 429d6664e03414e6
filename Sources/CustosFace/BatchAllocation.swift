import CFaceShim

/// How a batch command's process allocates (see `cfs_use_one_arena`).
public enum BatchAllocation {
    /// One allocator arena for the whole process, so the CNN detector's large buffers are
    /// reused between calls instead of being mapped afresh. For batch commands only; call it
    /// first thing in `main`, before other threads exist.
    public static func useOneArena() {
        cfs_use_one_arena()
    }
}
