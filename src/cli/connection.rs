//! The client's connection to a server: the address, the channel (plaintext or TLS), the
//! reply of a call, and what to tell the user when the connection itself breaks.

use tonic::transport::Channel;

use super::ClientTls;

/// `server` as a URL: as given when it has a scheme, else with `http://` in front
/// (`127.0.0.1:50051` is `http://127.0.0.1:50051`).
pub fn server_url(server: &str) -> String {
    if server.contains("://") {
        server.to_owned()
    } else {
        format!("http://{server}")
    }
}

pub(super) fn client_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

/// Why a client command failed: its one-line message, and whether the connection itself broke
/// (a transport error rather than an answer of the server), which [`explain`] looks into.
#[derive(Debug)]
pub(super) struct Failure {
    message: String,
    transport: bool,
}

impl Failure {
    /// The one-line message.
    pub(super) fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self {
            message,
            transport: false,
        }
    }
}

/// The message of a failed command, with a hint when the connection broke: what the port
/// speaks instead of gRPC over plaintext HTTP/2 (TLS, or HTTP/1 such as the metrics port), or
/// for TLS to a plaintext port.
pub(super) async fn explain(server: &str, result: Result<(), Failure>) -> Result<(), String> {
    let Err(failure) = result else {
        return Ok(());
    };
    let mut message = failure.message;
    if failure.transport {
        let https = is_https(server);
        let hint = match (https, probe(server).await) {
            (false, Speaks::Tls) => Some(format!(
                "{server} answers with TLS: call it as https://{} with --tls-ca (and \
                 --tls-cert/--tls-key if it asks for a client certificate)",
                host_port(server)
            )),
            (true, Speaks::Plaintext) => Some(format!(
                "{server} does not answer with TLS: try http://{}",
                host_port(server)
            )),
            (_, Speaks::Http1) => Some(format!(
                "{server} answers HTTP/1, not gRPC: not a gRPC server? The metrics port \
                 serves only GET /metrics; gRPC is on serve's --listen port, 50051 by default"
            )),
            (false, Speaks::Nothing) => Some(format!(
                "{server} closed the connection without an HTTP/2 answer: not a gRPC server?"
            )),
            _ => None,
        };
        if let Some(hint) = hint {
            message.push_str("; ");
            message.push_str(&hint);
        }
    }
    Err(message)
}

/// What a port answers to the opening of a plaintext HTTP/2 connection.
#[derive(Debug, PartialEq, Eq)]
enum Speaks {
    /// A TLS record (an alert): a TLS port.
    Tls,
    /// An HTTP/1 status line.
    Http1,
    /// An HTTP/2 frame: a plaintext HTTP/2 (gRPC) port.
    Plaintext,
    /// Nothing, or it could not be reached.
    Nothing,
}

/// What `server`'s port answers: first to the opening of a plaintext HTTP/2 connection (the
/// client preface and an empty SETTINGS frame), then, if that gets nothing, to an HTTP/1
/// `GET /` (which an HTTP/1-only server answers while closing on the preface). Each attempt
/// waits at most a second.
async fn probe(server: &str) -> Speaks {
    let mut preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    preface.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    match probe_with(server, &preface).await {
        Speaks::Nothing => {
            let get = format!(
                "GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
                host_port(server)
            );
            match probe_with(server, get.as_bytes()).await {
                Speaks::Http1 => Speaks::Http1,
                _ => Speaks::Nothing,
            }
        }
        speaks => speaks,
    }
}

/// Connects to `server`'s host and port, writes `hello` and classifies the first bytes back.
async fn probe_with(server: &str, hello: &[u8]) -> Speaks {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let attempt = async {
        let mut stream = tokio::net::TcpStream::connect(host_port(server))
            .await
            .ok()?;
        stream.write_all(hello).await.ok()?;
        let mut head = [0u8; 5];
        let mut read = 0;
        while read < head.len() {
            match stream.read(&mut head[read..]).await {
                Ok(0) | Err(_) => break,
                Ok(n) => read += n,
            }
        }
        Some(match &head[..read] {
            [0x14..=0x17, 0x03, ..] => Speaks::Tls,
            [b'H', b'T', b'T', b'P', ..] => Speaks::Http1,
            [_, _, _, _, _] => Speaks::Plaintext,
            _ => Speaks::Nothing,
        })
    };
    tokio::time::timeout(std::time::Duration::from_secs(1), attempt)
        .await
        .ok()
        .flatten()
        .unwrap_or(Speaks::Nothing)
}

