//! Compiles `proto/matchgrid/v1/*.proto` with protox (pure Rust, no `protoc`) and generates the
//! tonic server and client with tonic-prost-build. Also writes the encoded descriptor set used by
//! gRPC reflection to `$OUT_DIR/matchgrid_descriptor.bin`.

use std::path::PathBuf;

const PROTO_ROOT: &str = "proto";
const PROTO_FILES: &[&str] = &[
    "proto/matchgrid/v1/board.proto",
    "proto/matchgrid/v1/level.proto",
    "proto/matchgrid/v1/swap.proto",
    "proto/matchgrid/v1/collapse.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={PROTO_ROOT}");
    for file in PROTO_FILES {
        println!("cargo:rerun-if-changed={file}");
    }

    let descriptor_set = protox::compile(PROTO_FILES, [PROTO_ROOT])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("matchgrid_descriptor.bin"),
        prost::Message::encode_to_vec(&descriptor_set),
    )?;

    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .emit_rerun_if_changed(false)
        // JSON output of the command-line client.
        .type_attribute(".matchgrid.v1", "#[derive(serde::Serialize)]")
        .field_attribute(
            ".matchgrid.v1.ValidateSwapResponse.verdict",
            "#[serde(serialize_with = \"crate::proto::serialize_swap_verdict\")]",
        )
        .compile_fds(descriptor_set)?;
    Ok(())
}
