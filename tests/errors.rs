//! Error contract (docs/rules.md section 4) over gRPC: malformed requests are INVALID_ARGUMENT with a
//! google.rpc.BadRequest naming the field; inapplicable ones are FAILED_PRECONDITION with a
//! google.rpc.PreconditionFailure naming the cells, verdict or reason; limits are
//! RESOURCE_EXHAUSTED. Every case is sent over one HTTP/2 connection (through a counting TCP
//! proxy), each must be answered (a hang guard fails it otherwise), and afterwards the same
//! connection must still serve a valid request.
mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{
    TestServer, bad_request_fields, board, pos, precondition_subjects, precondition_violations,
    spec_swap_example, swap,
};
use matchgrid::proto::collapse_puzzle_client::CollapsePuzzleClient;
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::{
    Board, CollapseCheckDeadStateRequest, CollapseGenerateBoardRequest, RefillMode,
    ResolveCascadeRequest, ShuffleRequest, SwapCheckDeadStateRequest, SwapGenerateBoardRequest,
    SwapVerdict, TapRequest, ValidateSwapRequest,
};
use tonic::transport::Channel;
use tonic::{Code, Status};

/// Longest a single malformed request may take before it counts as a hang.
const HANG_GUARD: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------------------------
// a TCP proxy that counts connections, so a dropped connection cannot hide behind reconnects
// ---------------------------------------------------------------------------------------------

struct Proxy {
    addr: SocketAddr,
    opened: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
}

async fn start_proxy(target: SocketAddr) -> Proxy {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let opened = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(AtomicUsize::new(0));
    let (o, c) = (opened.clone(), closed.clone());
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            o.fetch_add(1, Ordering::SeqCst);
            let c = c.clone();
            tokio::spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
                c.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    Proxy {
        addr,
        opened,
        closed,
    }
}

/// A counting proxy in front of `server`, and a channel to the server through it.
async fn proxied(server: &TestServer) -> (Proxy, Channel) {
    let proxy = start_proxy(server.addr).await;
    let channel = Channel::from_shared(format!("http://{}", proxy.addr))
        .unwrap()
        .connect()
        .await
        .expect("connect through proxy");
    (proxy, channel)
}

// ---------------------------------------------------------------------------------------------
// cases
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Call {
    SwapGenerate(SwapGenerateBoardRequest),
    Validate(ValidateSwapRequest),
    Resolve(ResolveCascadeRequest),
    SwapDead(SwapCheckDeadStateRequest),
    Shuffle(ShuffleRequest),
    CollapseGenerate(CollapseGenerateBoardRequest),
    Tap(TapRequest),
    CollapseDead(CollapseCheckDeadStateRequest),
}

#[derive(Clone, Debug)]
enum Expect {
    /// INVALID_ARGUMENT whose BadRequest names exactly this field.
    Invalid(String),
    /// FAILED_PRECONDITION whose PreconditionFailure subjects are exactly these.
    Precondition(Vec<String>),
    /// FAILED_PRECONDITION with one violation: this subject and this description.
    Verdict(String, String),
    /// RESOURCE_EXHAUSTED whose QuotaFailure names this subject.
    Exhausted(String),
}

struct Case {
    name: String,
    call: Call,
    expect: Expect,
}

fn invalid(name: &str, call: Call, field: &str) -> Case {
    Case {
        name: name.to_owned(),
        call,
        expect: Expect::Invalid(field.to_owned()),
    }
}

fn precondition(name: &str, call: Call, subjects: &[&str]) -> Case {
    Case {
        name: name.to_owned(),
        call,
        expect: Expect::Precondition(subjects.iter().map(|s| (*s).to_owned()).collect()),
    }
}

fn verdict(name: &str, call: Call, subject: &str, description: &str) -> Case {
    Case {
        name: name.to_owned(),
        call,
        expect: Expect::Verdict(subject.to_owned(), description.to_owned()),
    }
}

fn raw(width: u32, height: u32, cells: Vec<u32>) -> Option<Board> {
    Some(Board {
        width,
        height,
        cells,
        ..Default::default()
    })
}

fn validate(b: Option<Board>) -> Call {
    Call::Validate(ValidateSwapRequest {
        board: b,
        swap: Some(swap((0, 0), (0, 1))),
    })
}

