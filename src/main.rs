//! `matchgrid`: run the server (`matchgrid serve`) or try it (`matchgrid swap ...`,
//! `matchgrid collapse ...`).

use std::process::ExitCode;

use clap::error::ErrorKind;

fn main() -> ExitCode {
    let cli = match matchgrid::cli::Cli::try_parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(error)
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            error.exit()
        }
        Err(error) => {
            // One line naming the bad value, without clap's usage block.
            eprintln!("matchgrid: {}", matchgrid::cli::error_line(&error));
            return ExitCode::from(2);
        }
    };
    match matchgrid::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("matchgrid: {message}");
            ExitCode::FAILURE
        }
    }
}
