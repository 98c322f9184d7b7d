//! The `tavoliere` binary: parses the command line and hands it to
//! [`tavoliere::cli`], where every command lives.

use std::fmt::Display;
use std::future::Future;
use std::io;
use std::process::ExitCode;

use clap::Parser;
use tavoliere::cli::bots::BotsCommand;
use tavoliere::cli::ratings::RatingsCommand;
use tavoliere::cli::{self, Cli, Command};
use tavoliere::Config;
use tracing_subscriber::EnvFilter;

/// mimalloc instead of the system allocator: the server allocates and frees
/// small buffers for every frame and request from several threads, where
/// glibc's allocator showed a tenth of the server's profile; over WebSocket
/// it plays about 18% more moves per second (see BENCHMARKS.md). Asked
/// through [`tavoliere::allocator`], which keeps its fast path.
#[global_allocator]
static ALLOCATOR: tavoliere::allocator::Mimalloc = tavoliere::allocator::Mimalloc;

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
        Some(Command::Serve(config)) => serve(*config),
        Some(Command::Loadtest(options)) => loadtest(&options),
        Some(Command::Ratings(RatingsCommand::Rebuild(args))) => rebuild(&args),
        Some(Command::Bots(BotsCommand::Duel(args))) => duel(&args),
        None => serve(cli.serve),
    }
}

fn serve(config: Config) -> ExitCode {
    let filter = EnvFilter::try_new(&config.log).unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).init();
    tracing::info!(?config, "starting");
    // Every WebSocket is a file descriptor: lift the soft limit to the hard one.
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => tracing::info!(limit, "open files limit"),
        Err(e) => tracing::warn!("cannot raise the open files limit: {e}"),
    }
    let Some(runtime) = runtime("tavoliere") else {
        return ExitCode::FAILURE;
    };
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.listen).await?;
        tavoliere::run(listener, config, shutdown_signal()).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("tavoliere: {e}");
            eprintln!("tavoliere: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Plays a duel of bots, printing the score after every game.
fn duel(args: &cli::bots::DuelArgs) -> ExitCode {
    let progress = |game: u32, duel: &cli::bots::Duel| eprintln!("after game {game}: {duel}");
    match cli::bots::duel(args, progress) {
        Ok(duel) => {
            println!(
                "{} {}: {} vs {}: {duel}",
                args.game,
                args.variant.as_deref().unwrap_or("standard"),
                args.a,
                args.b
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tavoliere bots duel: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a load test and prints its report; fails when the run could not be
/// made or its replay check failed.
fn loadtest(options: &tavoliere::loadtest::Options) -> ExitCode {
    let Some(report) = block_on("tavoliere loadtest", tavoliere::loadtest::run(options)) else {
        return ExitCode::FAILURE;
    };
    if options.json {
        match serde_json::to_string(&report) {
            Ok(json) => println!("{json}"),
            Err(e) => {
                eprintln!("tavoliere loadtest: cannot encode the report: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        println!("{report}");
    }
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Rebuilds every rating and prints what it found; fails when it could not.
fn rebuild(args: &cli::ratings::RebuildArgs) -> ExitCode {
    match block_on("tavoliere ratings rebuild", cli::ratings::rebuild(args)) {
        Some(rebuilt) => {
            println!("{rebuilt}");
            ExitCode::SUCCESS
        }
        None => ExitCode::FAILURE,
    }
}

/// Runs `command`'s work on a runtime of its own: its value, or `None` once
/// its failure (or the runtime's) is said on stderr.
fn block_on<T, E: Display>(command: &str, work: impl Future<Output = Result<T, E>>) -> Option<T> {
    match runtime(command)?.block_on(work) {
        Ok(value) => Some(value),
        Err(e) => {
            eprintln!("{command}: {e}");
            None
        }
    }
}

/// A runtime for `command`, or `None` (said on stderr) when it cannot start.
fn runtime(command: &str) -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => Some(runtime),
        Err(e) => {
            eprintln!("{command}: cannot start the runtime: {e}");
            None
        }
    }
}

/// Ctrl-C or SIGTERM (what `docker stop` sends).
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