/// ValidateSwap of `b` with `swap` as given (possibly missing, or missing one end).
fn validate_with(b: &Board, swap: Option<matchgrid::proto::Swap>) -> Call {
    Call::Validate(ValidateSwapRequest {
        board: Some(b.clone()),
        swap,
    })
}

/// A swap without its `a` end.
fn swap_without_a() -> Option<matchgrid::proto::Swap> {
    Some(matchgrid::proto::Swap {
        a: None,
        b: Some(pos(0, 0)),
    })
}

/// A swap without its `b` end.
fn swap_without_b() -> Option<matchgrid::proto::Swap> {
    Some(matchgrid::proto::Swap {
        a: Some(pos(0, 0)),
        b: None,
    })
}

fn swap_dead(b: Option<Board>) -> Call {
    Call::SwapDead(SwapCheckDeadStateRequest { board: b })
}

fn resolve_none(b: Option<Board>, s: Option<((u32, u32), (u32, u32))>) -> ResolveCascadeRequest {
    ResolveCascadeRequest {
        board: b,
        swap: s.map(|(a, bb)| swap(a, bb)),
        refill: RefillMode::None as i32,
        ..Default::default()
    }
}

fn tap(b: Option<Board>, at: (u32, u32)) -> TapRequest {
    TapRequest {
        board: b,
        position: Some(pos(at.0, at.1)),
        ..Default::default()
    }
}

fn swap_generate(width: u32, height: u32, colors: u32, min_moves: Option<u32>) -> Call {
    Call::SwapGenerate(SwapGenerateBoardRequest {
        width,
        height,
        colors,
        seed: 1,
        min_moves,
        ..Default::default()
    })
}

fn collapse_generate(width: u32, height: u32, colors: u32, min_group: u32) -> Call {
    Call::CollapseGenerate(CollapseGenerateBoardRequest {
        width,
        height,
        colors,
        seed: 1,
        min_group,
        clearable: false,
        ..Default::default()
    })
}

