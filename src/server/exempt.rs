//! [`ExemptLayer`]: routes some gRPC paths around a layer stack. Health checks use it to skip
//! the concurrency limit and load shedding, so an overloaded pod still answers its probes
//! truthfully instead of having them shed (and being restarted for it).

use std::task::{Context, Poll};

use futures_util::TryFutureExt;
use futures_util::future::{Either, MapErr};
use tower::util::Oneshot;
use tower::{BoxError, Layer, Service, ServiceExt};

/// Wraps a service in `layer`, except for requests whose path starts with one of `prefixes`,
/// which go straight to the inner service.
#[derive(Clone, Debug)]
pub struct ExemptLayer<L> {
    layer: L,
    prefixes: &'static [&'static str],
}

impl<L> ExemptLayer<L> {
    /// `layer` for every path but those starting with one of `prefixes`.
    pub fn new(layer: L, prefixes: &'static [&'static str]) -> Self {
        Self { layer, prefixes }
    }
}

impl<S: Clone, L: Layer<S>> Layer<S> for ExemptLayer<L> {
    type Service = Exempt<L::Service, S>;

    fn layer(&self, inner: S) -> Self::Service {
        Exempt {
            guarded: self.layer.layer(inner.clone()),
            direct: inner,
            prefixes: self.prefixes,
        }
    }
}

/// See [`ExemptLayer`].
#[derive(Clone, Debug)]
pub struct Exempt<G, D> {
    guarded: G,
    direct: D,
    prefixes: &'static [&'static str],
}

type ToBoxError<E> = fn(E) -> BoxError;

impl<G, D, B, R> Service<http::Request<B>> for Exempt<G, D>
where
    G: Service<http::Request<B>, Response = R> + Clone,
    G::Error: Into<BoxError>,
    D: Service<http::Request<B>, Response = R>,
    D::Error: Into<BoxError>,
{
    type Response = R;
    type Error = BoxError;
    type Future = Either<
        MapErr<D::Future, ToBoxError<D::Error>>,
        MapErr<Oneshot<G, http::Request<B>>, ToBoxError<G::Error>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // The guarded stack is readied per request in `call` (a clone, via oneshot), so an
        // exempt request never holds a slot of the concurrency limit.
        self.direct.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let path = request.uri().path();
        if self.prefixes.iter().any(|prefix| path.starts_with(prefix)) {
            Either::Left(
                self.direct
                    .call(request)
                    .map_err(Into::into as ToBoxError<D::Error>),
            )
        } else {
            Either::Right(
                self.guarded
                    .clone()
                    .oneshot(request)
                    .map_err(Into::into as ToBoxError<G::Error>),
            )
        }
    }
}
