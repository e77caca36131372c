//! `matchgrid`: run the server (`matchgrid serve`) or try it (`matchgrid swap ...`,
//! `matchgrid collapse ...`).

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = matchgrid::cli::Cli::parse();
    match matchgrid::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("matchgrid: {message}");
            ExitCode::FAILURE
        }
    }
}