/// A malformed board in each way docs/rules.md section 1 names, with the field the error must name.
fn malformed_boards() -> Vec<(&'static str, Option<Board>, String)> {
    vec![
        ("width 0", raw(0, 3, vec![]), "board.width".to_owned()),
        (
            "width 65",
            raw(65, 1, vec![1; 65]),
            "board.width".to_owned(),
        ),
        (
            "width u32::MAX",
            raw(u32::MAX, u32::MAX, vec![]),
            "board.width".to_owned(),
        ),
        ("height 0", raw(3, 0, vec![]), "board.height".to_owned()),
        (
            "height 65",
            raw(1, 65, vec![1; 65]),
            "board.height".to_owned(),
        ),
        (
            "height u32::MAX",
            raw(2, u32::MAX, vec![1, 2]),
            "board.height".to_owned(),
        ),
        (
            "too few cells",
            raw(3, 2, vec![1, 1, 2, 2, 2]),
            "board.cells".to_owned(),
        ),
        (
            "too many cells",
            raw(3, 2, vec![1, 1, 2, 2, 2, 1, 3]),
            "board.cells".to_owned(),
        ),
        ("no cells", raw(64, 64, vec![]), "board.cells".to_owned()),
        (
            "colour 17",
            raw(3, 2, vec![1, 1, 2, 2, 17, 1]),
            "board.cells[4]".to_owned(),
        ),
        (
            "colour u32::MAX",
            raw(3, 2, vec![u32::MAX, 1, 2, 2, 2, 1]),
            "board.cells[0]".to_owned(),
        ),
        ("missing board", None, "board".to_owned()),
    ]
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();

    // Malformed boards in every RPC that takes one.
    for (what, b, field) in malformed_boards() {
        cases.push(invalid(
            &format!("ValidateSwap {what}"),
            validate(b.clone()),
            &field,
        ));
        cases.push(invalid(
            &format!("Swap.CheckDeadState {what}"),
            swap_dead(b.clone()),
            &field,
        ));
        cases.push(invalid(
            &format!("ResolveCascade {what}"),
            Call::Resolve(resolve_none(b.clone(), None)),
            &field,
        ));
        cases.push(invalid(
            &format!("ResolveCascade+swap {what}"),
            Call::Resolve(resolve_none(b.clone(), Some(((0, 0), (0, 1))))),
            &field,
        ));
        cases.push(invalid(
            &format!("Shuffle {what}"),
            Call::Shuffle(ShuffleRequest {
                board: b.clone(),
                seed: 1,
            }),
            &field,
        ));
        cases.push(invalid(
            &format!("Tap {what}"),
            Call::Tap(tap(b.clone(), (0, 0))),
            &field,
        ));
        cases.push(invalid(
            &format!("Collapse.CheckDeadState {what}"),
            Call::CollapseDead(CollapseCheckDeadStateRequest {
                board: b,
                ..Default::default()
            }),
            &field,
        ));
    }

    let good = board("RRG/GGR");
    // Missing messages.
    for (field, swap) in [
        ("swap", None),
        ("swap.a", swap_without_a()),
        ("swap.b", swap_without_b()),
    ] {
        cases.push(invalid(
            &format!("ValidateSwap missing {field}"),
            validate_with(&good, swap),
            field,
        ));
    }
    cases.push(invalid(
        "Tap missing position",
        Call::Tap(TapRequest {
            board: Some(board("AA/BB")),
            position: None,
            ..Default::default()
        }),
        "position",
    ));

    cases.push(invalid(
        "ResolveCascade missing swap.a",
        Call::Resolve(ResolveCascadeRequest {
            swap: swap_without_a(),
            ..resolve_none(Some(good.clone()), None)
        }),
        "swap.a",
    ));

    // Off-board positions in RPCs that apply a move.
    for (a, b, field) in [
        ((2, 2), (1, 2), "swap.a"),
        ((0, 3), (0, 2), "swap.a"),
        ((u32::MAX, 0), (0, 0), "swap.a"),
        ((1, 2), (2, 2), "swap.b"),
        ((0, 2), (0, 3), "swap.b"),
        ((0, 0), (u32::MAX, u32::MAX), "swap.b"),
    ] {
        cases.push(invalid(
            &format!("ResolveCascade off-board {a:?}-{b:?}"),
            Call::Resolve(resolve_none(Some(good.clone()), Some((a, b)))),
            field,
        ));
    }
    for at in [(2, 0), (0, 2), (u32::MAX, 0), (0, u32::MAX)] {
        cases.push(invalid(
            &format!("Tap off-board {at:?}"),
            Call::Tap(tap(Some(board("AA/BB")), at)),
            "position",
        ));
    }

    // Unknown enum values.
    for refill in [99, -1, 3] {
        cases.push(invalid(
            &format!("ResolveCascade refill {refill}"),
            Call::Resolve(ResolveCascadeRequest {
                refill,
                colors: 3,
                ..resolve_none(Some(good.clone()), None)
            }),
            "refill",
        ));
    }
    for scoring in [99, -1, 5] {
        cases.push(invalid(
            &format!("Tap scoring {scoring}"),
            Call::Tap(TapRequest {
                scoring,
                ..tap(Some(board("AA/BB")), (0, 0))
            }),
            "scoring",
        ));
        cases.push(invalid(
            &format!("Collapse.CheckDeadState scoring {scoring}"),
            Call::CollapseDead(CollapseCheckDeadStateRequest {
                board: Some(board("AA/BB")),
                scoring,
                min_group: 0,
            }),
            "scoring",
        ));
    }

    // ResolveCascade options.
    for colors in [0, 17, u32::MAX] {
        cases.push(invalid(
            &format!("ResolveCascade RANDOM colors {colors}"),
            Call::Resolve(ResolveCascadeRequest {
                board: Some(good.clone()),
                colors,
                refill: RefillMode::Random as i32,
                ..Default::default()
            }),
            "colors",
        ));
    }
    for max_steps in [1_001, 10_000, u32::MAX] {
        cases.push(invalid(
            &format!("ResolveCascade max_steps {max_steps}"),
            Call::Resolve(ResolveCascadeRequest {
                max_steps,
                ..resolve_none(Some(good.clone()), None)
            }),
            "max_steps",
        ));
    }

    // Swap generation with impossible parameters.
    for (w, h, colors, min_moves, field) in [
        (9, 9, 1, Some(1), "colors"),
        (9, 9, 0, Some(1), "colors"),
        (9, 9, 17, Some(1), "colors"),
        (9, 9, 1, Some(0), "colors"),
        (0, 9, 6, Some(1), "width"),
        (65, 9, 6, Some(1), "width"),
        (9, 0, 6, Some(1), "height"),
        (9, 65, 6, Some(1), "height"),
        (u32::MAX, u32::MAX, 6, Some(1), "width"),
        (1, 3, 6, Some(1), "min_moves"),
        (3, 1, 6, None, "min_moves"),
        (2, 2, 6, Some(1), "min_moves"),
        (2, 2, 16, None, "min_moves"),
        (1, 1, 6, Some(1), "min_moves"),
        (9, 9, 6, Some(145), "min_moves"),
        (9, 9, 6, Some(u32::MAX), "min_moves"),
        (64, 64, 16, Some(8065), "min_moves"),
        (3, 3, 6, Some(13), "min_moves"),
    ] {
        cases.push(invalid(
            &format!("Swap.GenerateBoard {w}x{h}/{colors}/min {min_moves:?}"),
            swap_generate(w, h, colors, min_moves),
            field,
        ));
    }

    // Collapse generation and min_group.
    for (w, h, colors, min_group, field) in [
        (10, 10, 5, 1, "min_group"),
        (10, 10, 5, 4097, "min_group"),
        (10, 10, 5, u32::MAX, "min_group"),
        (3, 3, 5, 10, "min_group"),
        (1, 1, 5, 0, "min_group"),
        (10, 10, 0, 0, "colors"),
        (10, 10, 17, 0, "colors"),
        (0, 10, 5, 0, "width"),
        (10, 65, 5, 0, "height"),
    ] {
        cases.push(invalid(
            &format!("Collapse.GenerateBoard {w}x{h}/{colors}/min {min_group}"),
            collapse_generate(w, h, colors, min_group),
            field,
        ));
    }
    for min_group in [1, 4097, u32::MAX] {
        cases.push(invalid(
            &format!("Tap min_group {min_group}"),
            Call::Tap(TapRequest {
                min_group,
                ..tap(Some(board("AA/BB")), (0, 0))
            }),
            "min_group",
        ));
        cases.push(invalid(
            &format!("Collapse.CheckDeadState min_group {min_group}"),
            Call::CollapseDead(CollapseCheckDeadStateRequest {
                board: Some(board("AA/BB")),
                scoring: 0,
                min_group,
            }),
            "min_group",
        ));
    }

    // Unstable boards where a stable one is required: empty cells first, then matched cells,
    // each in row-major order.
    let unstable: [(&str, &[&str]); 5] = [
        (
            "RRR/GBG",
            &[
                "board.cells[0][0]",
                "board.cells[0][1]",
                "board.cells[0][2]",
            ],
        ),
        (
            "RGB/RBG/RGB",
            &[
                "board.cells[0][0]",
                "board.cells[1][0]",
                "board.cells[2][0]",
            ],
        ),
        ("R.G/GBR", &["board.cells[0][1]"]),
        (
            "RRR./GBGB",
            &[
                "board.cells[0][3]",
                "board.cells[0][0]",
                "board.cells[0][1]",
                "board.cells[0][2]",
            ],
        ),
        (
            "../..",
            &[
                "board.cells[0][0]",
                "board.cells[0][1]",
                "board.cells[1][0]",
                "board.cells[1][1]",
            ],
        ),
    ];
    for (t, subjects) in unstable {
        cases.push(precondition(
            &format!("ValidateSwap unstable {t}"),
            validate(Some(board(t))),
            subjects,
        ));
        cases.push(precondition(
            &format!("Swap.CheckDeadState unstable {t}"),
            swap_dead(Some(board(t))),
            subjects,
        ));
        cases.push(precondition(
            &format!("ResolveCascade+swap unstable {t}"),
            Call::Resolve(resolve_none(Some(board(t)), Some(((1, 0), (1, 1))))),
            subjects,
        ));
    }

    // Illegal swaps in ResolveCascade name the verdict.
    for (a, b, name) in [
        ((0, 0), (1, 1), SwapVerdict::NotAdjacent),
        ((0, 0), (0, 0), SwapVerdict::NotAdjacent),
        ((0, 2), (1, 0), SwapVerdict::NotAdjacent),
        ((0, 0), (0, 2), SwapVerdict::NotAdjacent),
        ((0, 0), (0, 1), SwapVerdict::NoMatch),
        ((0, 0), (1, 0), SwapVerdict::NoMatch),
    ] {
        cases.push(verdict(
            &format!("ResolveCascade illegal swap {a:?}-{b:?}"),
            Call::Resolve(resolve_none(Some(good.clone()), Some((a, b)))),
            "swap",
            name.as_str_name(),
        ));
    }

    // Shuffles that cannot exist, and shuffles of boards with holes.
    for t in [
        "RG/GR",
        "RRRR/RRRR/RRRR",
        "RRG",
        "R/G/R",
        "R",
        "RRGGBB",
        "RGBYPOCWK",
    ] {
        cases.push(precondition(
            &format!("Shuffle impossible {t}"),
            Call::Shuffle(ShuffleRequest {
                board: Some(board(t)),
                seed: 3,
            }),
            &["board"],
        ));
    }
    cases.push(precondition(
        "Shuffle with holes",
        Call::Shuffle(ShuffleRequest {
            board: Some(board("R.G/GB.")),
            seed: 3,
        }),
        &["board.cells[0][1]", "board.cells[1][2]"],
    ));

    // Illegal taps and unsettled collapse boards.
    cases.push(verdict(
        "Tap empty cell",
        Call::Tap(tap(Some(board("A./A.")), (0, 1))),
        "position",
        "EMPTY_CELL",
    ));
    cases.push(verdict(
        "Tap single tile",
        Call::Tap(tap(Some(board("AB/AC")), (0, 1))),
        "position",
        "GROUP_TOO_SMALL",
    ));
    cases.push(precondition(
        "Tap floating tile",
        Call::Tap(tap(Some(board("A./.B")), (1, 1))),
        &["board.cells[0][0]"],
    ));
    cases.push(precondition(
        "Collapse.CheckDeadState gap column",
        Call::CollapseDead(CollapseCheckDeadStateRequest {
            board: Some(board("A.B/A.B")),
            ..Default::default()
        }),
        &["board.column[1]"],
    ));

    // Cascades over max_steps.
    cases.push(Case {
        name: "ResolveCascade one colour RANDOM refill (default max_steps)".to_owned(),
        call: Call::Resolve(ResolveCascadeRequest {
            board: Some(board("RRR/GBG/BGB")),
            colors: 1,
            seed: 4,
            refill: RefillMode::Random as i32,
            ..Default::default()
        }),
        expect: Expect::Exhausted("max_steps".to_owned()),
    });
    cases.push(Case {
        name: "ResolveCascade one colour RANDOM refill with a swap, max_steps 1000".to_owned(),
        call: Call::Resolve(ResolveCascadeRequest {
            board: Some(good.clone()),
            swap: Some(swap((0, 2), (1, 2))),
            colors: 1,
            seed: 4,
            refill: RefillMode::Random as i32,
            max_steps: 1_000,
            ..Default::default()
        }),
        expect: Expect::Exhausted("max_steps".to_owned()),
    });
    cases.push(Case {
        name: "ResolveCascade needing 2 steps with max_steps 1".to_owned(),
        call: Call::Resolve(ResolveCascadeRequest {
            max_steps: 1,
            ..resolve_none(Some(board("GRYY/YRRG/BGYY/BGGY")), Some(((0, 3), (1, 3))))
        }),
        expect: Expect::Exhausted("max_steps".to_owned()),
    });

    cases
}

