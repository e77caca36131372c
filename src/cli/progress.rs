//! Progress bars of long calls on stderr (a terminal only; indicatif draws nothing
//! elsewhere): against time for Solve, against the games played for Simulate.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use tokio_stream::StreamExt as _;
use tonic::transport::Channel;

use crate::proto::{self, swap_puzzle_client::SwapPuzzleClient};

/// Awaits `call`, drawing a progress bar on stderr (a terminal only) once it has run for
/// 300 ms: against `max_millis` when set, else a spinner with the elapsed time; `label` names
/// the work (`solving`).
pub(super) async fn with_progress<T>(
    label: &str,
    max_millis: u32,
    call: impl std::future::Future<Output = T>,
) -> T {
    use std::time::Instant;
    let started = Instant::now();
    tokio::pin!(call);
    let mut bar: Option<ProgressBar> = None;
    let mut ticks = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            result = &mut call => {
                if let Some(bar) = bar {
                    bar.finish_and_clear();
                }
                return result;
            }
            _ = ticks.tick() => {
                let elapsed = started.elapsed();
                if elapsed < Duration::from_millis(300) {
                    continue;
                }
                let bar = bar.get_or_insert_with(|| {
                    if max_millis > 0 {
                        ProgressBar::new(u64::from(max_millis)).with_style(
                            ProgressStyle::with_template(
                                &format!("{label} {{bar:40}} {{elapsed_precise}} of {{msg}}"),
                            )
                            .unwrap_or_else(|_| ProgressStyle::default_bar())
                            .progress_chars("=> "),
                        )
                        .with_message(format!("{:.1} s", f64::from(max_millis) / 1000.0))
                    } else {
                        ProgressBar::new_spinner().with_style(
                            ProgressStyle::with_template(&format!(
                                "{{spinner}} {label} {{elapsed_precise}}"
                            ))
                                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                        )
                    }
                });
                bar.set_position((elapsed.as_millis() as u64).min(u64::from(max_millis)));
                bar.tick();
            }
        }
    }
}

/// Simulate through SimulateWithProgress, drawing a bar of the games played (`N/M games`) on
/// stderr once the server first reports, and answering what Simulate would: its response, or
/// the status the stream ended with.
pub(super) async fn simulate_with_progress(
    client: &mut SwapPuzzleClient<Channel>,
    simulation: proto::SwapSimulateRequest,
) -> Result<tonic::Response<proto::SwapSimulateResponse>, tonic::Status> {
    let request = proto::SimulateWithProgressRequest {
        simulation: Some(simulation),
    };
    let mut stream = client.simulate_with_progress(request).await?.into_inner();
    let mut bar: Option<ProgressBar> = None;
    let answer = loop {
        let message = match stream.next().await {
            Some(Ok(message)) => message,
            Some(Err(status)) => break Err(status),
            None => {
                break Err(tonic::Status::unknown(
                    "SimulateWithProgress ended without an answer",
                ));
            }
        };
        if let Some(result) = message.result {
            break Ok(tonic::Response::new(result));
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::new(u64::from(message.games)).with_style(
                ProgressStyle::with_template(
                    "simulating {bar:40} {pos}/{len} games {elapsed_precise}, about {eta} left",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        bar.set_position(u64::from(message.games_done));
    };
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    answer
}
