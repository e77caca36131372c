//! Distributed tracing: per-RPC spans exported over OTLP/gRPC, continuing the caller's W3C
//! trace context.
//!
//! Off by default, at no cost: without `--otlp-endpoint` (env `OTEL_EXPORTER_OTLP_ENDPOINT`)
//! no OpenTelemetry layer is installed, incoming `traceparent` metadata is not even read, and
//! the per-RPC span stays the debug-level log span it always was.
//!
//! With an endpoint, [`start`] builds a batch span exporter (the OpenTelemetry SDK's own
//! background thread, sending through a tonic channel on the server's runtime) and a
//! `tracing-opentelemetry` layer that turns only the per-RPC `rpc` span (and warnings and
//! errors logged inside it, as span events) into OpenTelemetry spans. [`ObserveLayer`] then
//! reads `traceparent` and `tracestate` from each request's metadata ([`parent_context`]) and
//! makes them the span's parent; a request without them starts a new trace.
//!
//! Span (semantic conventions for RPC): name `matchgrid.v1.SwapPuzzle/ResolveCascade` (`other`
//! for unknown paths), kind SERVER, attributes `rpc.system` = `grpc`, `rpc.service`,
//! `rpc.method`, `rpc.grpc.status_code` (integer), `code` (its name, as in the logs), `method`
//! (the gRPC path) and `latency_us`; status ERROR for the codes that mean a server fault
//! (UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS), unset
//! otherwise. Resource: `service.name` = `matchgrid` (or `OTEL_SERVICE_NAME`),
//! `service.version`, and `OTEL_RESOURCE_ATTRIBUTES`. The SDK's `OTEL_BSP_*` variables tune the
//! batching (default: every 5 s or 512 spans).
//!
//! [`ObserveLayer`]: super::observe::ObserveLayer

use std::time::Duration;

use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::{TraceContextExt as _, TracerProvider as _};
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

/// The longest the exit waits for the last spans to reach the collector.
pub const FLUSH_TIMEOUT: Duration = Duration::from_secs(5);

/// The tracing target of the per-RPC span and of the call layer's log lines (shed, timed-out
/// and panicked calls), as where they were first written.
pub const SPAN_TARGET: &str = "matchgrid::server::observe";

/// The running exporter; [`OtlpExport::shutdown`] flushes it.
#[derive(Debug)]
pub struct OtlpExport {
    provider: SdkTracerProvider,
    endpoint: String,
}

impl OtlpExport {
    /// The collector's address.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Exports the spans still queued and stops the exporter, waiting at most
    /// [`FLUSH_TIMEOUT`]. Call it from outside the runtime (it blocks) while the runtime still
    /// runs (the export goes through a channel driven by it).
    pub fn shutdown(self) {
        match self.provider.shutdown_with_timeout(FLUSH_TIMEOUT) {
            Ok(()) => tracing::info!(endpoint = %self.endpoint, "trace exporter shut down"),
            Err(error) => {
                tracing::warn!(endpoint = %self.endpoint, %error, "trace exporter did not shut down cleanly");
            }
        }
    }
}

/// Checks an `--otlp-endpoint` value: an `http://host:port` URL (plaintext gRPC; a collector
/// behind TLS needs a local agent or sidecar), or empty for off (an empty
/// `OTEL_EXPORTER_OTLP_ENDPOINT` means unset, as the OpenTelemetry specification has it).
pub fn parse_endpoint(value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Ok(String::new());
    }
    let uri: http::Uri = value
        .parse()
        .map_err(|e| format!("{e} (e.g. http://localhost:4317)"))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => {
            return Err(
                "https is not supported: export to a collector's plaintext OTLP/gRPC port \
                 (e.g. http://localhost:4317)"
                    .to_owned(),
            );
        }
        _ => return Err("must start with http:// (e.g. http://localhost:4317)".to_owned()),
    }
    if uri.authority().is_none() {
        return Err("needs a host (e.g. http://localhost:4317)".to_owned());
    }
    Ok(value.to_owned())
}

/// Starts the exporter for `endpoint` and returns it with the tracing layer that feeds it.
/// Must run inside the tokio runtime that will serve (the exporter's channel lives on it).
/// The collector need not be up yet: the channel connects on first export.
pub fn start<S>(endpoint: &str) -> Result<(OtlpExport, impl Layer<S>), String>
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint)
        .build()
        .map_err(|e| format!("OTLP exporter for {endpoint}: {e}"))?;
    let mut resource = Resource::builder().with_attribute(opentelemetry::KeyValue::new(
        "service.version",
        env!("CARGO_PKG_VERSION"),
    ));
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name("matchgrid");
    }
    let provider = SdkTracerProvider::builder()
        .with_resource(resource.build())
        .with_batch_exporter(exporter)
        .build();
    let tracer = provider.tracer("matchgrid");
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_filter(tracing_subscriber::filter::filter_fn(exported));
    Ok((
        OtlpExport {
            provider,
            endpoint: endpoint.to_owned(),
        },
        layer,
    ))
}

/// What the OpenTelemetry layer sees: the per-RPC span, and matchgrid's warnings and errors
/// (recorded as events of the span they happen in).
fn exported(metadata: &tracing::Metadata<'_>) -> bool {
    if metadata.is_span() {
        metadata.target() == SPAN_TARGET && metadata.name() == "rpc"
    } else {
        *metadata.level() <= tracing::Level::WARN && metadata.target().starts_with("matchgrid")
    }
}

/// Reads gRPC metadata (HTTP/2 headers) for the propagator.
struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// The caller's trace context from W3C `traceparent` and `tracestate` metadata, or None when
/// there is none (or it is malformed: the call then starts a new trace).
pub fn parent_context(headers: &http::HeaderMap) -> Option<opentelemetry::Context> {
    if !headers.contains_key("traceparent") {
        return None;
    }
    let context = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    context.span().span_context().is_valid().then_some(context)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{SpanId, TraceId};

    #[test]
    fn endpoints_must_be_plaintext_urls_with_a_host() {
        assert!(parse_endpoint("http://127.0.0.1:4317").is_ok());
        assert!(parse_endpoint("http://collector:4317/").is_ok());
        assert_eq!(parse_endpoint(""), Ok(String::new()));
        for bad in [
            "https://collector:4317",
            "collector:4317",
            "ftp://x",
            "http://",
        ] {
            assert!(parse_endpoint(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_parent_comes_from_traceparent_and_tracestate() {
        let mut headers = http::HeaderMap::new();
        assert!(parent_context(&headers).is_none());
        headers.insert(
            "traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                .parse()
                .unwrap(),
        );
        headers.insert("tracestate", "congo=t61rcWkgMzE".parse().unwrap());
        let context = parent_context(&headers).expect("a parent");
        let span = context.span();
        let parent = span.span_context();
        assert_eq!(
            parent.trace_id(),
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap()
        );
        assert_eq!(
            parent.span_id(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap()
        );
        assert!(parent.is_sampled() && parent.is_remote());
        assert_eq!(parent.trace_state().header(), "congo=t61rcWkgMzE");

        headers.insert("traceparent", "00-not-a-trace-01".parse().unwrap());
        assert!(parent_context(&headers).is_none());
    }
}
