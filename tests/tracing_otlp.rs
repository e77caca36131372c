//! Distributed tracing against a real OTLP/gRPC endpoint: the test runs a small collector (a
//! tonic `TraceService` built on the `opentelemetry-proto` messages), starts the real binary
//! with `--otlp-endpoint` pointing at it, makes calls with and without W3C `traceparent`
//! metadata, and reads the spans the server exported.
//!
//! The batch exporter's schedule is set to an hour, so every span checked here reaches the
//! collector through the flush at graceful shutdown (SIGTERM).
mod common;
mod ops_support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use common::{TestServer, spec_swap_example};
use matchgrid::proto::ValidateSwapRequest;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use ops_support::{STEP, wait_exit, within};
use tokio::sync::mpsc;
use tonic::Code;

/// A trace the "caller" is in: W3C trace id and the caller's span id.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";
const TRACE_STATE: &str = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";

/// Another caller's trace, for a failing call.
const FAILING_TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const FAILING_PARENT_ID: &str = "b7ad6b7169203331";

/// Every export request the collector receives.
struct Collector(mpsc::UnboundedSender<ExportTraceServiceRequest>);

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let _ = self.0.send(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

/// Starts the collector on a free loopback port.
async fn start_collector() -> (
    SocketAddr,
    mpsc::UnboundedReceiver<ExportTraceServiceRequest>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(Collector(tx)))
            .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
    );
    (addr, rx)
}

/// A received span with its resource's attributes.
struct Received {
    span: Span,
    resource: HashMap<String, Value>,
}

impl Received {
    fn attribute(&self, key: &str) -> Option<&Value> {
        self.span
            .attributes
            .iter()
            .find(|kv| kv.key == key)
            .and_then(|kv| kv.value.as_ref()?.value.as_ref())
    }
}

fn string(value: &str) -> Value {
    Value::StringValue(value.to_owned())
}

fn key_values(
    attributes: &[opentelemetry_proto::tonic::common::v1::KeyValue],
) -> HashMap<String, Value> {
    attributes
        .iter()
        .filter_map(|kv| Some((kv.key.clone(), kv.value.as_ref()?.value.clone()?)))
        .collect()
}

