//! Server wiring: configuration, telemetry, health, reflection, limits and graceful shutdown.
//!
//! Lifecycle: every health entry (`""`, `matchgrid.v1.SwapPuzzle`,
//! `matchgrid.v1.CollapsePuzzle`) starts NOT_SERVING, turns SERVING once the listener is bound,
//! and turns NOT_SERVING the moment SIGTERM or SIGINT arrives. Every open health `Watch` stream
//! then gets that NOT_SERVING and ends (UNAVAILABLE, reason `SHUTTING_DOWN`); the server stops
//! accepting, lets in-flight calls finish, and exits as soon as they have, or after at most
//! `shutdown_grace` if clients hold other streams open.
//!
//! Compression: responses of at most [`COMPRESS_MAX_BYTES`] are compressed when the client
//! accepts gzip or zstd; larger ones go uncompressed (see
//! [`admission::COMPRESS_MAX_BYTES`]).

pub mod admission;
pub mod call;
pub mod call_body;
pub mod call_future;
pub mod call_metrics;
pub mod codec_errors;
pub mod config;
pub mod framing;
pub mod front;
pub mod grpc_code;
pub mod log_throttle;
pub mod observe;
pub mod otlp;
pub mod playground;
pub mod services;
pub mod span;
pub mod tls;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::FutureExt as _;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
use tokio::net::TcpListener;
use tonic::codec::CompressionEncoding;
use tonic::transport::Server;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use call_metrics::LATENCY_BUCKETS;
pub use config::{LogFormat, ServeConfig};
use front::FrontLayer;
use observe::ObserveLayer;

use admission::Admission;
pub use admission::COMPRESS_MAX_BYTES;
use services::{CollapseService, SwapService};

use crate::proto::collapse_puzzle_server::CollapsePuzzleServer;
use crate::proto::swap_puzzle_server::SwapPuzzleServer;
use crate::transport::ServiceLimits;

/// Health entries this server reports, besides the overall `""` entry.
pub const SERVICE_NAMES: &[&str] = &["matchgrid.v1.SwapPuzzle", "matchgrid.v1.CollapsePuzzle"];

/// Paths that skip the concurrency limit, shedding, the deadline check and the timeout: health
/// checks must answer truthfully under overload, and Watch streams are long-lived by design.
const HEALTH_PATHS: &[&str] = &["/grpc.health.v1.Health/"];

/// HTTP/2 keepalive ping interval and timeout.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);
/// Grace given to in-flight calls on a connection closed for age.
const CONNECTION_AGE_GRACE: Duration = Duration::from_secs(10);

/// The same message size limit both ways, and gzip and zstd accepted and offered, on one of
/// the generated service servers (they share no trait for these builders).
macro_rules! with_codec_settings {
    ($server:expr, $limit:expr) => {
        $server
            .max_decoding_message_size($limit)
            .max_encoding_message_size($limit)
            .accept_compressed(CompressionEncoding::Gzip)
            .accept_compressed(CompressionEncoding::Zstd)
            .send_compressed(CompressionEncoding::Gzip)
            .send_compressed(CompressionEncoding::Zstd)
    };
}

/// The call layer the server puts around every RPC ([`ObserveLayer`]: the concurrency limit,
/// the deadline check, framing checks, the timeout, panic catching, metrics and the span; health
/// checks skip the limit, the deadline check and the timeout).
pub fn call_layers(request_timeout: Duration, concurrency_limit: u32) -> ObserveLayer {
    ObserveLayer::new(request_timeout, concurrency_limit).exempt(HEALTH_PATHS)
}

