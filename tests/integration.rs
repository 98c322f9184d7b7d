//! Every integration suite in one test binary. Each `tests/*.rs` file was
//! its own binary once, and each linked the whole server again: on two
//! cores that was most of a cold CI run. Run one suite with its module
//! name as the filter, e.g. `cargo test --release --test integration
//! server::`. The suites share `common` (the real server on 127.0.0.1:0
//! against a fresh database) and `browser` (headless Chromium).

mod browser;
mod common;

mod abuse;
mod bots;
mod conditional;
mod contract;
mod correspondence;
mod edges;
mod focus_four;
mod group_commit;
mod loadtest;
mod mail;
mod perft;
mod privacy;
mod ratings;
mod realtime;
mod rules_cli;
mod rules_properties;
mod server;
mod tournaments;
mod web;
