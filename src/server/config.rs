//! Server configuration: every setting is a flag with a `MATCHGRID_*` environment variable,
//! validated by clap at start-up (a bad value exits non-zero with a message naming it).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

fn parse_duration(value: &str) -> Result<Duration, String> {
    let duration =
        humantime::parse_duration(value).map_err(|e| format!("{e} (e.g. 5s, 250ms, 1m)"))?;
    if duration.is_zero() {
        return Err("must be greater than zero".to_owned());
    }
    Ok(duration)
}

fn parse_log_level(value: &str) -> Result<String, String> {
    tracing_subscriber::EnvFilter::builder()
        .parse(value)
        .map(|_| value.to_owned())
        .map_err(|e| format!("{e} (e.g. info, debug, matchgrid=debug,tower=warn)"))
}

/// `matchgrid serve` settings.
#[derive(Clone, Debug, Args)]
pub struct ServeConfig {
    /// gRPC listen address (host:port).
    #[arg(long, env = "MATCHGRID_LISTEN", default_value = "0.0.0.0:50051")]
    pub listen: SocketAddr,

    /// Prometheus metrics listen address (host:port); serves GET /metrics.
    #[arg(long, env = "MATCHGRID_METRICS_LISTEN", default_value = "0.0.0.0:9090")]
    pub metrics_listen: SocketAddr,

    /// Tokio worker threads, 1..=1024. Default: the CPUs this process may use (cgroup quota
    /// aware), not the host's.
    #[arg(long, env = "MATCHGRID_WORKER_THREADS", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub worker_threads: Option<u16>,

