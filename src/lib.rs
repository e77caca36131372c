//! matchgrid: a stateless gRPC engine for tile-matching puzzles.
//!
//! - [`engine`]: the rules, re-exported from the `matchgrid-engine` crate (no transport types).
//! - [`transport`]: gRPC handlers converting requests to engine calls and back.
//! - [`server`]: configuration, health, reflection, limits, shutdown, telemetry.
//! - [`cli`]: the command-line client and server entry point.

#![warn(missing_docs)]

pub mod cli;
pub use matchgrid_engine as engine;
pub mod server;
pub mod transport;

/// Code generated from `proto/matchgrid/v1/*.proto`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod proto {
    tonic::include_proto!("matchgrid.v1");

    /// Encoded `FileDescriptorSet` of the matchgrid protos, for gRPC reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        tonic::include_file_descriptor_set!("matchgrid_descriptor");

    /// Writes a `SwapVerdict` field as its proto name (e.g. `SWAP_VERDICT_OK`) in JSON output.
    pub(crate) fn serialize_swap_verdict<S: serde::Serializer>(
        value: &i32,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match SwapVerdict::try_from(*value) {
            Ok(verdict) => serializer.serialize_str(verdict.as_str_name()),
            Err(_) => serializer.serialize_i32(*value),
        }
    }
}
