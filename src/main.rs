fn main() {
    // The merge catches panics and reports each in one line; the default hook would add a
    // multi-line backtrace notice to git's output first.
    std::panic::set_hook(Box::new(|_| {}));
    keep_freed_memory();
    std::process::exit(kmerge::cli::main());
}

/// A merge allocates and frees blocks of megabytes several times over (three parsed versions,
/// the result's tree, the check's). glibc maps each block above 128 KiB afresh and unmaps it
/// when freed, until its adaptive threshold has grown, so every pass pays its page faults
/// again: about a tenth of the run on a 6 MB manifest. Blocks up to 32 MiB come from the heap
/// instead, where freed memory is reused (peak memory grows by a few percent).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    /// glibc's largest allowed mmap threshold on 64-bit systems (32 MiB).
    const LARGEST_MMAP_THRESHOLD: libc::c_int = 32 << 20;
    // SAFETY: mallopt only sets an allocator parameter, before any other thread exists. A
    // refused setting leaves glibc's default, which is correct, only slower.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGEST_MMAP_THRESHOLD);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}
