//! The browser playground and gRPC-Web.
//!
//! The gRPC port also speaks gRPC-Web (`tonic-web`, over HTTP/1.1 or HTTP/2), so a browser can
//! call the API directly, and serves the playground page, embedded in the binary:
//!
//! - `GET /` (and `/playground`): the page (`web/playground/index.html`);
//! - `GET /playground.js`: its script, the esbuild bundle of `web/playground/src/` committed as
//!   `web/playground/dist/playground.js` (so building matchgrid needs no Node).
//!
//! The page calls the API on the origin it was loaded from, so it needs no CORS. Pages served
//! elsewhere may call the API only from the origins in `--cors-allow-origin` ([`cors_layer`]);
//! by default there are none, and browsers keep cross-origin calls out.
//!
//! [`PageLayer`] answers those paths before any gRPC layer sees them (they are not RPCs: no
//! metrics, no span); every other request passes through untouched.

use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::future::{Either, Ready, ready};
use http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use http::{HeaderName, Method, StatusCode};
use tonic::body::Body;
use tower::{Layer, Service};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The page.
pub const INDEX_HTML: &str = include_str!("../../web/playground/index.html");

/// The page's script (the committed esbuild bundle).
pub const PLAYGROUND_JS: &str = include_str!("../../web/playground/dist/playground.js");

/// The page's icon: a 2x2 of swap-family tiles (browsers ask for `/favicon.ico` on every load;
/// they all draw an SVG served there).
pub const FAVICON_SVG: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\
<rect x=\"1\" y=\"1\" width=\"6\" height=\"6\" rx=\"1.5\" fill=\"#e5484d\"/>\
<rect x=\"9\" y=\"1\" width=\"6\" height=\"6\" rx=\"1.5\" fill=\"#30a46c\"/>\
<rect x=\"1\" y=\"9\" width=\"6\" height=\"6\" rx=\"1.5\" fill=\"#30a46c\"/>\
<rect x=\"9\" y=\"9\" width=\"6\" height=\"6\" rx=\"1.5\" fill=\"#0090ff\"/></svg>";

/// What the page layer serves: path, content type, body.
const ASSETS: &[(&str, &str, &str)] = &[
    ("/favicon.ico", "image/svg+xml", FAVICON_SVG),
    ("/", "text/html; charset=utf-8", INDEX_HTML),
    ("/playground", "text/html; charset=utf-8", INDEX_HTML),
    (
        "/playground.js",
        "text/javascript; charset=utf-8",
        PLAYGROUND_JS,
    ),
];

/// Serves the playground's files on `GET` and `HEAD` of their paths (see the module docs), or
/// passes every request through when off.
#[derive(Clone, Copy, Debug)]
pub struct PageLayer {
    enabled: bool,
}

impl PageLayer {
    /// A layer that serves the page when `enabled`.
    pub fn new(enabled: bool) -> Self {
        Self { enabled }
    }
}

impl<S> Layer<S> for PageLayer {
    type Service = Page<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Page {
            inner,
            enabled: self.enabled,
        }
    }
}

/// See [`PageLayer`].
#[derive(Clone, Debug)]
pub struct Page<S> {
    inner: S,
    enabled: bool,
}

/// The response for a playground asset request, None for any other request.
fn asset<B>(request: &http::Request<B>) -> Option<http::Response<Body>> {
    let head = request.method() == Method::HEAD;
    if !(head || request.method() == Method::GET) {
        return None;
    }
    let &(_, content_type, text) = ASSETS
        .iter()
        .find(|(path, _, _)| *path == request.uri().path())?;
    let body = if head {
        Body::empty()
    } else {
        Body::new(text.to_owned())
    };
    let mut response = http::Response::new(body);
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        http::header::CONTENT_LENGTH,
        HeaderValue::from(text.len() as u64),
    );
    headers.insert(
        HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    );
    Some(response)
}

impl<S, B> Service<http::Request<B>> for Page<S>
where
    S: Service<http::Request<B>, Response = http::Response<Body>>,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = Either<Ready<Result<http::Response<Body>, S::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if self.enabled
            && let Some(response) = asset(&request)
        {
            return Either::Left(ready(Ok(response)));
        }
        Either::Right(self.inner.call(request))
    }
}

/// Checks a `--cors-allow-origin` value: `*` (any origin) or an origin such as
/// `https://levels.example.com` or `http://localhost:5173` (scheme, host, optional port; no
/// path).
pub fn parse_origin(value: &str) -> Result<String, String> {
    if value == "*" {
        return Ok(value.to_owned());
    }
    let uri: http::Uri = value
        .parse()
        .map_err(|e| format!("{e} (e.g. https://levels.example.com)"))?;
    let scheme_ok = matches!(uri.scheme_str(), Some("http" | "https"));
    let path_ok = uri.path_and_query().is_none_or(|p| p.as_str() == "/");
    if !scheme_ok || uri.authority().is_none() || !path_ok || value.ends_with('/') {
        return Err(
            "must be an origin: scheme://host[:port] without a path (e.g. https://levels.example.com), or *"
                .to_owned(),
        );
    }
    Ok(value.to_owned())
}

/// The request headers a gRPC-Web client sends (connect-web, grpc-web) plus trace context.
const ALLOWED_HEADERS: [&str; 7] = [
    "content-type",
    "x-grpc-web",
    "x-user-agent",
    "grpc-timeout",
    "grpc-accept-encoding",
    "traceparent",
    "tracestate",
];

/// The response headers a gRPC-Web client must read.
const EXPOSED_HEADERS: [&str; 3] = ["grpc-status", "grpc-message", "grpc-status-details-bin"];

/// The CORS layer for these allowed origins, or None when there are none (same origin only:
/// no CORS headers at all).
pub fn cors_layer(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    Some(
        CorsLayer::new()
            .allow_origin(allow)
            .allow_methods([Method::POST])
            .allow_headers(ALLOWED_HEADERS.map(HeaderName::from_static).to_vec())
            .expose_headers(EXPOSED_HEADERS.map(HeaderName::from_static).to_vec())
            .max_age(Duration::from_secs(24 * 60 * 60)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_scheme_host_and_port() {
        for good in ["*", "https://levels.example.com", "http://localhost:5173"] {
            assert_eq!(parse_origin(good).as_deref(), Ok(good));
        }
        for bad in [
            "levels.example.com",
            "https://levels.example.com/",
            "https://x/path",
            "ftp://x",
            "",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_page_and_its_script_are_served_and_nothing_else() {
        let get = |method: Method, path: &str| {
            asset(
                &http::Request::builder()
                    .method(method)
                    .uri(path)
                    .body(())
                    .unwrap(),
            )
        };
        let page = get(Method::GET, "/").expect("the page");
        assert_eq!(page.headers()[CONTENT_TYPE], "text/html; charset=utf-8");
        assert!(get(Method::GET, "/playground.js").is_some());
        assert!(get(Method::HEAD, "/playground").is_some());
        let icon = get(Method::GET, "/favicon.ico").expect("the icon");
        assert_eq!(icon.headers()[CONTENT_TYPE], "image/svg+xml");
        assert!(get(Method::POST, "/").is_none());
        assert!(get(Method::GET, "/matchgrid.v1.SwapPuzzle/Shuffle").is_none());
        assert!(INDEX_HTML.contains("playground.js"));
    }
}
