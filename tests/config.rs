//! `matchgrid serve` configuration against the real binary: every bad value exits non-zero at
//! once with a message naming the value and the setting; settings work from the environment
//! alone (as in a Kubernetes Deployment).
mod common;
mod ops_support;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::free_port;
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use ops_support::{STEP, send_signal, slow_request, within};

/// A bad configuration must be refused well within this.
const QUICK: Duration = Duration::from_secs(10);

/// `matchgrid serve` with no inherited MATCHGRID_* / RUST_LOG variables.
fn serve_command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_matchgrid"));
    command.arg("serve").args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("MATCHGRID_") || key == "RUST_LOG" {
            command.env_remove(key);
        }
    }
    command.envs(env.iter().copied());
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

struct Refusal {
    status: ExitStatus,
    output: String,
    took: Duration,
}

/// Runs `matchgrid serve` expecting it to stop by itself within [`QUICK`]; kills it and
/// panics if it does not (it would then be serving with a bad setting).
fn run_expecting_exit(args: &[&str], env: &[(&str, &str)]) -> Refusal {
    let started = Instant::now();
    let mut child = serve_command(args, env).spawn().expect("spawn matchgrid");
    let readers: Vec<_> = [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ]
    .into_iter()
    .map(|pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut { pipe }, &mut text);
            text
        })
    })
    .collect();
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if started.elapsed() > QUICK {
            let _ = child.kill();
            let _ = child.wait();
            let output: String = readers.into_iter().map(|r| r.join().unwrap()).collect();
            panic!("serve {args:?} env {env:?} still running after {QUICK:?}; output:\n{output}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = started.elapsed();
    let output = readers.into_iter().map(|r| r.join().unwrap()).collect();
    Refusal {
        status,
        output,
        took,
    }
}

fn assert_refused(args: &[&str], env: &[(&str, &str)], needles: &[&str]) {
    let refusal = run_expecting_exit(args, env);
    let context = format!(
        "serve {args:?} env {env:?} -> {} after {:?}:\n{}",
        refusal.status, refusal.took, refusal.output
    );
    assert!(!refusal.status.success(), "exit status: {context}");
    assert!(
        refusal.status.code().is_some(),
        "killed by a signal? {context}"
    );
    for needle in needles {
        assert!(
            refusal.output.contains(needle),
            "message does not name {needle:?}: {context}"
        );
    }
    assert!(!refusal.output.contains("panicked"), "a panic: {context}");
    assert!(
        !refusal.output.contains("matchgrid serving"),
        "it served: {context}"
    );
}

fn loopback() -> String {
    format!("127.0.0.1:{}", free_port())
}

#[test]
fn bad_values_exit_non_zero_quickly_naming_the_value() {
    let (listen, metrics) = (loopback(), loopback());
    let ports = [
        "--listen",
        listen.as_str(),
        "--metrics-listen",
        metrics.as_str(),
    ];
    let with_ports = |extra: &[&'static str]| -> Vec<&str> {
        let mut args: Vec<&str> = ports.to_vec();
        args.extend_from_slice(extra);
        args
    };
    let none: &[(&str, &str)] = &[];

    // Flags.
    assert_refused(
        &["--listen", "nonsense", "--metrics-listen", &metrics],
        none,
        &["nonsense", "--listen"],
    );
    assert_refused(
        &with_ports(&["--concurrency-limit", "0"]),
        none,
        &["'0'", "--concurrency-limit"],
    );
    assert_refused(
        &with_ports(&["--log-format", "xml"]),
        none,
        &["xml", "--log-format"],
    );
    assert_refused(
        &with_ports(&["--max-message-bytes", "100"]),
        none,
        &["100", "--max-message-bytes"],
    );
    assert_refused(
        &with_ports(&["--log-level", "matchgrid=loud"]),
        none,
        &["matchgrid=loud", "--log-level"],
    );
    assert_refused(
        &with_ports(&["--max-connection-age", "5 parsecs"]),
        none,
        &["5 parsecs", "--max-connection-age"],
    );

    // The same checks apply to the environment variables.
    assert_refused(
        &ports,
        &[("MATCHGRID_REQUEST_TIMEOUT", "abc")],
        &["abc", "--request-timeout"],
    );
    assert_refused(
        &ports,
        &[("MATCHGRID_SHUTDOWN_GRACE", "0s")],
        &["0s", "--shutdown-grace", "greater than zero"],
    );
    assert_refused(
        &ports,
        &[("MATCHGRID_WORKER_THREADS", "0")],
        &["'0'", "--worker-threads"],
    );
    assert_refused(
        &["--listen", &listen],
        &[("MATCHGRID_METRICS_LISTEN", "127.0.0.1")],
        &["127.0.0.1", "--metrics-listen"],
    );
    assert_refused(
        &["--metrics-listen", &metrics],
        &[("MATCHGRID_LISTEN", "nonsense:50051")],
        &["nonsense:50051", "--listen"],
    );
    assert_refused(
        &ports,
        &[("MATCHGRID_CONCURRENCY_LIMIT", "70000")],
        &["70000", "--concurrency-limit"],
    );
}

#[test]
fn addresses_in_use_exit_non_zero_naming_the_address() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_addr = taken.local_addr().unwrap().to_string();
    let (free_a, free_b) = (loopback(), loopback());
    assert_refused(
        &["--listen", &taken_addr, "--metrics-listen", &free_a],
        &[],
        &[&taken_addr, "listen"],
    );
    assert_refused(
        &["--listen", &free_b, "--metrics-listen", &taken_addr],
        &[],
        &[&taken_addr, "metrics"],
    );
    drop(taken);
}