/// Installs the log subscriber (stderr) for `config`'s format and level, and with
/// `--otlp-endpoint` the OpenTelemetry layer that exports per-RPC spans ([`otlp`]); returns the
/// exporter, to flush at exit. Must run inside the serving runtime when exporting.
fn init_telemetry(config: &ServeConfig) -> Result<Option<otlp::OtlpExport>, String> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    let Some(endpoint) = config.otlp_endpoint() else {
        init_logging(config);
        return Ok(None);
    };
    let (export, otel) = otlp::start(endpoint)?;
    let filter = tracing_subscriber::EnvFilter::new(&config.log_level);
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE);
    let fmt = match config.log_format {
        LogFormat::Text => fmt.boxed(),
        LogFormat::Json => fmt.json().flatten_event(true).boxed(),
    };
    let _ = tracing_subscriber::registry()
        .with(otel)
        .with(fmt.with_filter(filter))
        .try_init();
    Ok(Some(export))
}

/// Installs the tracing subscriber for `config`'s format and level (logs only; [`run`] also
/// installs the span exporter when `--otlp-endpoint` is set).
pub fn init_logging(config: &ServeConfig) {
    let filter = tracing_subscriber::EnvFilter::new(&config.log_level);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE);
    let _ = match config.log_format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// Threads of tokio's blocking pool: the heavy-work slots
/// ([`admission::default_heavy_work_slots`], the computations allowed at once) and two more,
/// for a task whose slot was just released before its thread went idle, and for tokio's own
/// blocking work (files, name resolution). Without a cap the pool, whose default limit is 512,
/// starts a new thread whenever a task finds none idle, and every thread that allocates may
/// take a glibc malloc arena of its own (up to eight per CPU) that keeps its freed memory.
pub fn max_blocking_threads() -> usize {
    admission::default_heavy_work_slots() + 2
}

/// Builds the runtime and serves until SIGTERM/SIGINT. Returns a one-line error for start-up
/// failures (address in use, ...).
pub fn run(config: ServeConfig) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.effective_worker_threads())
        .max_blocking_threads(max_blocking_threads())
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let export = {
        let _inside = runtime.enter();
        init_telemetry(&config)?
    };
    let outcome = runtime.block_on(serve(config));
    // The last spans go out while the runtime still drives the exporter's channel.
    if let Some(export) = export {
        export.shutdown();
    }
    // Abandon anything still running (held-open streams) instead of waiting for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    outcome
}

async fn set_all(reporter: &HealthReporter, status: ServingStatus) {
    reporter.set_service_status("", status).await;
    for name in SERVICE_NAMES {
        reporter.set_service_status(*name, status).await;
    }
}