    /// Largest request and response message, in bytes (1024..=67108864); larger ones are
    /// answered RESOURCE_EXHAUSTED.
    #[arg(long, env = "MATCHGRID_MAX_MESSAGE_BYTES", default_value_t = crate::transport::DEFAULT_MAX_MESSAGE_BYTES,
          value_parser = clap::value_parser!(u32).range(1024..=64 * 1024 * 1024))]
    pub max_message_bytes: u32,

    /// Per-request timeout (e.g. 5s, 500ms); a request still running then gets DEADLINE_EXCEEDED.
    /// Searches (Solve, Simulate, Hint) aim to answer before it, less a margin that grows with
    /// the load, and get a grace period past it (half of it, 1 s to 10 s) before the server
    /// answers SERVER_TIMEOUT for them.
    #[arg(long, env = "MATCHGRID_REQUEST_TIMEOUT", default_value = "5s", value_parser = parse_duration)]
    pub request_timeout: Duration,

    /// Requests served at once across all connections (1..=65536); more are shed at once with
    /// RESOURCE_EXHAUSTED instead of queueing.
    #[arg(long, env = "MATCHGRID_CONCURRENCY_LIMIT", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub concurrency_limit: u32,

    /// Longest a heavy request (a board above the inline limits) waits for a heavy-work slot
    /// (twice the CPUs) before it is answered RESOURCE_EXHAUSTED (reason `HEAVY_WORK_BUSY`);
    /// shorter when the client's own deadline (`grpc-timeout`) is nearer.
    #[arg(long, env = "MATCHGRID_HEAVY_WORK_WAIT", default_value = "100ms", value_parser = parse_duration)]
    pub heavy_work_wait: Duration,

    /// Most threads one Solve may run on (1..=64; default: the CPUs this process may use, at
    /// most 64). A request asking for more runs on this many; each thread holds one
    /// heavy-work slot, so one Solve never takes more than the slots (twice the CPUs).
    #[arg(long, env = "MATCHGRID_SOLVE_THREADS", value_parser = clap::value_parser!(u8).range(1..=64))]
    pub solve_threads: Option<u8>,

    /// After SIGTERM/SIGINT: how long in-flight calls may drain before the process exits anyway.
    #[arg(long, env = "MATCHGRID_SHUTDOWN_GRACE", default_value = "20s", value_parser = parse_duration)]
    pub shutdown_grace: Duration,

    /// Connections older than this get a GOAWAY so clients reconnect (and rebalance behind a
    /// ClusterIP Service); in-flight calls get a further 10s grace.
    #[arg(long, env = "MATCHGRID_MAX_CONNECTION_AGE", default_value = "300s", value_parser = parse_duration)]
    pub max_connection_age: Duration,

    /// Server certificate chain, PEM (leaf first). Turns TLS on for the gRPC port (health and
    /// reflection included); needs --tls-key. The files are re-read when they change.
    #[arg(
        long,
        env = "MATCHGRID_TLS_CERT",
        value_name = "PEM",
        requires = "tls_key"
    )]
    pub tls_cert: Option<PathBuf>,

    /// Private key for --tls-cert, PEM (PKCS#8, PKCS#1 or SEC1).
    #[arg(
        long,
        env = "MATCHGRID_TLS_KEY",
        value_name = "PEM",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,

    /// CA certificates, PEM: turns on mutual TLS; clients must present a certificate signed by
    /// one of them or are refused at the handshake. Needs --tls-cert and --tls-key.
    #[arg(long, env = "MATCHGRID_TLS_CLIENT_CA", value_name = "PEM", requires_all = ["tls_cert", "tls_key"])]
    pub tls_client_ca: Option<PathBuf>,

    /// How often the TLS files are checked for changes (modification time and size); changed
    /// files are loaded for new connections, broken ones are logged and the old ones kept.
    #[arg(long, env = "MATCHGRID_TLS_RELOAD_INTERVAL", default_value = "5s", value_parser = parse_duration)]
    pub tls_reload_interval: Duration,

    /// Plaintext health-only listen address (host:port), off by default: serves only
    /// grpc.health.v1.Health, for Kubernetes probes, which cannot present a client certificate.
    #[arg(long, env = "MATCHGRID_HEALTH_LISTEN")]
    pub health_listen: Option<SocketAddr>,

    /// OTLP/gRPC collector to export per-RPC trace spans to, plaintext (e.g.
    /// http://localhost:4317); off when unset. Each call's span continues the caller's W3C
    /// `traceparent`/`tracestate` metadata. Spans still queued are sent at shutdown. Empty
    /// means off.
    #[arg(long, env = "OTEL_EXPORTER_OTLP_ENDPOINT", value_name = "URL", value_parser = crate::server::otlp::parse_endpoint)]
    pub otlp_endpoint: Option<String>,

    /// Serve the browser playground on the gRPC port (GET /), calling the API there over
    /// gRPC-Web (true or false). gRPC-Web itself is always accepted.
    #[arg(long, env = "MATCHGRID_PLAYGROUND", default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub playground: bool,

    /// An origin whose pages may call the API over gRPC-Web (CORS), e.g.
    /// `https://levels.example.com`, or * for any; repeat the flag (or separate with commas in
    /// the environment variable) for several. Default: none, only the same origin (the
    /// playground served here).
    #[arg(long, env = "MATCHGRID_CORS_ALLOW_ORIGIN", value_name = "ORIGIN", value_delimiter = ',',
          value_parser = crate::server::playground::parse_origin)]
    pub cors_allow_origin: Vec<String>,

    /// Log format.
    #[arg(long, env = "MATCHGRID_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log level or tracing filter directives (e.g. info, debug, matchgrid=debug,h2=warn).
    #[arg(long, env = "MATCHGRID_LOG_LEVEL", default_value = "info", value_parser = parse_log_level)]
    pub log_level: String,
}

impl ServeConfig {
    /// The OTLP collector spans go to, if any (an empty `--otlp-endpoint` is none).
    pub fn otlp_endpoint(&self) -> Option<&str> {
        self.otlp_endpoint.as_deref().filter(|e| !e.is_empty())
    }

    /// Most threads one Solve may run on: `--solve-threads`, else
    /// [`default_solve_threads`](crate::transport::default_solve_threads).
    pub fn solve_threads(&self) -> usize {
        self.solve_threads
            .map_or_else(crate::transport::default_solve_threads, usize::from)
    }

    /// Worker threads to start: the flag, or the CPUs available to this process.
    pub fn effective_worker_threads(&self) -> usize {
        self.worker_threads.map(usize::from).unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(std::num::NonZeroUsize::get)
                .unwrap_or(1)
        })
    }
}
