//! Protocol features against the real binary: gRPC server reflection (v1) and compressed
//! requests and responses (gzip, zstd).
mod common;
mod ops_support;

use common::{TestServer, pos, spec_swap_example, spec_tap_example, text};
use matchgrid::proto::{SwapCheckDeadStateRequest, SwapGenerateBoardRequest, SwapVerdict};
use ops_support::{STEP, within};
use tonic::codec::CompressionEncoding;
use tonic::transport::Channel;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
use tonic_reflection::pb::v1::{ServerReflectionRequest, ServerReflectionResponse};

/// The parts of google.protobuf.FileDescriptorProto these tests read (prost skips the rest).
#[derive(Clone, PartialEq, prost::Message)]
struct FileDescriptor {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(string, optional, tag = "2")]
    package: Option<String>,
    #[prost(string, repeated, tag = "3")]
    dependency: Vec<String>,
    #[prost(message, repeated, tag = "6")]
    service: Vec<ServiceDescriptor>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ServiceDescriptor {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    method: Vec<MethodDescriptor>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct MethodDescriptor {
    #[prost(string, optional, tag = "1")]
    name: Option<String>,
}

/// One request on a ServerReflectionInfo stream, one response back.
async fn reflect(channel: &Channel, request: MessageRequest) -> MessageResponse {
    let mut client = ServerReflectionClient::new(channel.clone());
    let outbound = tokio_stream::iter([ServerReflectionRequest {
        host: String::new(),
        message_request: Some(request),
    }]);
    let mut inbound = within(
        "ServerReflectionInfo",
        STEP,
        client.server_reflection_info(outbound),
    )
    .await
    .expect("grpc.reflection.v1.ServerReflection/ServerReflectionInfo")
    .into_inner();
    let response: ServerReflectionResponse = within("reflection response", STEP, inbound.message())
        .await
        .expect("reflection stream")
        .expect("one reflection response");
    response.message_response.expect("a message_response")
}

async fn file_containing(channel: &Channel, symbol: &str) -> Vec<FileDescriptor> {
    match reflect(
        channel,
        MessageRequest::FileContainingSymbol(symbol.to_owned()),
    )
    .await
    {
        MessageResponse::FileDescriptorResponse(files) => files
            .file_descriptor_proto
            .iter()
            .map(|bytes| prost::Message::decode(bytes.as_slice()).expect("a FileDescriptorProto"))
            .collect(),
        other => panic!("file_containing_symbol({symbol}) answered {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_lists_puzzle_and_health_services() {
    let server = TestServer::start(&[]);
    let channel = server.channel().await;
    let names: Vec<String> =
        match reflect(&channel, MessageRequest::ListServices(String::new())).await {
            MessageResponse::ListServicesResponse(list) => {
                list.service.into_iter().map(|s| s.name).collect()
            }
            other => panic!("list_services answered {other:?}"),
        };
    for expected in [
        "matchgrid.v1.SwapPuzzle",
        "matchgrid.v1.CollapsePuzzle",
        "grpc.health.v1.Health",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not in {names:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_serves_file_descriptors_with_their_dependencies() {
    let server = TestServer::start(&[]);
    let channel = server.channel().await;

    for (service, methods) in [
        (
            "matchgrid.v1.SwapPuzzle",
            &[
                "GenerateBoard",
                "ValidateSwap",
                "ResolveCascade",
                "CheckDeadState",
                "Shuffle",
                "ReplayGame",
                "Hint",
                "Simulate",
                "StartLevel",
                "PlayMove",
                "SimulateWithProgress",
            ][..],
        ),
        (
            "matchgrid.v1.CollapsePuzzle",
            &[
                "GenerateBoard",
                "Tap",
                "CheckDeadState",
                "Solve",
                "ReplayGame",
            ][..],
        ),
        ("grpc.health.v1.Health", &["Check", "Watch"][..]),
    ] {
        let (package, short_name) = service.rsplit_once('.').unwrap();
        let files = file_containing(&channel, service).await;
        let file = files
            .iter()
            .find(|f| {
                f.service
                    .iter()
                    .any(|s| s.name.as_deref() == Some(short_name))
            })
            .unwrap_or_else(|| panic!("no file defining {service}: {files:?}"));
        assert_eq!(file.package.as_deref(), Some(package));
        let found: Vec<&str> = file
            .service
            .iter()
            .find(|s| s.name.as_deref() == Some(short_name))
            .unwrap()
            .method
            .iter()
            .filter_map(|m| m.name.as_deref())
            .collect();
        assert_eq!(found, methods, "{service} methods");

        // Every import can be fetched by file name, so a client can build the full pool.
        for dependency in &file.dependency {
            match reflect(&channel, MessageRequest::FileByFilename(dependency.clone())).await {
                MessageResponse::FileDescriptorResponse(files) => {
                    assert!(!files.file_descriptor_proto.is_empty(), "{dependency}");
                    let dep: FileDescriptor =
                        prost::Message::decode(files.file_descriptor_proto[0].as_slice()).unwrap();
                    assert_eq!(dep.name.as_deref(), Some(dependency.as_str()));
                }
                other => panic!("file_by_filename({dependency}) answered {other:?}"),
            }
        }
    }

    // An unknown symbol is NOT_FOUND: tonic-reflection ends the stream with that status
    // (an in-stream ErrorResponse would do as well).
    let mut client = ServerReflectionClient::new(channel.clone());
    let outbound = tokio_stream::iter([ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::FileContainingSymbol(
            "matchgrid.v1.NoSuchThing".to_owned(),
        )),
    }]);
    let mut inbound = within("reflection", STEP, client.server_reflection_info(outbound))
        .await
        .expect("reflection stream opens")
        .into_inner();
    match within("reflection response", STEP, inbound.message()).await {
        Err(status) => assert_eq!(status.code(), tonic::Code::NotFound, "{status:?}"),
        Ok(Some(ServerReflectionResponse {
            message_response: Some(MessageResponse::ErrorResponse(error)),
            ..
        })) => assert_eq!(error.error_code, tonic::Code::NotFound as i32, "{error:?}"),
        Ok(other) => panic!("unknown symbol answered {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compressed_requests_and_responses_are_accepted() {
    let server = TestServer::start(&[]);
    for encoding in [CompressionEncoding::Gzip, CompressionEncoding::Zstd] {
        let mut swap_client = server
            .swap_client()
            .await
            .send_compressed(encoding)
            .accept_compressed(encoding);
        let response = within(
            "compressed ValidateSwap",
            STEP,
            swap_client.validate_swap(spec_swap_example()),
        )
        .await
        .unwrap_or_else(|s| panic!("{encoding:?} ValidateSwap: {s:?}"))
        .into_inner();
        assert_eq!(response.verdict(), SwapVerdict::Ok, "{encoding:?}");
        assert_eq!(response.groups.len(), 2, "{encoding:?}");

        // A large message both ways: a 64x64 board out, then back in.
        let generated = within(
            "compressed GenerateBoard",
            STEP,
            swap_client.generate_board(SwapGenerateBoardRequest {
                width: 64,
                height: 64,
                colors: 6,
                seed: 11,
                min_moves: Some(1),
                ..Default::default()
            }),
        )
        .await
        .unwrap_or_else(|s| panic!("{encoding:?} GenerateBoard: {s:?}"))
        .into_inner();
        let generated_board = generated.board.expect("a board");
        assert_eq!(generated_board.cells.len(), 64 * 64);
        let dead = within(
            "compressed CheckDeadState",
            STEP,
            swap_client.check_dead_state(SwapCheckDeadStateRequest {
                board: Some(generated_board),
            }),
        )
        .await
        .unwrap_or_else(|s| panic!("{encoding:?} CheckDeadState: {s:?}"))
        .into_inner();
        assert_eq!(
            dead.valid_swaps.len(),
            generated.valid_swap_count as usize,
            "{encoding:?}"
        );

        let mut collapse_client = server
            .collapse_client()
            .await
            .send_compressed(encoding)
            .accept_compressed(encoding);
        let tapped = within(
            "compressed Tap",
            STEP,
            collapse_client.tap(spec_tap_example()),
        )
        .await
        .unwrap_or_else(|s| panic!("{encoding:?} Tap: {s:?}"))
        .into_inner();
        assert_eq!(text(&tapped.board.unwrap()), "AC../AC..", "{encoding:?}");
        assert_eq!(tapped.move_score, 80, "{encoding:?}");
    }
}

/// A body that is not a valid protobuf message for the method is a malformed request:
/// INVALID_ARGUMENT (docs/rules.md section 4), not tonic's default INTERNAL. Here a `Position` (field 1
/// a varint) goes to ValidateSwap, whose field 1 is the `board` message.
#[tokio::test]
async fn undecodable_request_body_is_invalid_argument() {
    let server = TestServer::start(&[]);
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    within("ready", STEP, grpc.ready()).await.expect("ready");
    let codec = tonic_prost::ProstCodec::<
        matchgrid::proto::Position,
        matchgrid::proto::ValidateSwapResponse,
    >::default();
    let path = http::uri::PathAndQuery::from_static("/matchgrid.v1.SwapPuzzle/ValidateSwap");
    let status = within(
        "undecodable call",
        STEP,
        grpc.unary(tonic::Request::new(pos(5, 0)), path, codec),
    )
    .await
    .expect_err("an undecodable body is refused");
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains("failed to decode"), "{status:?}");
}
