//! Any bytes through the parser: the span tree stays consistent and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../invariants.rs"]
mod invariants;

fuzz_target!(|data: &[u8]| invariants::check_parse(data));