/// Requests that are malformed *and* carry an unstable or unsettled board. docs/rules.md section 4 keeps
/// FAILED_PRECONDITION for well-formed requests, so the malformation must win: INVALID_ARGUMENT
/// naming the field.
fn precedence_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let unstable = board("RRR/GBG");
    let unsettled = board("A./.A");
    for (field, swap) in [("swap", None), ("swap.a", swap_without_a())] {
        cases.push(invalid(
            &format!("ValidateSwap unstable board and missing {field}"),
            validate_with(&unstable, swap),
            field,
        ));
    }
    cases.push(invalid(
        "ResolveCascade unstable board and off-board swap",
        Call::Resolve(resolve_none(Some(unstable.clone()), Some(((5, 5), (5, 6))))),
        "swap.a",
    ));
    cases.push(invalid(
        "ResolveCascade unstable board and missing swap.b",
        Call::Resolve(ResolveCascadeRequest {
            swap: swap_without_b(),
            ..resolve_none(Some(unstable.clone()), None)
        }),
        "swap.b",
    ));
    cases.push(invalid(
        "ResolveCascade unstable board and refill 99",
        Call::Resolve(ResolveCascadeRequest {
            refill: 99,
            ..resolve_none(Some(unstable.clone()), Some(((1, 0), (1, 1))))
        }),
        "refill",
    ));
    cases.push(invalid(
        "Tap unsettled board and off-board position",
        Call::Tap(tap(Some(unsettled.clone()), (7, 7))),
        "position",
    ));
    cases.push(invalid(
        "Tap unsettled board and missing position",
        Call::Tap(TapRequest {
            board: Some(unsettled.clone()),
            position: None,
            ..Default::default()
        }),
        "position",
    ));
    cases.push(invalid(
        "Tap unsettled board and scoring 99",
        Call::Tap(TapRequest {
            scoring: 99,
            ..tap(Some(unsettled.clone()), (1, 1))
        }),
        "scoring",
    ));
    cases.push(invalid(
        "Collapse.CheckDeadState unsettled board and min_group 1",
        Call::CollapseDead(CollapseCheckDeadStateRequest {
            board: Some(unsettled),
            scoring: 0,
            min_group: 1,
        }),
        "min_group",
    ));
    cases
}

