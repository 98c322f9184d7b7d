//! Tavoliere: an online server for abstract board games.
//!
//! - [`rules`]: the games themselves, pure and synchronous.
//! - [`cli`]: the command-line doors (`tavoliere rules`).

pub mod cli;
pub mod rules;
