//! `foldex`: compare executors on the TimeDataset matrix (`foldex bench`) and get advice on
//! which one to use (`foldex advise`). The command lives in the `foldex_cli` library.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    foldex_cli::run()
}
