//! Smoke test of the harness: the server starts and answers a spec example.
mod common;

use common::{TestServer, board, swap};
use matchgrid::proto::{SwapVerdict, ValidateSwapRequest};

#[tokio::test]
async fn spec_example_swap_is_ok_over_grpc() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let response = client
        .validate_swap(ValidateSwapRequest {
            board: Some(board("RRG/GGR")),
            swap: Some(swap((0, 2), (1, 2))),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(response.verdict(), SwapVerdict::Ok);
    assert_eq!(response.groups.len(), 2);
}
