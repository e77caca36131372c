//! Transport security for the gRPC port, and the plaintext health-only port for probes.
//!
//! TLS is terminated here with rustls (ring provider) rather than by tonic's `ServerTlsConfig`,
//! which takes a fixed identity: the accept loop ([`ServerTls::incoming`]) handshakes each new
//! connection with the *current* [`ServerConfig`], and a reload task replaces that config when
//! the certificate, key or client CA files change (as cert-manager rotates a Secret in place).
//! A change that does not load (half-written files, a key that does not match) is logged and
//! the previous config stays in use. Connections already open keep the certificate they were
//! established with; `--max-connection-age` bounds how long that is.
//!
//! Under mutual TLS a client without a certificate signed by `--tls-client-ca` fails the
//! handshake, so its requests never reach a handler (or the metrics).

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::crypto::{CryptoProvider, ring};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::{self, RootCertStore, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_stream::wrappers::ReceiverStream;

use super::ServeConfig;

/// Longest a client may take to complete the TLS handshake before its connection is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Handshaken connections waiting for the server to pick them up.
const ACCEPT_QUEUE: usize = 64;

/// The TLS files named by the configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// `--tls-cert`: the certificate chain, leaf first.
    pub cert: PathBuf,
    /// `--tls-key`: the private key of the leaf.
    pub key: PathBuf,
    /// `--tls-client-ca`: when set, clients must present a certificate signed by these CAs.
    pub client_ca: Option<PathBuf>,
}

impl TlsFiles {
    /// The TLS files of `config`, or `None` when TLS is off (clap guarantees cert and key come
    /// together, and a client CA only with both).
    pub fn from_config(config: &ServeConfig) -> Option<Self> {
        match (&config.tls_cert, &config.tls_key) {
            (Some(cert), Some(key)) => Some(Self {
                cert: cert.clone(),
                key: key.clone(),
                client_ca: config.tls_client_ca.clone(),
            }),
            _ => None,
        }
    }

    /// Reads, parses and checks the files into a rustls server config (ALPN `h2`). Errors are
    /// one line naming the flag and the file: unreadable, not PEM, no certificate or key in it,
    /// a key that does not match the certificate, an unusable CA.
    pub fn load(&self) -> Result<Arc<ServerConfig>, String> {
        let provider = Arc::new(ring::default_provider());
        let certs = read_certs("--tls-cert", &self.cert)?;
        let key_pem = read("--tls-key", &self.key)?;
        let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
            format!(
                "--tls-key {}: no usable private key: {e}",
                self.key.display()
            )
        })?;
        let certified = certified_key(certs, key, &provider, self)?;
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?;
        let builder = match &self.client_ca {
            None => builder.with_no_client_auth(),
            Some(path) => {
                let mut roots = RootCertStore::empty();
                for cert in read_certs("--tls-client-ca", path)? {
                    roots.add(cert).map_err(|e| {
                        format!("--tls-client-ca {}: unusable CA: {e}", path.display())
                    })?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .build()
                        .map_err(|e| format!("--tls-client-ca {}: {e}", path.display()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config =
            builder.with_cert_resolver(Arc::new(rustls::sign::SingleCertAndKey::from(certified)));
        config.alpn_protocols = vec![b"h2".to_vec()];
        Ok(Arc::new(config))
    }

    fn paths(&self) -> impl Iterator<Item = &Path> {
        [Some(&self.cert), Some(&self.key), self.client_ca.as_ref()]
            .into_iter()
            .flatten()
            .map(PathBuf::as_path)
    }

    /// What identifies the files' current contents cheaply: modification time, size and (on
    /// Unix) inode; an unreadable file is `None`. Paths are followed through symlinks, as a
    /// Kubernetes Secret volume's `..data` swap needs.
    fn stamp(&self) -> Vec<Option<(SystemTime, u64, u64)>> {
        self.paths()
            .map(|path| {
                let meta = std::fs::metadata(path).ok()?;
                #[cfg(unix)]
                let inode = std::os::unix::fs::MetadataExt::ino(&meta);
                #[cfg(not(unix))]
                let inode = 0;
                Some((meta.modified().ok()?, meta.len(), inode))
            })
            .collect()
    }
}

fn read(flag: &str, path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{flag} {}: cannot read: {e}", path.display()))
}

fn read_certs(flag: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = read(flag, path)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{flag} {}: not valid PEM: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "{flag} {}: no CERTIFICATE block in the file",
            path.display()
        ));
    }
    Ok(certs)
}

fn certified_key(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    provider: &CryptoProvider,
    files: &TlsFiles,
) -> Result<CertifiedKey, String> {
    let (cert_path, key_path) = (files.cert.display(), files.key.display());
    let signing_key = provider
        .key_provider
        .load_private_key(key)
        .map_err(|e| format!("--tls-key {key_path}: unsupported private key: {e}"))?;
    let certified = CertifiedKey::new(certs, signing_key);
    match certified.keys_match() {
        Ok(()) => Ok(certified),
        Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) => {
            Err(format!(
                "--tls-key {key_path} does not match the certificate in --tls-cert {cert_path}"
            ))
        }
        Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => Ok(certified),
        Err(e) => Err(format!("--tls-cert {cert_path}: unusable certificate: {e}")),
    }
}

