//! One input split at NUL bytes into base, ours and theirs, merged under every policy. A NUL
//! beyond the second makes theirs binary to git, which the invariants check too.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| invariants::check_merge3(data));
