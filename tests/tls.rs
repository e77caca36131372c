//! Transport security against the real binary, with certificates made at test time (rcgen):
//! TLS calls succeed and plaintext clients are refused; under mutual TLS clients without a
//! certificate from the configured CA fail the handshake and never reach a handler; the
//! plaintext health-only port answers probes; a rotated certificate is served on new
//! connections without a restart (and a broken rotation keeps the old one); half or broken
//! configurations exit non-zero at start-up naming the flag.
mod common;
mod ops_support;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{TestServer, free_port, spec_swap_example};
use matchgrid::proto::SwapVerdict;
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use ops_support::{STEP, parse_metrics, scrape, value, within};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const VALIDATE: &str = "/matchgrid.v1.SwapPuzzle/ValidateSwap";
/// Reload interval the rotation test runs the server with.
const RELOAD: &str = "200ms";
/// Bound on waiting for a rotation to show (many reload intervals on a loaded machine).
const ROTATION_WAIT: Duration = Duration::from_secs(20);

/// A throwaway folder under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "matchgrid-tls-{}-{name}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&path).expect("create temp dir");
        Self(path)
    }

    /// Writes `contents` to `name` atomically (write aside, rename over), as a Secret volume
    /// update is; returns the path.
    fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        let aside = self.0.join(format!(".{name}.tmp"));
        std::fs::write(&aside, contents).expect("write temp file");
        std::fs::rename(&aside, &path).expect("rename temp file");
        path
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A test CA.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate and its key, as PEM, with the certificate's DER.
struct Leaf {
    cert_pem: String,
    key_pem: String,
    der: CertificateDer<'static>,
}

impl Ca {
    fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Self { issuer }
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server certificate for `localhost` and 127.0.0.1 with common name `name`.
    fn server(&self, name: &str) -> Leaf {
        let mut params = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params
            .subject_alt_names
            .push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        self.sign(params)
    }

    /// A client certificate with common name `name`.
    fn client(&self, name: &str) -> Leaf {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        self.sign(params)
    }

    fn sign(&self, params: CertificateParams) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            der: cert.der().clone(),
        }
    }
}

/// Writes `leaf` as `tls.crt` / `tls.key` in `dir`; returns the serve flags for them.
fn server_flags(dir: &TempDir, leaf: &Leaf) -> Vec<String> {
    dir.write("tls.crt", &leaf.cert_pem);
    dir.write("tls.key", &leaf.key_pem);
    vec![
        "--tls-cert".into(),
        dir.path("tls.crt"),
        "--tls-key".into(),
        dir.path("tls.key"),
    ]
}

fn start(flags: &[String]) -> TestServer {
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    TestServer::start(&flags)
}

/// Connects over TLS to `localhost` trusting `ca`, presenting `identity` if given.
async fn tls_channel(
    addr: SocketAddr,
    ca: &Ca,
    identity: Option<&Leaf>,
) -> Result<Channel, String> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca.pem()))
        .domain_name("localhost");
    if let Some(leaf) = identity {
        tls = tls.identity(Identity::from_pem(&leaf.cert_pem, &leaf.key_pem));
    }
    let endpoint = Channel::from_shared(format!("https://{addr}"))
        .unwrap()
        .tls_config(tls)
        .map_err(|e| e.to_string())?;
    within("TLS connect", STEP, endpoint.connect())
        .await
        .map_err(|e| format!("{e:?}"))
}

/// One ValidateSwap of the rules' example over `channel`.
async fn validate_over(channel: Channel) -> Result<SwapVerdict, tonic::Status> {
    let mut client = SwapPuzzleClient::new(channel);
    within(
        "ValidateSwap",
        STEP,
        client.validate_swap(spec_swap_example()),
    )
    .await
    .map(|r| r.into_inner().verdict())
}

/// Connects (TLS to localhost, trusting `ca`, presenting `identity`) and calls ValidateSwap;
/// the error of whichever step failed.
async fn call_with(
    addr: SocketAddr,
    ca: &Ca,
    identity: Option<&Leaf>,
) -> Result<SwapVerdict, String> {
    let channel = tls_channel(addr, ca, identity).await?;
    validate_over(channel).await.map_err(|s| format!("{s:?}"))
}