// ---------------------------------------------------------------------------------------------
// running the cases
// ---------------------------------------------------------------------------------------------

async fn send(channel: &Channel, call: Call) -> Result<(), Status> {
    let mut swap_client = SwapPuzzleClient::new(channel.clone());
    let mut collapse_client = CollapsePuzzleClient::new(channel.clone());
    let future = async {
        match call {
            Call::SwapGenerate(r) => swap_client.generate_board(r).await.map(|_| ()),
            Call::Validate(r) => swap_client.validate_swap(r).await.map(|_| ()),
            Call::Resolve(r) => swap_client.resolve_cascade(r).await.map(|_| ()),
            Call::SwapDead(r) => swap_client.check_dead_state(r).await.map(|_| ()),
            Call::Shuffle(r) => swap_client.shuffle(r).await.map(|_| ()),
            Call::CollapseGenerate(r) => collapse_client.generate_board(r).await.map(|_| ()),
            Call::Tap(r) => collapse_client.tap(r).await.map(|_| ()),
            Call::CollapseDead(r) => collapse_client.check_dead_state(r).await.map(|_| ()),
        }
    };
    match tokio::time::timeout(HANG_GUARD, future).await {
        Ok(result) => result,
        Err(_) => Err(Status::deadline_exceeded(format!(
            "no answer within the {HANG_GUARD:?} hang guard"
        ))),
    }
}