pub(super) fn is_https(server: &str) -> bool {
    server
        .get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
}

/// The `HOST:PORT` of a URL (the default port of its scheme when it names none).
fn host_port(server: &str) -> String {
    let rest = server.split_once("://").map_or(server, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or(rest);
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
        && !authority.ends_with(']');
    if has_port {
        authority.to_owned()
    } else if is_https(server) {
        format!("{authority}:443")
    } else {
        format!("{authority}:80")
    }
}

pub(super) async fn connect(server: &str, tls: &ClientTls) -> Result<Channel, Failure> {
    let mut endpoint =
        Channel::from_shared(server.to_owned()).map_err(|e| format!("--server {server:?}: {e}"))?;
    if let Some(config) = tls.config(server)? {
        endpoint = endpoint
            .tls_config(config)
            .map_err(|e| format!("TLS settings for {server}: {e}"))?;
    }
    endpoint.connect().await.map_err(|e| {
        let mut message = format!("cannot connect to {server}: {e}");
        let mut source = std::error::Error::source(&e);
        while let Some(cause) = source {
            let text = format!(": {cause}");
            if !message.ends_with(&text) {
                message.push_str(&text);
            }
            source = cause.source();
        }
        if message.contains("Connection refused") {
            message.push_str(
                "; is `matchgrid serve` running there? It listens on --listen, \
                 0.0.0.0:50051 by default",
            );
            return Failure::from(message);
        }
        Failure {
            message,
            transport: true,
        }
    })
}

/// The response of a call, or its status as one line (`Code: message [REASON]`, the reason
/// from the status's `google.rpc.ErrorInfo` when it has one), followed by the causes of a
/// transport failure (e.g. the TLS alert of a refused client certificate).
pub(super) fn reply<T>(result: Result<tonic::Response<T>, tonic::Status>) -> Result<T, Failure> {
    result.map(tonic::Response::into_inner).map_err(|status| {
        let mut message = format!("{:?}: {}", status.code(), status.message());
        if let Some(info) = tonic_types::StatusExt::get_details_error_info(&status) {
            message.push_str(&format!(" [{}]", info.reason));
        }
        if status.code() == tonic::Code::OutOfRange
            && status.message().contains("message length too large")
        {
            // tonic's own limit on this side (the client's), not the server's.
            message.push_str(" (this client's limit: raise --max-message-bytes)");
        }
        // A status made on this side from a broken connection carries its cause; one the
        // server sent does not.
        let transport = std::error::Error::source(&status).is_some()
            && matches!(
                status.code(),
                tonic::Code::Unknown | tonic::Code::Internal | tonic::Code::Unavailable
            );
        let mut source = std::error::Error::source(&status);
        while let Some(cause) = source {
            let text = cause.to_string();
            if !message.contains(&text) {
                message.push_str(": ");
                message.push_str(&text);
            }
            source = cause.source();
        }
        Failure { message, transport }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_without_a_scheme_are_http() {
        assert_eq!(server_url("127.0.0.1:50051"), "http://127.0.0.1:50051");
        assert_eq!(server_url("localhost:1"), "http://localhost:1");
        assert_eq!(server_url("https://h:2"), "https://h:2");
        assert_eq!(host_port("http://127.0.0.1:50051"), "127.0.0.1:50051");
        assert_eq!(host_port("https://h:2/"), "h:2");
        assert_eq!(host_port("https://h"), "h:443");
        assert_eq!(host_port("http://h"), "h:80");
        assert_eq!(host_port("http://[::1]:7"), "[::1]:7");
        assert_eq!(host_port("http://[::1]"), "[::1]:80");
    }
}
