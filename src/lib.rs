//! matchgrid: a stateless gRPC engine for tile-matching puzzles.
//!
//! - [`engine`]: the rules (no transport types).
//! - [`transport`]: gRPC handlers converting requests to engine calls and back.
//! - [`server`]: configuration, health, reflection, limits, shutdown, telemetry.
//! - [`cli`]: the command-line client and server entry point.

pub mod engine;

/// Code generated from `proto/matchgrid/v1/*.proto`.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod proto {
    tonic::include_proto!("matchgrid.v1");

    /// Encoded `FileDescriptorSet` of the matchgrid protos, for gRPC reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        tonic::include_file_descriptor_set!("matchgrid_descriptor");
}