/// Lines a child writes to stderr, as they come.
fn stderr_lines(child: &mut std::process::Child) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Configured by environment variables alone: JSON logs name the addresses, and the request
/// timeout from MATCHGRID_REQUEST_TIMEOUT applies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_from_environment_alone_take_effect() {
    let (listen, metrics) = (loopback(), loopback());
    let mut child = serve_command(
        &[],
        &[
            ("MATCHGRID_LISTEN", &listen),
            ("MATCHGRID_METRICS_LISTEN", &metrics),
            ("MATCHGRID_LOG_FORMAT", "json"),
            ("MATCHGRID_LOG_LEVEL", "info"),
            ("MATCHGRID_REQUEST_TIMEOUT", "20ms"),
            ("MATCHGRID_SHUTDOWN_GRACE", "2s"),
            ("MATCHGRID_WORKER_THREADS", "2"),
        ],
    )
    .spawn()
    .expect("spawn matchgrid");
    let lines = stderr_lines(&mut child);
    let guard = KillOnDrop(child);

    let deadline = Instant::now() + STEP;
    let mut seen = Vec::new();
    let serving = loop {
        let left = deadline
            .checked_duration_since(Instant::now())
            .unwrap_or_else(|| panic!("no 'matchgrid serving' line; saw {seen:#?}"));
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no 'matchgrid serving' line; saw {seen:#?}"));
        let json: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| {
            panic!("MATCHGRID_LOG_FORMAT=json wrote a non-JSON line {line:?}: {e}")
        });
        if json["message"] == "matchgrid serving" {
            break json;
        }
        seen.push(line);
    };
    assert_eq!(serving["level"], "INFO", "{serving}");
    assert_eq!(serving["listen"], listen.as_str(), "{serving}");
    assert_eq!(serving["metrics"], metrics.as_str(), "{serving}");
    assert_eq!(serving["workers"], 2, "{serving}");

    let mut client = within(
        "connect",
        STEP,
        SwapPuzzleClient::connect(format!("http://{listen}")),
    )
    .await
    .expect("connect");
    let status = within("slow call", STEP, client.generate_board(slow_request()))
        .await
        .expect_err("slow call");
    assert_eq!(
        status.code(),
        tonic::Code::DeadlineExceeded,
        "MATCHGRID_REQUEST_TIMEOUT=20ms: {status:?}"
    );
    assert!(status.message().contains("20ms"), "{status:?}");

    send_signal(guard.0.id(), "TERM");
    let mut child = guard;
    let exit_deadline = Instant::now() + Duration::from_secs(2) + Duration::from_secs(5);
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            assert!(status.success(), "exit: {status}");
            break;
        }
        assert!(Instant::now() < exit_deadline, "no exit after SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