/// The mismatch between a case's expectation and the answer, if any.
fn judge(case: &Case, result: Result<(), Status>) -> Option<String> {
    let status = match result {
        Ok(()) => {
            return Some(format!(
                "{}: succeeded, expected {:?}",
                case.name, case.expect
            ));
        }
        Err(status) => status,
    };
    let got = match &case.expect {
        Expect::Invalid(field) => {
            let fields = bad_request_fields(&status);
            (status.code() == Code::InvalidArgument && fields == [field.clone()])
                .then_some(())
                .ok_or(format!("fields {fields:?}"))
        }
        Expect::Precondition(subjects) => {
            let got = precondition_subjects(&status);
            (status.code() == Code::FailedPrecondition && &got == subjects)
                .then_some(())
                .ok_or(format!("subjects {got:?}"))
        }
        Expect::Verdict(subject, description) => {
            let got = precondition_violations(&status);
            (status.code() == Code::FailedPrecondition
                && got == [(subject.clone(), description.clone())])
            .then_some(())
            .ok_or(format!("violations {got:?}"))
        }
        Expect::Exhausted(subject) => {
            use tonic_types::StatusExt;
            let got: Vec<String> = status
                .get_details_quota_failure()
                .map(|q| q.violations.into_iter().map(|v| v.subject).collect())
                .unwrap_or_default();
            (status.code() == Code::ResourceExhausted && got == [subject.clone()])
                .then_some(())
                .ok_or(format!("quota subjects {got:?}"))
        }
    };
    got.err().map(|details| {
        format!(
            "{}: expected {:?}, got {:?} {:?} ({details})",
            case.name,
            case.expect,
            status.code(),
            status.message()
        )
    })
}