/// TLS for the gRPC port: the current server config, replaced by a reload task as the files
/// change.
#[derive(Debug)]
pub struct ServerTls {
    current: watch::Receiver<Arc<ServerConfig>>,
    mutual: bool,
}

impl ServerTls {
    /// Loads `files` (errors name the flag, see [`TlsFiles::load`]) and, on the current Tokio
    /// runtime, starts checking them for changes every `interval`.
    pub fn start(files: TlsFiles, interval: Duration) -> Result<Self, String> {
        let initial = files.load()?;
        let mutual = files.client_ca.is_some();
        let (sender, current) = watch::channel(initial);
        tokio::spawn(reload(files, interval, sender));
        Ok(Self { current, mutual })
    }

    /// Whether clients must present a certificate.
    pub fn mutual(&self) -> bool {
        self.mutual
    }

    /// Accepts TCP connections on `listener` and yields them once their TLS handshake (with
    /// the config current when they connected) succeeds; failed handshakes are logged at debug
    /// level and dropped. Stops accepting when the returned stream is dropped.
    pub fn incoming(
        &self,
        listener: TcpListener,
    ) -> ReceiverStream<io::Result<TlsStream<TcpStream>>> {
        let (sender, receiver) = mpsc::channel(ACCEPT_QUEUE);
        tokio::spawn(accept(listener, self.current.clone(), sender));
        ReceiverStream::new(receiver)
    }
}

async fn reload(files: TlsFiles, interval: Duration, sender: watch::Sender<Arc<ServerConfig>>) {
    let mut seen = files.stamp();
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if sender.is_closed() {
            return;
        }
        let stamp = files.stamp();
        if stamp == seen {
            continue;
        }
        seen = stamp;
        match files.load() {
            Ok(config) => {
                sender.send_replace(config);
                tracing::info!(cert = %files.cert.display(), "TLS files changed: reloaded");
            }
            Err(error) => tracing::warn!(
                %error,
                "TLS files changed but do not load; still serving the previous certificate"
            ),
        }
    }
}

async fn accept(
    listener: TcpListener,
    config: watch::Receiver<Arc<ServerConfig>>,
    sender: mpsc::Sender<io::Result<TlsStream<TcpStream>>>,
) {
    loop {
        let (stream, peer) = tokio::select! {
            () = sender.closed() => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Per-connection failures (reset before accept) and descriptor exhaustion
                    // alike: pause briefly rather than spin, and keep serving.
                    tracing::debug!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let acceptor = TlsAcceptor::from(Arc::clone(&config.borrow()));
        let sender = sender.clone();
        tokio::spawn(async move {
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                Ok(Ok(tls)) => {
                    let _ = sender.send(Ok(tls)).await;
                }
                Ok(Err(error)) => tracing::debug!(%peer, %error, "TLS handshake failed"),
                Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
            }
        });
    }
}

/// Serves only `health` (grpc.health.v1.Health) in plaintext on `addr`, for probes that cannot
/// do TLS or present a client certificate. It reports the same statuses as the gRPC port
/// (NOT_SERVING from the first termination signal) and runs until the process exits.
///
/// It runs on a thread of its own (`matchgrid-health`, a single-threaded runtime), so probes
/// are answered within an OS time slice even when every worker of the main runtime is busy
/// encoding large replies under overload.
/// Returns the port's handle; a bind failure is one line naming `--health-listen`.
pub async fn spawn_health_port<S>(addr: SocketAddr, health: S) -> Result<HealthPort, String>
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
        > + tonic::server::NamedService
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
{
    let cannot_listen = |e: std::io::Error| format!("--health-listen {addr}: cannot listen: {e}");
    let listener = std::net::TcpListener::bind(addr).map_err(cannot_listen)?;
    listener.set_nonblocking(true).map_err(cannot_listen)?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("--health-listen {addr}: cannot start its runtime: {e}"))?;
    let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let (done_tx, done) = std::sync::mpsc::channel::<()>();
    std::thread::Builder::new()
        .name("matchgrid-health".to_owned())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match TcpListener::from_std(listener) {
                    Ok(listener) => listener,
                    Err(error) => {
                        tracing::error!(%error, "health port stopped");
                        return;
                    }
                };
                let incoming =
                    tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
                let server = tonic::transport::Server::builder()
                    .add_service(health)
                    .serve_with_incoming_shutdown(incoming, async {
                        let _ = stop_rx.await;
                    });
                if let Err(error) = server.await {
                    tracing::error!(%error, "health port stopped");
                }
            });
            let _ = done_tx.send(());
        })
        .map_err(|e| format!("--health-listen {addr}: cannot start its thread: {e}"))?;
    Ok(HealthPort {
        addr: local,
        stop,
        done,
    })
}

/// The health-only port's thread, running until [`HealthPort::shut_down`].
pub struct HealthPort {
    /// The bound address.
    pub addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    done: std::sync::mpsc::Receiver<()>,
}

impl HealthPort {
    /// Stops accepting probes and waits up to `wait` for the calls in flight to finish (an
    /// open `Watch` has by then been sent the NOT_SERVING the shutdown set), so the process
    /// does not exit before its thread has written them.
    pub async fn shut_down(self, wait: Duration) {
        let _ = self.stop.send(());
        let done = self.done;
        let _ = tokio::task::spawn_blocking(move || done.recv_timeout(wait)).await;
    }
}
