fn main() {
    // The merge catches panics and reports each in one line; the default hook would add a
    // multi-line backtrace notice to git's output first.
    std::panic::set_hook(Box::new(|_| {}));
    std::process::exit(kmerge::cli::main());
}