/// Sends the cases one after another on `channel`; returns the failures `judge` finds.
async fn send_in_turn(channel: &Channel, cases: &[Case]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases {
        let result = send(channel, case.call.clone()).await;
        failures.extend(judge(case, result));
    }
    failures
}

/// Fails listing every failed case, when there are any.
fn assert_no_failures(failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        total,
        failures.join("\n")
    );
}

/// A valid request that must still be served on the same connection: answered, and the proxy
/// saw no second connection.
async fn valid_request_still_served(channel: &Channel, proxy: &Proxy) {
    let mut client = SwapPuzzleClient::new(channel.clone());
    let response = client
        .validate_swap(spec_swap_example())
        .await
        .expect("valid request after the malformed ones")
        .into_inner();
    assert_eq!(response.verdict(), SwapVerdict::Ok);
    let mut collapse = CollapsePuzzleClient::new(channel.clone());
    let response = collapse
        .tap(tap(Some(board("ABBC/ABBC")), (0, 1)))
        .await
        .expect("valid tap after the malformed ones")
        .into_inner();
    assert_eq!(response.move_score, 80);
    assert_eq!(proxy.opened.load(Ordering::SeqCst), 1, "client reconnected");
    assert_eq!(
        proxy.closed.load(Ordering::SeqCst),
        0,
        "a connection closed"
    );
}

#[tokio::test]
async fn every_malformed_request_gets_its_code_and_field_on_one_connection() {
    let server = TestServer::start(&[]);
    let (proxy, channel) = proxied(&server).await;
    let cases = cases();
    assert!(cases.len() > 150, "{} cases", cases.len());
    let failures = send_in_turn(&channel, &cases).await;
    valid_request_still_served(&channel, &proxy).await;
    assert_no_failures(&failures, cases.len());
}

#[tokio::test]
async fn malformed_requests_in_parallel_on_one_connection() {
    let server = TestServer::start(&[]);
    let (proxy, channel) = proxied(&server).await;
    let cases = cases();
    let results =
        futures_util::future::join_all(cases.iter().map(|case| send(&channel, case.call.clone())))
            .await;
    let failures: Vec<String> = cases
        .iter()
        .zip(results)
        .filter_map(|(case, result)| judge(case, result))
        .collect();
    valid_request_still_served(&channel, &proxy).await;
    assert_no_failures(&failures, cases.len());
}

#[tokio::test]
async fn malformed_fields_win_over_an_unstable_or_unsettled_board() {
    let server = TestServer::start(&[]);
    let (proxy, channel) = proxied(&server).await;
    let cases = precedence_cases();
    let failures = send_in_turn(&channel, &cases).await;
    valid_request_still_served(&channel, &proxy).await;
    assert_no_failures(&failures, cases.len());
}

#[tokio::test]
async fn max_steps_bounds_the_cascade_exactly() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    // The rules example needs exactly 2 steps: max_steps 2 is enough, 1 is not.
    let request = ResolveCascadeRequest {
        max_steps: 2,
        ..resolve_none(Some(board("GRYY/YRRG/BGYY/BGGY")), Some(((0, 3), (1, 3))))
    };
    let response = client.resolve_cascade(request.clone()).await.unwrap();
    assert_eq!(response.into_inner().steps.len(), 2);
    let status = client
        .resolve_cascade(ResolveCascadeRequest {
            max_steps: 1,
            ..request
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    // One colour refill never settles: the limit given is the limit hit.
    let status = client
        .resolve_cascade(ResolveCascadeRequest {
            board: Some(board("RRR/GBG/BGB")),
            colors: 1,
            refill: RefillMode::Random as i32,
            max_steps: 50,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert!(status.message().contains("50"), "{}", status.message());
    // Unset max_steps means 200 (swap.proto).
    let status = client
        .resolve_cascade(ResolveCascadeRequest {
            board: Some(board("RRR/GBG/BGB")),
            colors: 1,
            refill: RefillMode::Random as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert!(status.message().contains("200"), "{}", status.message());
}
