use std::io;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use tavoliere::cli::{self, Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Rules) => {
            let stdin = io::stdin().lock();
            let stdout = io::stdout().lock();
            match cli::rules::run(stdin, stdout) {
                Ok(()) => ExitCode::SUCCESS,
                // A closed stdout (`| head`) ends the session quietly.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("tavoliere rules: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => {
            let _ = Cli::command().print_help();
            ExitCode::FAILURE
        }
    }
}
