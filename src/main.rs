fn main() {
    std::process::exit(kmerge::cli::main());
}