/// Installs the SIGTERM and SIGINT handlers now (so a signal that arrives right after start-up
/// is already caught) and returns a future that resolves on the first of them.
fn termination_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut sigterm =
            signal(SignalKind::terminate()).map_err(|e| format!("cannot handle SIGTERM: {e}"))?;
        let mut sigint =
            signal(SignalKind::interrupt()).map_err(|e| format!("cannot handle SIGINT: {e}"))?;
        Ok(async move {
            tokio::select! {
                _ = sigterm.recv() => tracing::info!("SIGTERM received"),
                _ = sigint.recv() => tracing::info!("SIGINT received"),
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Serves the gRPC API and the metrics endpoint until a termination signal, then drains.
pub async fn serve(config: ServeConfig) -> Result<(), String> {
    // TLS files are checked before anything binds, so a bad one refuses to start.
    let tls = tls::TlsFiles::from_config(&config)
        .map(|files| tls::ServerTls::start(files, config.tls_reload_interval))
        .transpose()?;
    let (prometheus, exporter) = PrometheusBuilder::new()
        .with_http_listener(config.metrics_listen)
        .set_buckets_for_metric(
            Matcher::Full("matchgrid_request_duration_seconds".to_owned()),
            LATENCY_BUCKETS,
        )
        .map_err(|e| format!("metrics: {e}"))?
        .build()
        .map_err(|e| format!("metrics listener {}: {e}", config.metrics_listen))?;
    // A second server in one process (tests) keeps the first recorder.
    let _ = metrics::set_global_recorder(prometheus);
    // Export the counters alerts rely on from the start, not only after their first event.
    metrics::counter!("matchgrid_requests_shed_total").absolute(0);
    metrics::gauge!("matchgrid_requests_in_flight").set(0.0);
    tokio::spawn(async move {
        if let Err(error) = exporter.await {
            tracing::error!(?error, "metrics endpoint stopped");
        }
    });

    let stop_signal = termination_signal()?;
    let (reporter, health_service) = tonic_health::server::health_reporter();
    set_all(&reporter, ServingStatus::NotServing).await;

    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(crate::proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .map_err(|e| format!("reflection: {e}"))?;

    let limit = config.max_message_bytes as usize;
    let admission = Admission::new(
        ServiceLimits {
            max_response_bytes: limit,
            request_timeout: Some(config.request_timeout),
            max_solve_threads: config.solve_threads(),
        },
        config.heavy_work_wait,
        admission::default_heavy_work_slots(),
    );
    let swap = with_codec_settings!(
        SwapPuzzleServer::new(SwapService {
            admission: admission.clone()
        }),
        limit
    );
    let collapse = with_codec_settings!(
        CollapsePuzzleServer::new(CollapseService { admission }),
        limit
    );

    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let local: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
    let health_port = match config.health_listen {
        Some(addr) => {
            let port =
                tls::spawn_health_port(addr, with_codec_settings!(health_service.clone(), limit))
                    .await?;
            tracing::info!(health = %port.addr, "plaintext health-only port listening");
            Some(port)
        }
        None => None,
    };

    let observe = call_layers(config.request_timeout, config.concurrency_limit)
        .trace_context(config.otlp_endpoint().is_some());
    let stream_shutdown = observe.stream_shutdown();
    let front = FrontLayer::new(
        observe,
        playground::PageLayer::new(config.playground),
        playground::cors_layer(&config.cors_allow_origin),
    );
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let router = Server::builder()
        // gRPC-Web from browsers may come over HTTP/1.1.
        .accept_http1(true)
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        .max_connection_age(config.max_connection_age)
        .max_connection_age_grace(CONNECTION_AGE_GRACE)
        // Plain gRPC straight to the call layer; gRPC-Web, pages and CORS on the web path.
        .layer(front)
        .add_service(with_codec_settings!(health_service, limit))
        .add_service(with_codec_settings!(reflection, limit))
        .add_service(swap)
        .add_service(collapse);
    let stopped = async {
        let _ = stop_rx.await;
    };
    let server = match &tls {
        None => {
            let incoming =
                tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
            router
                .serve_with_incoming_shutdown(incoming, stopped)
                .boxed()
        }
        Some(tls) => router
            .serve_with_incoming_shutdown(tls.incoming(listener), stopped)
            .boxed(),
    };
    let mut server = tokio::spawn(server);

    set_all(&reporter, ServingStatus::Serving).await;
    tracing::info!(
        listen = %local,
        metrics = %config.metrics_listen,
        tls = tls.as_ref().map_or("off", |t| if t.mutual() { "mutual" } else { "on" }),
        workers = config.effective_worker_threads(),
        otlp = config.otlp_endpoint().unwrap_or("off"),
        playground = config.playground,
        "matchgrid serving"
    );

    tokio::select! {
        () = stop_signal => {}
        finished = &mut server => {
            return match finished {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(format!("server failed: {e}")),
                Err(e) => Err(format!("server task failed: {e}")),
            };
        }
    }
    set_all(&reporter, ServingStatus::NotServing).await;
    // After NOT_SERVING is set, so every Watch sends it before it ends.
    stream_shutdown.end_streams();
    tracing::info!(grace = ?config.shutdown_grace, "draining in-flight calls");
    let _ = stop_tx.send(());
    match tokio::time::timeout(config.shutdown_grace, server).await {
        Ok(_) => tracing::info!("drained; exiting"),
        Err(_) => tracing::warn!("shutdown grace elapsed with connections still open; exiting"),
    }
    if let Some(port) = health_port {
        port.shut_down(HEALTH_PORT_GRACE).await;
    }
    Ok(())
}

/// The most the health-only port's thread is given at exit to finish its calls in flight.
const HEALTH_PORT_GRACE: Duration = Duration::from_millis(200);