fn spans(requests: Vec<ExportTraceServiceRequest>) -> Vec<Received> {
    let mut all = Vec::new();
    for request in requests {
        for resource_spans in request.resource_spans {
            let resource = resource_spans
                .resource
                .map(|r| key_values(&r.attributes))
                .unwrap_or_default();
            for scope_spans in resource_spans.scope_spans {
                for span in scope_spans.spans {
                    all.push(Received {
                        span,
                        resource: resource.clone(),
                    });
                }
            }
        }
    }
    all
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A ValidateSwap request carrying W3C trace context metadata.
fn traced<T>(
    message: T,
    trace_id: &str,
    parent_id: &str,
    state: Option<&str>,
) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    let metadata = request.metadata_mut();
    metadata.insert(
        "traceparent",
        format!("00-{trace_id}-{parent_id}-01").parse().unwrap(),
    );
    if let Some(state) = state {
        metadata.insert("tracestate", state.parse().unwrap());
    }
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_continue_the_callers_trace_and_reach_the_collector_at_shutdown() {
    let (collector, mut exports) = start_collector().await;
    let endpoint = format!("http://{collector}");
    // Only the flush at shutdown sends anything.
    let mut server = TestServer::start_with_env(
        &["--otlp-endpoint", &endpoint],
        &[("OTEL_BSP_SCHEDULE_DELAY", "3600000")],
    );

    let mut client = server.swap_client().await;
    within(
        "traced ValidateSwap",
        STEP,
        client.validate_swap(traced(
            spec_swap_example(),
            TRACE_ID,
            PARENT_ID,
            Some(TRACE_STATE),
        )),
    )
    .await
    .expect("ValidateSwap OK");
    let unstable = ValidateSwapRequest {
        board: Some(common::board("RRR/GGB")),
        swap: Some(common::swap((0, 0), (1, 0))),
    };
    let refused = within(
        "traced failing ValidateSwap",
        STEP,
        client.validate_swap(traced(unstable, FAILING_TRACE_ID, FAILING_PARENT_ID, None)),
    )
    .await
    .expect_err("unstable board");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    within(
        "untraced ValidateSwap",
        STEP,
        client.validate_swap(spec_swap_example()),
    )
    .await
    .expect("ValidateSwap OK");
    drop(client);
    assert!(
        exports.try_recv().is_err(),
        "nothing is exported before shutdown with an hour's schedule"
    );

    server.sigterm();
    let status = wait_exit(&mut server.child, Duration::from_secs(30))
        .await
        .expect("the server exits after SIGTERM");
    assert!(status.success(), "exit: {status}");

    let mut requests = Vec::new();
    while let Ok(request) = exports.try_recv() {
        requests.push(request);
    }
    let received = spans(requests);
    let validate: Vec<&Received> = received
        .iter()
        .filter(|r| r.span.name == "matchgrid.v1.SwapPuzzle/ValidateSwap")
        .collect();
    assert_eq!(
        validate.len(),
        3,
        "one span per call; got {:?}",
        received.iter().map(|r| &r.span.name).collect::<Vec<_>>()
    );

    let ok = validate
        .iter()
        .find(|r| hex(&r.span.trace_id) == TRACE_ID)
        .expect("a span in the caller's trace");
    assert_eq!(hex(&ok.span.parent_span_id), PARENT_ID);
    assert_eq!(ok.span.trace_state, TRACE_STATE);
    assert_eq!(ok.span.kind, SpanKind::Server as i32);
    assert_eq!(ok.attribute("rpc.system"), Some(&string("grpc")));
    assert_eq!(
        ok.attribute("rpc.service"),
        Some(&string("matchgrid.v1.SwapPuzzle"))
    );
    assert_eq!(ok.attribute("rpc.method"), Some(&string("ValidateSwap")));
    assert_eq!(
        ok.attribute("method"),
        Some(&string("/matchgrid.v1.SwapPuzzle/ValidateSwap"))
    );
    assert_eq!(
        ok.attribute("rpc.grpc.status_code"),
        Some(&Value::IntValue(0))
    );
    assert_eq!(ok.attribute("code"), Some(&string("OK")));
    assert!(matches!(
        ok.attribute("latency_us"),
        Some(Value::IntValue(_))
    ));
    let status = ok.span.status.clone().unwrap_or_default();
    assert_eq!(status.code, StatusCode::Unset as i32);
    assert!(ok.span.end_time_unix_nano >= ok.span.start_time_unix_nano);
    assert_eq!(
        ok.resource.get("service.name"),
        Some(&string("matchgrid")),
        "resource {:?}",
        ok.resource
    );

    let failed = validate
        .iter()
        .find(|r| hex(&r.span.trace_id) == FAILING_TRACE_ID)
        .expect("a span in the failing caller's trace");
    assert_eq!(hex(&failed.span.parent_span_id), FAILING_PARENT_ID);
    assert_eq!(
        failed.attribute("rpc.grpc.status_code"),
        Some(&Value::IntValue(Code::FailedPrecondition as i64))
    );
    assert_eq!(
        failed.attribute("code"),
        Some(&string("FAILED_PRECONDITION"))
    );
    // A caller's mistake, not a server fault: the span status stays unset.
    let status = failed.span.status.clone().unwrap_or_default();
    assert_eq!(status.code, StatusCode::Unset as i32);

    let root = validate
        .iter()
        .find(|r| ![TRACE_ID, FAILING_TRACE_ID].contains(&hex(&r.span.trace_id).as_str()))
        .expect("the untraced call's span");
    assert!(
        root.span.parent_span_id.is_empty(),
        "a call without traceparent starts a new trace"
    );
    assert_eq!(root.span.trace_id.len(), 16);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unimplemented_method_is_a_server_error_span() {
    let (collector, mut exports) = start_collector().await;
    let endpoint = format!("http://{collector}");
    let mut server = TestServer::start_with_env(
        &["--otlp-endpoint", &endpoint],
        &[("OTEL_BSP_SCHEDULE_DELAY", "3600000")],
    );
    let channel = server.channel().await;
    let mut grpc = tonic::client::Grpc::new(channel);
    within("ready", STEP, grpc.ready()).await.expect("ready");
    let status = within(
        "unknown method",
        STEP,
        grpc.unary(
            traced((), TRACE_ID, PARENT_ID, None),
            http::uri::PathAndQuery::from_static("/matchgrid.v1.SwapPuzzle/Nope"),
            tonic_prost::ProstCodec::<(), ()>::default(),
        ),
    )
    .await
    .expect_err("unknown method");
    assert_eq!(status.code(), Code::Unimplemented);
    drop(grpc);

    server.sigterm();
    wait_exit(&mut server.child, Duration::from_secs(30))
        .await
        .expect("the server exits after SIGTERM");
    let mut requests = Vec::new();
    while let Ok(request) = exports.try_recv() {
        requests.push(request);
    }
    let received = spans(requests);
    let span = received
        .iter()
        .find(|r| hex(&r.span.trace_id) == TRACE_ID)
        .expect("the unknown method's span");
    // Unknown paths share one name, so clients cannot mint span names.
    assert_eq!(span.span.name, "other");
    assert_eq!(
        span.attribute("rpc.grpc.status_code"),
        Some(&Value::IntValue(Code::Unimplemented as i64))
    );
    let status = span.span.status.clone().unwrap_or_default();
    assert_eq!(status.code, StatusCode::Error as i32);
}

#[test]
fn an_endpoint_that_is_not_a_plaintext_url_is_refused_at_start() {
    for bad in ["https://collector:4317", "collector:4317"] {
        let output = Command::new(env!("CARGO_BIN_EXE_matchgrid"))
            .args(["serve", "--listen", "127.0.0.1:0", "--otlp-endpoint", bad])
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .output()
            .expect("run matchgrid");
        assert_eq!(output.status.code(), Some(2), "{bad}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--otlp-endpoint"), "{bad}: {stderr}");
    }
}

#[tokio::test]
async fn an_empty_endpoint_variable_means_off() {
    let server = TestServer::start_with_env(&[], &[("OTEL_EXPORTER_OTLP_ENDPOINT", "")]);
    let mut client = server.swap_client().await;
    within(
        "ValidateSwap",
        STEP,
        client.validate_swap(traced(spec_swap_example(), TRACE_ID, PARENT_ID, None)),
    )
    .await
    .expect("ValidateSwap OK");
}