fn requests_total(metrics: &str, code: &str) -> Option<f64> {
    value(
        &parse_metrics(metrics),
        "matchgrid_requests_total",
        &[("method", VALIDATE), ("code", code)],
    )
}

/// The certificate the server presents on a fresh TLS connection (raw rustls, trusting `ca`).
async fn served_certificate(addr: SocketAddr, ca: &Ca) -> Result<CertificateDer<'static>, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.issuer.der().clone()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = within("TCP connect", STEP, tokio::net::TcpStream::connect(addr))
        .await
        .map_err(|e| e.to_string())?;
    let name = ServerName::try_from("localhost").unwrap();
    let tls = within("TLS handshake", STEP, connector.connect(name, tcp))
        .await
        .map_err(|e| e.to_string())?;
    let (_, session) = tls.get_ref();
    session
        .peer_certificates()
        .and_then(|certs| certs.first())
        .map(|cert| cert.clone().into_owned())
        .ok_or_else(|| "no peer certificate".to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_calls_succeed_and_plaintext_clients_are_refused() {
    let dir = TempDir::new("basic");
    let ca = Ca::new("matchgrid test CA");
    let server = start(&server_flags(&dir, &ca.server("server one")));

    assert_eq!(call_with(server.addr, &ca, None).await, Ok(SwapVerdict::Ok));
    // Health follows the gRPC port's security: answered over TLS.
    let channel = tls_channel(server.addr, &ca, None).await.unwrap();
    let health = within(
        "Health/Check",
        STEP,
        HealthClient::new(channel).check(HealthCheckRequest {
            service: String::new(),
        }),
    )
    .await
    .expect("health over TLS")
    .into_inner();
    assert_eq!(health.status(), ServingStatus::Serving);

    // A plaintext HTTP/2 client gets no answer from the TLS port.
    let plaintext = Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .connect_lazy();
    let refused = validate_over(plaintext).await;
    assert!(refused.is_err(), "plaintext call answered: {refused:?}");
    // A client that does not trust the server's CA refuses the server.
    let stranger = Ca::new("some other CA");
    let untrusted = call_with(server.addr, &stranger, None).await;
    assert!(
        untrusted
            .as_ref()
            .is_err_and(|e| e.contains("UnknownIssuer")),
        "{untrusted:?}"
    );

    // The metrics port stays plaintext HTTP and counted exactly the one TLS call.
    let metrics = scrape(server.metrics_addr).await;
    assert_eq!(requests_total(&metrics, "OK"), Some(1.0), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls_refuses_clients_without_a_certificate_from_the_ca_at_the_handshake() {
    let dir = TempDir::new("mutual");
    let ca = Ca::new("matchgrid test CA");
    let client_ca = Ca::new("matchgrid clients CA");
    let other_ca = Ca::new("some other CA");
    let mut flags = server_flags(&dir, &ca.server("server"));
    dir.write("clients.crt", &client_ca.pem());
    flags.extend([
        "--tls-client-ca".into(),
        dir.path("clients.crt"),
        "--log-level".into(),
        "info,matchgrid::server::tls=debug".into(),
    ]);
    let server = start(&flags);

    let anonymous = call_with(server.addr, &ca, None).await;
    assert!(anonymous.is_err(), "no client certificate: {anonymous:?}");
    server.wait_for_log("peer sent no certificates", STEP);
    let foreign = call_with(server.addr, &ca, Some(&other_ca.client("intruder"))).await;
    assert!(foreign.is_err(), "client cert from another CA: {foreign:?}");
    // (tonic may retry a refused connection: wait for this refusal's own reason.)
    server.wait_for_log("UnknownIssuer", STEP);
    // A server certificate of the right CA is not a client certificate of it either.
    let wrong_ca = call_with(
        server.addr,
        &ca,
        Some(&ca.client("not from the clients CA")),
    )
    .await;
    assert!(
        wrong_ca.is_err(),
        "client cert from the server CA: {wrong_ca:?}"
    );

    // None of them reached a handler.
    let metrics = scrape(server.metrics_addr).await;
    let counted: Vec<_> = parse_metrics(&metrics)
        .into_iter()
        .filter(|s| s.name == "matchgrid_requests_total")
        .collect();
    assert!(
        counted.is_empty(),
        "refused clients were counted: {counted:#?}"
    );

    let admitted = call_with(server.addr, &ca, Some(&client_ca.client("backend"))).await;
    assert_eq!(admitted, Ok(SwapVerdict::Ok));
    let metrics = scrape(server.metrics_addr).await;
    assert_eq!(requests_total(&metrics, "OK"), Some(1.0), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_port_is_plaintext_and_serves_only_health() {
    let dir = TempDir::new("health");
    let ca = Ca::new("matchgrid test CA");
    let client_ca = Ca::new("matchgrid clients CA");
    let mut flags = server_flags(&dir, &ca.server("server"));
    dir.write("clients.crt", &client_ca.pem());
    let health_addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    flags.extend([
        "--tls-client-ca".into(),
        dir.path("clients.crt"),
        "--health-listen".into(),
        health_addr.to_string(),
        "--shutdown-grace".into(),
        "3s".into(),
    ]);
    let server = start(&flags);

    let channel = Channel::from_shared(format!("http://{health_addr}"))
        .unwrap()
        .connect()
        .await
        .expect("plaintext connect to the health port");
    let mut health = HealthClient::new(channel.clone());
    for service in ["", "matchgrid.v1.SwapPuzzle", "matchgrid.v1.CollapsePuzzle"] {
        let status = within(
            "Health/Check",
            STEP,
            health.check(HealthCheckRequest {
                service: service.to_owned(),
            }),
        )
        .await
        .unwrap_or_else(|s| panic!("health {service:?} on the health port: {s:?}"))
        .into_inner()
        .status();
        assert_eq!(status, ServingStatus::Serving, "{service:?}");
    }
    // Nothing but health there.
    let other = validate_over(channel).await.unwrap_err();
    assert_eq!(other.code(), tonic::Code::Unimplemented, "{other:?}");
    // The gRPC port still requires a client certificate.
    assert!(call_with(server.addr, &ca, None).await.is_err());

    // Probes see the drain: a Watch on the health port turns NOT_SERVING at SIGTERM. (A
    // Watch held open on the gRPC port by an admitted client keeps the server draining
    // meanwhile, so the process does not exit first.)
    let admitted = tls_channel(server.addr, &ca, Some(&client_ca.client("backend")))
        .await
        .unwrap();
    let mut held = within(
        "Health/Watch on the gRPC port",
        STEP,
        HealthClient::new(admitted).watch(HealthCheckRequest::default()),
    )
    .await
    .expect("watch over mutual TLS")
    .into_inner();
    let mut probe = within(
        "Health/Watch on the health port",
        STEP,
        health.watch(HealthCheckRequest::default()),
    )
    .await
    .expect("watch on the health port")
    .into_inner();
    for stream in [&mut held, &mut probe] {
        let first = within("first Watch status", STEP, stream.message()).await;
        assert_eq!(first.unwrap().unwrap().status(), ServingStatus::Serving);
    }
    server.sigterm();
    let next = within("Watch status after SIGTERM", STEP, probe.message()).await;
    assert_eq!(
        next.expect("health port Watch").expect("a status").status(),
        ServingStatus::NotServing
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_certificate_is_served_on_new_connections_without_a_restart() {
    let dir = TempDir::new("rotate");
    let ca = Ca::new("matchgrid test CA");
    let first = ca.server("first");
    let mut flags = server_flags(&dir, &first);
    flags.extend(["--tls-reload-interval".into(), RELOAD.into()]);
    let server = start(&flags);
    assert_eq!(
        served_certificate(server.addr, &ca).await,
        Ok(first.der.clone())
    );
    // A connection opened before the rotation.
    let old_channel = tls_channel(server.addr, &ca, None).await.unwrap();

    let second = ca.server("second");
    // Key first, then certificate, as a non-atomic writer would: the half-rotated state must
    // not stop the server, and the complete one must be picked up.
    dir.write("tls.key", &second.key_pem);
    dir.write("tls.crt", &second.cert_pem);
    let deadline = Instant::now() + ROTATION_WAIT;
    loop {
        let served = served_certificate(server.addr, &ca)
            .await
            .expect("handshake");
        if served == second.der {
            break;
        }
        assert_eq!(served, first.der, "neither the old nor the new certificate");
        assert!(
            Instant::now() < deadline,
            "the rotated certificate was not served within {ROTATION_WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    server.wait_for_log("TLS files changed: reloaded", STEP);
    assert_eq!(call_with(server.addr, &ca, None).await, Ok(SwapVerdict::Ok));
    assert_eq!(validate_over(old_channel).await.unwrap(), SwapVerdict::Ok);

    // A broken rotation is logged and the last good certificate stays.
    dir.write("tls.crt", "-----BEGIN CERTIFICATE-----\nnot base64!\n");
    let line = server.wait_for_log("still serving the previous certificate", STEP);
    assert!(line.contains("--tls-cert"), "{line}");
    assert_eq!(served_certificate(server.addr, &ca).await, Ok(second.der));
}

/// Runs `matchgrid serve` with `args` on free loopback ports expecting it to exit by itself
/// within 10 s; returns (exit code, stderr).
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let listen = format!("127.0.0.1:{}", free_port());
    let metrics = format!("127.0.0.1:{}", free_port());
    let mut command = Command::new(env!("CARGO_BIN_EXE_matchgrid"));
    command
        .args(["serve", "--listen", &listen, "--metrics-listen", &metrics])
        .args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("MATCHGRID_") || key == "RUST_LOG" {
            command.env_remove(key);
        }
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn matchgrid");
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "serve {args:?} still running after 10 s:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn assert_refused(args: &[&str], code: i32, needles: &[&str]) {
    let (status, stderr) = refused(args);
    assert_eq!(status, Some(code), "serve {args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "serve {args:?} does not name {needle:?}: {stderr}"
        );
    }
}

#[test]
fn half_or_broken_configurations_exit_non_zero_naming_the_flag() {
    let dir = TempDir::new("config");
    let ca = Ca::new("matchgrid test CA");
    let leaf = ca.server("server");
    let other = ca.server("other");
    let cert = dir.write("tls.crt", &leaf.cert_pem).display().to_string();
    let key = dir.write("tls.key", &leaf.key_pem).display().to_string();
    let other_key = dir.write("other.key", &other.key_pem).display().to_string();
    let ca_file = dir.write("ca.crt", &ca.pem()).display().to_string();
    let garbage = dir.write("garbage.pem", "hello\n").display().to_string();
    let bad_base64 = dir
        .write(
            "bad.pem",
            "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n",
        )
        .display()
        .to_string();
    let missing = dir.path("missing.pem");

    // Halves: clap refuses them before anything starts (exit 2, usage error).
    assert_refused(&["--tls-cert", &cert], 2, &["--tls-key"]);
    assert_refused(&["--tls-key", &key], 2, &["--tls-cert"]);
    assert_refused(
        &["--tls-client-ca", &ca_file],
        2,
        &["--tls-cert", "--tls-key"],
    );
    // Files that do not load: exit 1, naming the flag and the file.
    assert_refused(
        &["--tls-cert", &missing, "--tls-key", &key],
        1,
        &["--tls-cert", &missing, "cannot read"],
    );
    assert_refused(
        &["--tls-cert", &cert, "--tls-key", &missing],
        1,
        &["--tls-key", &missing, "cannot read"],
    );
    assert_refused(
        &["--tls-cert", &cert, "--tls-key", &other_key],
        1,
        &["--tls-key", &other_key, "does not match", "--tls-cert"],
    );
    assert_refused(
        &["--tls-cert", &garbage, "--tls-key", &key],
        1,
        &["--tls-cert", &garbage, "no CERTIFICATE"],
    );
    assert_refused(
        &["--tls-cert", &bad_base64, "--tls-key", &key],
        1,
        &["--tls-cert", &bad_base64],
    );
    assert_refused(
        &["--tls-cert", &cert, "--tls-key", &garbage],
        1,
        &["--tls-key", &garbage],
    );
    // A certificate is not a key, and a key is not a certificate.
    assert_refused(&["--tls-cert", &key, "--tls-key", &key], 1, &["--tls-cert"]);
    assert_refused(
        &["--tls-cert", &cert, "--tls-key", &cert],
        1,
        &["--tls-key"],
    );
    assert_refused(
        &[
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--tls-client-ca",
            &garbage,
        ],
        1,
        &["--tls-client-ca", &garbage],
    );
    assert_refused(
        &[
            "--tls-cert",
            &cert,
            "--tls-key",
            &key,
            "--tls-client-ca",
            &missing,
        ],
        1,
        &["--tls-client-ca", &missing, "cannot read"],
    );
    // From the environment too, as in a Deployment.
    let (status, stderr) = {
        let listen = format!("127.0.0.1:{}", free_port());
        let output = Command::new(env!("CARGO_BIN_EXE_matchgrid"))
            .args(["serve", "--listen", &listen])
            .env("MATCHGRID_TLS_CERT", &cert)
            .env_remove("MATCHGRID_TLS_KEY")
            .env_remove("MATCHGRID_TLS_CLIENT_CA")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("--tls-key"), "{stderr}");
}

/// `matchgrid swap validate` (the CLI client) with `args`; returns (exit code, stdout, stderr).
fn cli(args: Vec<String>) -> (Option<i32>, String, String) {
    let mut all = vec![
        "swap", "validate", "--board", "RRG/GGR", "--swap", "0,2:1,2",
    ];
    all.extend(args.iter().map(String::as_str));
    common::run_cli(&all, &[])
}

/// [`cli`] off the async runtime, bounded by [`STEP`].
async fn cli_call(args: &[&str]) -> (Option<i32>, String, String) {
    let args = args.iter().map(|s| (*s).to_owned()).collect();
    within(
        "CLI call",
        STEP,
        tokio::task::spawn_blocking(move || cli(args)),
    )
    .await
    .expect("CLI task")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_client_speaks_mutual_tls() {
    let dir = TempDir::new("cli");
    let ca = Ca::new("matchgrid test CA");
    let client_ca = Ca::new("matchgrid clients CA");
    let mut flags = server_flags(&dir, &ca.server("server"));
    dir.write("clients.crt", &client_ca.pem());
    flags.extend(["--tls-client-ca".into(), dir.path("clients.crt")]);
    let server = start(&flags);
    let backend = client_ca.client("backend");
    let ca_file = dir.write("ca.crt", &ca.pem()).display().to_string();
    let cert = dir
        .write("client.crt", &backend.cert_pem)
        .display()
        .to_string();
    let key = dir
        .write("client.key", &backend.key_pem)
        .display()
        .to_string();
    // By IP address, with the name to verify given apart.
    let url = format!("https://{}", server.addr);
    let tls = [
        "--server",
        url.as_str(),
        "--tls-ca",
        ca_file.as_str(),
        "--tls-server-name",
        "localhost",
    ];

    let mut with_identity = tls.to_vec();
    with_identity.extend(["--tls-cert", cert.as_str(), "--tls-key", key.as_str()]);
    let (code, stdout, stderr) = cli_call(&with_identity).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("verdict: SWAP_VERDICT_OK"), "{stdout}");

    // Without a client certificate the server refuses it; the error is one line.
    let (code, _, stderr) = cli_call(&tls).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    // TLS flags with http://, https:// without a CA, half an identity: one line naming the flag.
    let (code, _, stderr) =
        cli_call(&["--server", "http://127.0.0.1:1", "--tls-ca", &ca_file]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("--tls-ca needs an https:// --server"),
        "{stderr}"
    );
    let (code, _, stderr) = cli_call(&["--server", &url]).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("--tls-ca is required"), "{stderr}");
    let (code, _, stderr) = cli_call(&["--server", &url, "--tls-cert", &cert]).await;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--tls-key"), "{stderr}");
}
