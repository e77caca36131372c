//! Smoke test of the harness: the server starts and answers a spec example.
mod common;

use common::{TestServer, spec_swap_example};
use matchgrid::proto::SwapVerdict;

#[tokio::test]
async fn spec_example_swap_is_ok_over_grpc() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let response = client
        .validate_swap(spec_swap_example())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(response.verdict(), SwapVerdict::Ok);
    assert_eq!(response.groups.len(), 2);
}
