//! [`FrontLayer`]: the first layer every request meets, which sends it down one of two paths.
//!
//! - **gRPC** (the hot path): an HTTP/2 `POST` whose content type is not gRPC-Web goes straight
//!   to the call layer ([`super::observe`]), which every RPC passes.
//! - **Web**: everything else (gRPC-Web from browsers, any HTTP/1.1 request, the playground's
//!   pages, CORS preflights) passes the web layers first: the playground's pages
//!   ([`super::playground::PageLayer`]), CORS when `--cors-allow-origin` names origins, and
//!   tonic-web, which turns gRPC-Web into gRPC for the same call layer.
//!
//! A gRPC call answered on the web path would get the same answer: the page layer answers only
//! `GET` and `HEAD`, and tonic-web passes HTTP/2 requests that are not gRPC-Web through
//! untouched. With CORS configured every request takes the web path, so every response still
//! carries the CORS headers (`Vary` included) as before.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Method, Version};
use http_body::{Body as HttpBody, Frame, SizeHint};
use tonic::Status;
use tonic::body::Body;
use tower::{BoxError, Layer, Service, ServiceExt};
use tower_http::cors::CorsLayer;

use super::call_body::CallBody;
use super::call_future::CallFuture;
use super::observe::{Observe, ObserveLayer};
use super::playground::PageLayer;

/// The layer: the call layer, and the web layers in front of it for what is not plain gRPC.
#[derive(Clone, Debug)]
pub struct FrontLayer {
    call: ObserveLayer,
    web: Arc<WebLayers>,
}

/// What the web path adds in front of the call layer.
#[derive(Clone, Debug)]
struct WebLayers {
    page: PageLayer,
    cors: Option<CorsLayer>,
}

impl FrontLayer {
    /// Routes plain gRPC to `call` and the rest through the playground's `page` layer, `cors`
    /// (if any) and tonic-web to `call`.
    pub fn new(call: ObserveLayer, page: PageLayer, cors: Option<CorsLayer>) -> Self {
        Self {
            call,
            web: Arc::new(WebLayers { page, cors }),
        }
    }
}

impl<S> Layer<S> for FrontLayer {
    type Service = Front<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Front {
            call: self.call.layer(inner),
            web: Arc::clone(&self.web),
        }
    }
}

/// See [`FrontLayer`].
#[derive(Clone, Debug)]
pub struct Front<S> {
    call: Observe<S>,
    web: Arc<WebLayers>,
}

/// True for a request the web layers would pass through untouched: an HTTP/2 `POST` that is
/// not gRPC-Web (tonic-web's four content types), when no CORS layer is configured.
fn plain_grpc<B>(request: &http::Request<B>, cors: bool) -> bool {
    if cors || request.version() != Version::HTTP_2 || request.method() != Method::POST {
        return false;
    }
    !matches!(
        request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(http::HeaderValue::as_bytes),
        Some(
            b"application/grpc-web"
                | b"application/grpc-web+proto"
                | b"application/grpc-web-text"
                | b"application/grpc-web-text+proto"
        )
    )
}

type WebFuture = Pin<Box<dyn Future<Output = Result<http::Response<Body>, BoxError>> + Send>>;

impl<S> Service<http::Request<Body>> for Front<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Unpin + Send + 'static,
{
    type Response = http::Response<ResponseBody>;
    type Error = BoxError;
    type Future = FrontFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.call.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        if plain_grpc(&request, self.web.cors.is_some()) {
            return FrontFuture::Grpc(self.call.call(request));
        }
        let grpc_web = tonic_web::GrpcWebLayer::new().layer(self.call.clone());
        let web = self
            .web
            .page
            .layer(tower::util::option_layer(self.web.cors.clone()).layer(grpc_web));
        FrontFuture::Web(Box::pin(web.oneshot(request)))
    }
}

/// The response future of [`Front`]: the call layer's own on the gRPC path, a boxed one on the
/// web path.
// The large variant is the hot path: boxing it would cost every gRPC call an allocation.
#[allow(clippy::large_enum_variant)]
pub enum FrontFuture<F> {
    /// The gRPC path.
    Grpc(CallFuture<F, Body>),
    /// The web path.
    Web(WebFuture),
}

impl<F> std::fmt::Debug for FrontFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Grpc(_) => "FrontFuture::Grpc",
            Self::Web(_) => "FrontFuture::Web",
        })
    }
}

impl<F> Future for FrontFuture<F>
where
    F: Future<Output = Result<http::Response<Body>, Infallible>> + Unpin,
{
    type Output = Result<http::Response<ResponseBody>, BoxError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Self::Grpc(future) => Pin::new(future)
                .poll(cx)
                .map_ok(|response| response.map(ResponseBody::Grpc)),
            Self::Web(future) => future
                .as_mut()
                .poll(cx)
                .map_ok(|response| response.map(ResponseBody::Web)),
        }
    }
}

/// The response body of [`Front`].
#[derive(Debug)]
pub enum ResponseBody {
    /// A call's body on the gRPC path.
    Grpc(CallBody<Body>),
    /// A body from the web layers.
    Web(Body),
}

impl HttpBody for ResponseBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        match self.get_mut() {
            Self::Grpc(body) => Pin::new(body).poll_frame(cx),
            Self::Web(body) => Pin::new(body).poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Self::Grpc(body) => body.is_end_stream(),
            Self::Web(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Self::Grpc(body) => body.size_hint(),
            Self::Web(body) => body.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(version: Version, method: Method, content_type: &str) -> http::Request<()> {
        http::Request::builder()
            .version(version)
            .method(method)
            .uri("/matchgrid.v1.SwapPuzzle/ValidateSwap")
            .header(http::header::CONTENT_TYPE, content_type)
            .body(())
            .unwrap()
    }

    #[test]
    fn only_plain_http2_posts_take_the_grpc_path() {
        let grpc = request(Version::HTTP_2, Method::POST, "application/grpc");
        assert!(plain_grpc(&grpc, false));
        assert!(!plain_grpc(&grpc, true), "CORS configured: the web path");
        let proto = request(Version::HTTP_2, Method::POST, "application/grpc+proto");
        assert!(plain_grpc(&proto, false));
        for web in [
            "application/grpc-web",
            "application/grpc-web+proto",
            "application/grpc-web-text",
            "application/grpc-web-text+proto",
        ] {
            assert!(
                !plain_grpc(&request(Version::HTTP_2, Method::POST, web), false),
                "{web}"
            );
        }
        let http1 = request(Version::HTTP_11, Method::POST, "application/grpc");
        assert!(!plain_grpc(&http1, false), "HTTP/1.1: tonic-web answers it");
        let page = request(Version::HTTP_2, Method::GET, "application/grpc");
        assert!(
            !plain_grpc(&page, false),
            "GET: the page layer may answer it"
        );
    }
}
