//! The per-RPC tracing span: `rpc` at debug level with the method, the gRPC code and the
//! latency, which the log subscriber prints when it closes (`--log-level debug`), and which
//! the OpenTelemetry layer exports with the RPC attributes when the server exports traces
//! ([`super::otlp`]).

use std::time::Duration;

use http::HeaderMap;
use tonic::Code;

use super::grpc_code::code_name;
use super::otlp::SPAN_TARGET;

/// The span of one call of `label` (the method label): the log span, or with `traced` the
/// traced span, which also carries the OpenTelemetry RPC attributes and continues the
/// caller's trace (`traceparent`).
pub fn call_span(label: &'static str, headers: &HeaderMap, traced: bool) -> tracing::Span {
    if traced {
        return traced_span(label, headers);
    }
    tracing::debug_span!(
        target: SPAN_TARGET,
        "rpc",
        method = label,
        code = tracing::field::Empty,
        latency_us = tracing::field::Empty,
    )
}

/// The per-RPC span of a server that exports traces: the log span's fields plus the
/// OpenTelemetry RPC attributes, its parent taken from the request's `traceparent`.
fn traced_span(label: &'static str, headers: &HeaderMap) -> tracing::Span {
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    let name = label.strip_prefix('/').unwrap_or(label);
    let (service, rpc) = name.split_once('/').unwrap_or(("other", "other"));
    let span = tracing::debug_span!(
        target: SPAN_TARGET,
        "rpc",
        method = label,
        code = tracing::field::Empty,
        latency_us = tracing::field::Empty,
        otel.name = name,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        rpc.system = "grpc",
        rpc.service = service,
        rpc.method = rpc,
        rpc.grpc.status_code = tracing::field::Empty,
    );
    if let Some(parent) = super::otlp::parent_context(headers) {
        // Fails only when no OpenTelemetry layer is installed (a server started without
        // `run`), which leaves a plain log span.
        let _ = span.set_parent(parent);
    }
    span
}

/// Records a finished call's code and latency on its span, and logs `rpc finished` in it.
pub fn record_finish(span: &tracing::Span, code: Code, elapsed: Duration) {
    // Skips formatting the fields when the span is filtered out (the default).
    if !span.is_disabled() {
        span.record("code", code_name(code));
        // i64: OpenTelemetry has no unsigned integers (a u64 would be exported as text).
        span.record("latency_us", elapsed.as_micros() as i64);
        // Fields only a traced span has (recording an undeclared field does nothing).
        span.record("rpc.grpc.status_code", code as i64);
        if server_fault(code) {
            span.record("otel.status_code", "error");
        }
    }
    span.in_scope(|| tracing::debug!(target: SPAN_TARGET, "rpc finished"));
}

/// The codes that mark a server span as failed (OpenTelemetry's semantic conventions for gRPC
/// servers); the others are the caller's business.
fn server_fault(code: Code) -> bool {
    matches!(
        code,
        Code::Unknown
            | Code::DeadlineExceeded
            | Code::Unimplemented
            | Code::Internal
            | Code::Unavailable
            | Code::DataLoss
    )
}
