//! The gRPC transport: thin handlers that convert a request (fallibly, naming the field), call
//! the engine and convert the result back. Engine errors become `tonic::Status` in exactly one
//! place, [`status`].

pub mod collapse;
pub mod convert;
pub mod status;
pub mod swap;

pub use collapse::CollapseService;
pub use swap::SwapService;
