//! The command-line client against the real server: `--server` as a global flag, per-step
//! boards only on `--step-boards` (drawn from the events otherwise), and the client's message
//! limit following `--max-message-bytes`.

mod common;

use common::TestServer;

/// `matchgrid ARGS...` with no `MATCHGRID_*` variable but `env`; returns (exit code, stdout,
/// stderr).
fn matchgrid(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    common::run_cli(args, env)
}

/// [`matchgrid`] that must succeed; its stdout.
fn ok(args: &[&str]) -> String {
    let (code, stdout, stderr) = matchgrid(args, &[]);
    assert_eq!(code, Some(0), "matchgrid {args:?}: {stderr}");
    stdout
}

/// A `side`x`side` board of one colour (R) in text form.
fn one_colour(side: usize) -> String {
    vec!["R".repeat(side); side].join("/")
}

/// The lines of a `swap resolve` output that start a step.
fn step_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("step ")).collect()
}

const VALIDATE: [&str; 5] = ["validate", "--board", "RRG/GGR", "--swap", "0,2:1,2"];
const VALIDATE_OUT: &str =
    "verdict: SWAP_VERDICT_OK\ngroup colour R size 3\ngroup colour G size 3\n";

#[test]
fn server_flag_goes_before_or_after_the_subcommand() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let before = [&["--server", url.as_str(), "swap"][..], &VALIDATE].concat();
    let between = [&["swap", "--server", url.as_str()][..], &VALIDATE].concat();
    let after = [&["swap"][..], &VALIDATE, &["--server", url.as_str()]].concat();
    for args in [&before, &between, &after] {
        assert_eq!(ok(args), VALIDATE_OUT, "matchgrid {args:?}");
    }
    // The environment variable, and a flag beating it.
    let (code, stdout, stderr) = matchgrid(
        &[&["swap"][..], &VALIDATE].concat(),
        &[("MATCHGRID_SERVER", &url)],
    );
    assert_eq!((code, stdout.as_str()), (Some(0), VALIDATE_OUT), "{stderr}");
    let (code, stdout, stderr) = matchgrid(&before, &[("MATCHGRID_SERVER", "http://127.0.0.1:1")]);
    assert_eq!((code, stdout.as_str()), (Some(0), VALIDATE_OUT), "{stderr}");
    // The collapse family too.
    let tap = ok(&[
        "--server",
        &url,
        "collapse",
        "tap",
        "--board",
        "ABBC/ABBC",
        "--at",
        "0,1",
    ]);
    assert!(tap.contains("after (AC../AC..)"), "{tap}");
    assert!(tap.contains("move score 80, tiles left 4"), "{tap}");

    // serve has no use for it: refused in one line (exit 2), before or after.
    for args in [
        &["--server", url.as_str(), "serve"][..],
        &["serve", "--server", url.as_str()][..],
    ] {
        let (code, stdout, stderr) = matchgrid(args, &[]);
        assert_eq!(code, Some(2), "matchgrid {args:?}: {stdout}{stderr}");
        assert_eq!(
            stderr,
            "matchgrid: --server is an option of the client commands (swap, collapse, level); serve \
             listens on --listen\n"
        );
    }
}

#[test]
fn resolve_draws_the_steps_from_the_events_unless_step_boards_are_asked_for() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let generated = ok(&[
        "--server", &url, "swap", "generate", "--width", "9", "--height", "9", "--colors", "5",
        "--seed", "11",
    ]);
    let board9 = generated
        .lines()
        .find_map(|l| l.strip_prefix("text: "))
        .expect("text: line")
        .to_owned();
    let dead = ok(&["--server", &url, "swap", "dead", "--board", &board9]);
    let swap9 = dead
        .lines()
        .find_map(|l| l.strip_prefix("valid swaps ("))
        .and_then(|l| l.split_whitespace().last())
        .expect("a valid swap")
        .to_owned();
    let big = one_colour(64);
    let cases: Vec<Vec<&str>> = vec![
        // README's tour: NONE refill, two steps, falls into cells other tiles leave.
        vec![
            "--board",
            "GRYY/YRRG/BGYY/BGGY",
            "--swap",
            "0,3:1,3",
            "--refill",
            "none",
        ],
        // A generated board, a valid swap, random refill.
        vec![
            "--board", &board9, "--swap", &swap9, "--colors", "5", "--seed", "3",
        ],
        // Holes and no swap: a settling step first.
        vec![
            "--board",
            "RG.B/G.BR/BRGB/GBRG",
            "--colors",
            "4",
            "--seed",
            "9",
        ],
        // 64x64 of one colour under 6 colours: 15 steps, thousands of falls and spawns.
        vec!["--board", &big, "--colors", "6", "--seed", "1"],
    ];
    for case in cases {
        let args = [&["--server", url.as_str(), "swap", "resolve"][..], &case].concat();
        let drawn = ok(&args);
        let asked = ok(&[&args[..], &["--step-boards"]].concat());
        assert!(!step_lines(&drawn).is_empty(), "no step in {drawn}");
        assert_eq!(
            drawn, asked,
            "swap resolve {case:?}: drawn steps differ from the server's"
        );
    }

    // The README tour's output, exactly (stdout is not a terminal: no colours).
    let tour = ok(&[
        "--server",
        &url,
        "swap",
        "resolve",
        "--board",
        "GRYY/YRRG/BGYY/BGGY",
        "--swap",
        "0,3:1,3",
        "--refill",
        "none",
    ]);
    assert_eq!(
        tour,
        "start\nG R Y Y\nY R R G\nB G Y Y\nB G G Y\n\
         \nstep 1: 1 group(s), 3 cleared, 1 fell, 0 spawned, score 30\n\
         G R Y .\nY R R .\nB G Y .\nB G G G\n\
         \nstep 2: 1 group(s), 3 cleared, 6 fell, 0 spawned, score 60\n\
         G . . .\nY R Y .\nB R R .\nB G Y .\n\
         \nfinal (G.../YRY./BRR./BGY.)\nG . . .\nY R Y .\nB R R .\nB G Y .\n\
         total score 90, stable false, dead false, valid swaps 0\n"
    );

    // --json passes the server's response through: boards in the steps only when asked.
    let json = |extra: &[&str]| -> serde_json::Value {
        let args = [
            &[
                "--server",
                url.as_str(),
                "swap",
                "resolve",
                "--json",
                "--board",
                "GRYY/YRRG/BGYY/BGGY",
                "--swap",
                "0,3:1,3",
                "--refill",
                "none",
            ][..],
            extra,
        ]
        .concat();
        serde_json::from_str(&ok(&args)).expect("JSON")
    };
    let without = json(&[]);
    let with = json(&["--step-boards"]);
    for step in without["steps"].as_array().expect("steps") {
        assert!(step["board"].is_null(), "{step}");
    }
    assert_eq!(
        with["steps"][1]["board"]["cells"].as_array().map(Vec::len),
        Some(16)
    );
}

#[test]
fn a_large_cascade_fits_without_per_step_boards() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let big = one_colour(64);
    let args = [
        "--server",
        &url,
        "swap",
        "resolve",
        "--board",
        &big,
        "--colors",
        "4",
        "--seed",
        "1",
        "--max-steps",
        "1000",
    ];
    // Without per-step boards the reply is under the server's 1 MiB limit.
    let stdout = ok(&args);
    assert_eq!(step_lines(&stdout).len(), 50, "{stdout}");
    assert!(stdout.starts_with("start\n"), "{stdout}");
    assert!(stdout.contains("\nfinal ("), "{stdout}");
    // With them it is not: the server refuses and says what to ask for instead.
    let (code, stdout, stderr) = matchgrid(&[&args[..], &["--step-boards"]].concat(), &[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // It is stopped at the step that passes the limit, not after the whole cascade.
    assert!(
        stderr.starts_with(
            "matchgrid: ResourceExhausted: the cascade's reply passed the 1048576-byte \
             message limit at step 30, before the cascade settled"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("without include_step_boards"), "{stderr}");
}

#[test]
fn the_client_limit_follows_max_message_bytes() {
    // A server that allows 4 MiB replies; the 64x64 cascade with per-step boards is ~1.2 MB.
    let server = TestServer::start(&["--max-message-bytes", "4194304"]);
    let url = server.url();
    let big = one_colour(64);
    let args = [
        "--server",
        &url,
        "swap",
        "resolve",
        "--board",
        &big,
        "--colors",
        "4",
        "--seed",
        "1",
        "--max-steps",
        "1000",
        "--step-boards",
    ];
    // The client's default is the server's default (1 MiB): it refuses the reply, and says
    // which limit it hit.
    let (code, stdout, stderr) = matchgrid(&args, &[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("matchgrid: OutOfRange: Error, decoded message length too large"),
        "{stderr}"
    );
    assert!(stderr.contains("the limit is: 1048576 bytes"), "{stderr}");
    assert!(
        stderr.contains("(this client's limit: raise --max-message-bytes)"),
        "{stderr}"
    );
    // Raised by the flag (after the subcommand or between), or by the server's own variable.
    let drawn = ok(&args[..args.len() - 1]);
    let raised = ok(&[&args[..], &["--max-message-bytes", "4194304"]].concat());
    assert_eq!(raised, drawn);
    let mut between = args.to_vec();
    between.splice(3..3, ["--max-message-bytes", "4194304"]);
    assert_eq!(ok(&between), drawn);
    let (code, stdout, stderr) = matchgrid(&args, &[("MATCHGRID_MAX_MESSAGE_BYTES", "4194304")]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, drawn);
    // Out of range: one line, exit 2.
    let (code, _, stderr) = matchgrid(
        &[
            "swap",
            "dead",
            "--board",
            "RGB",
            "--max-message-bytes",
            "10",
        ],
        &[],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--max-message-bytes"), "{stderr}");
}

/// `swap replay|hint|simulate`: the text forms and `--json`, against the server.
#[test]
fn swap_replay_hint_and_simulate() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let hint = ok(&[
        "swap",
        "--server",
        &url,
        "hint",
        "--board",
        "RGRR/BRBB/GBGG",
        "--top",
        "2",
    ]);
    assert_eq!(
        hint,
        "5 valid swaps\n  1. 0,1:1,1 score 40 cleared 4 steps 1\n  2. 1,1:2,1 score 40 cleared 4 steps 1\n",
        "{hint}"
    );
    let replay = ok(&[
        "swap",
        "--server",
        &url,
        "replay",
        "--board",
        "RGRR/BRBB/GBGG",
        "--swaps",
        "0,1:1,1 0,0:2,2",
        "--colors",
        "4",
    ]);
    assert!(replay.contains("  1. swap 0,1:1,1 score "), "{replay}");
    assert!(
        replay.contains("move 2 (index 1) refused (ILLEGAL_SWAP, SWAP_VERDICT_NOT_ADJACENT)"),
        "{replay}"
    );
    assert!(replay.contains("\ndigest sha256:"), "{replay}");
    let json = ok(&[
        "swap", "--server", &url, "--json", "simulate", "--games", "3", "--moves", "4", "--width",
        "6", "--height", "6", "--colors", "5",
    ]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["game_scores"].as_array().map(Vec::len),
        Some(3),
        "{json}"
    );
    let text = ok(&[
        "swap", "--server", &url, "simulate", "--games", "3", "--moves", "4", "--policy", "random",
        "--width", "6", "--height", "6",
    ]);
    assert!(text.starts_with("3 games, "), "{text}");
}

/// The text after `prefix` on the line of `stdout` that starts with it.
fn line_after<'a>(stdout: &'a str, prefix: &str) -> &'a str {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line starting {prefix:?} in:\n{stdout}"))
}

#[test]
fn level_boards_in_text_form() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let swap = |args: &[&str]| ok(&[&["swap", "--server", url.as_str()][..], args].concat());
    // Two striped pieces side by side: a combination.
    assert_eq!(
        swap(&[
            "validate",
            "--board",
            "RGBY/GR-G-B/BYRG/YBYR",
            "--swap",
            "1,1:1,2"
        ]),
        "verdict: SWAP_VERDICT_OK\ncombination: COMBINATION_STRIPED_STRIPED\n"
    );
    // A swap into a hole.
    let hole = swap(&["validate", "--board", "RG#/GRB/BYR", "--swap", "0,1:0,2"]);
    assert_eq!(
        line_after(&hole, "verdict: "),
        "SWAP_VERDICT_HOLE",
        "{hole}"
    );
    // The colour bomb swaps with either neighbour; nothing else lines up three.
    assert_eq!(
        swap(&["dead", "--board", "*RG/GBR/RGB-"]),
        "dead: false\nvalid swaps (2): 0,0:0,1(BOMB_NORMAL) 0,0:1,0(BOMB_NORMAL)\n"
    );
    // Generation keeps the mask's holes where they are.
    let mask = "#....#/....../..##../....../#....#";
    let generated = ok(&[
        "swap", "--server", &url, "--json", "generate", "--width", "6", "--height", "5",
        "--colors", "4", "--seed", "3", "--holes", mask,
    ]);
    let value: serde_json::Value = serde_json::from_str(&generated).unwrap();
    let holes: Vec<bool> = value["board"]["holes"]
        .as_array()
        .unwrap_or_else(|| panic!("no holes in {generated}"))
        .iter()
        .map(|hole| hole.as_bool().unwrap())
        .collect();
    let expected: Vec<bool> = mask.replace('/', "").chars().map(|c| c == '#').collect();
    assert_eq!(holes, expected, "{generated}");
    // Bomb + wrapped: every tile of the wrapped piece's colour (R, 6 of them) blasts as a
    // wrapped piece; the two holes stay where they are.
    let resolved = swap(&[
        "resolve",
        "--board",
        "RGBYR/GB#RB/Y*R+GY/B#GYR/RYBGB",
        "--swap",
        "2,1:2,2",
        "--colors",
        "5",
        "--seed",
        "42",
    ]);
    assert!(
        resolved.contains("fired WRAPPED at 0,0"),
        "the first R blasts first:\n{resolved}"
    );
    let final_line = line_after(&resolved, "final (");
    let final_board = final_line.split(')').next().unwrap();
    assert_eq!(final_board.len(), 29, "{resolved}");
    assert_eq!(
        final_board
            .match_indices('#')
            .map(|(i, _)| i)
            .collect::<Vec<_>>(),
        vec![8, 19],
        "holes at 1,2 and 3,1:\n{resolved}"
    );
}

/// `collapse solve --screened` sends SOLVE_METHOD_SCREENED with the width: its taps and score
/// are the transport's answer to the same request (and plain NMCS's differ on this budget).
#[test]
fn collapse_solve_screened_sends_the_method_and_width() {
    use matchgrid::proto::{self, CollapseSolveRequest};
    use matchgrid::transport::{SearchContext, collapse as rpc};
    let server = TestServer::start(&[]);
    let url = server.url();
    let start = "ABCABCAB/BCABCABC/CCAABBAC/ABBCCAAB/BACBACBA/CABBCAAB";
    // A width without --screened would be ignored by the server: the CLI refuses it.
    let (code, _, stderr) = matchgrid(
        &[
            "--server",
            &url,
            "collapse",
            "solve",
            "--board",
            start,
            "--screen-width",
            "4",
        ],
        &[],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--screened"), "{stderr}");
    let solve = |extra: &[&str]| {
        let args = [
            &[
                "--server",
                url.as_str(),
                "collapse",
                "solve",
                "--board",
                start,
                "--scoring",
                "samegame",
                "--max-nodes",
                "20000",
                "--seed",
                "5",
                "--level",
                "2",
                "--restarts",
            ][..],
            extra,
        ]
        .concat();
        score_and_taps(&ok(&args))
    };
    let screened = solve(&["--screened", "--screen-width", "2"]);
    let request = CollapseSolveRequest {
        board: Some(common::board(start)),
        scoring: proto::ScoringRule::Samegame as i32,
        min_group: 2,
        seed: 5,
        max_nodes: 20_000,
        max_millis: 0,
        level: 2,
        schedule: proto::SolveSchedule::Restarts as i32,
        method: proto::SolveMethod::Screened as i32,
        screen_width: 2,
        ..Default::default()
    };
    let context = SearchContext {
        deadline: None,
        cancel: Default::default(),
        progress: None,
    };
    let expected = rpc::solve(request.clone(), &context).unwrap();
    let taps: Vec<String> = expected
        .moves
        .iter()
        .map(|m| {
            let p = m.position.unwrap();
            format!("{},{}", p.row, p.col)
        })
        .collect();
    assert_eq!(screened, (expected.score, taps.join(" ")));
    let plain = rpc::solve(
        CollapseSolveRequest {
            method: 0,
            screen_width: 0,
            ..request
        },
        &context,
    )
    .unwrap();
    assert_ne!(
        (plain.score, plain.moves.len(), plain.nodes),
        (expected.score, expected.moves.len(), expected.nodes)
    );
}

/// `collapse solve --beam` sends SOLVE_METHOD_BEAM and `--beam --tabu` SOLVE_METHOD_TABU_BEAM,
/// with the width: each answer's taps and score are the transport's answer to the same request
/// (and the two methods' answers differ on this board); `--tabu` without `--beam` is refused.
#[test]
fn collapse_solve_beam_and_tabu_send_the_method_width_and_factor() {
    use matchgrid::proto::{self, CollapseSolveRequest};
    use matchgrid::transport::{SearchContext, collapse as rpc};
    let server = TestServer::start(&[]);
    let url = server.url();
    let start = "ABCABCAB/BCABCABC/CCAABBAC/ABBCCAAB/BACBACBA/CABBCAAB";
    let (code, _, stderr) = matchgrid(
        &[
            "--server", &url, "collapse", "solve", "--board", start, "--tabu",
        ],
        &[],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--beam"), "{stderr}");
    let context = SearchContext {
        deadline: None,
        cancel: Default::default(),
        progress: None,
    };
    let mut answers = Vec::new();
    for (flags, method, refine_factor) in [
        (&["--beam"][..], proto::SolveMethod::Beam, 0),
        (&["--beam", "--tabu"][..], proto::SolveMethod::TabuBeam, 0),
        (
            &["--beam", "--tabu", "--refine-factor", "4"][..],
            proto::SolveMethod::TabuBeam,
            4,
        ),
    ] {
        let args = [
            &[
                "--server",
                url.as_str(),
                "collapse",
                "solve",
                "--board",
                start,
                "--scoring",
                "samegame",
                "--max-nodes",
                "20000",
                "--seed",
                "5",
                "--restarts",
                "--beam-width",
                "32",
            ][..],
            flags,
        ]
        .concat();
        let out = ok(&args);
        let (score, taps) = score_and_taps(&out);
        let expected = rpc::solve(
            CollapseSolveRequest {
                board: Some(common::board(start)),
                scoring: proto::ScoringRule::Samegame as i32,
                seed: 5,
                max_nodes: 20_000,
                schedule: proto::SolveSchedule::Restarts as i32,
                method: method as i32,
                beam_width: 32,
                refine_factor,
                ..Default::default()
            },
            &context,
        )
        .unwrap();
        let expected_taps: Vec<String> = expected
            .moves
            .iter()
            .map(|m| {
                let p = m.position.unwrap();
                format!("{},{}", p.row, p.col)
            })
            .collect();
        assert_eq!(
            (score, taps.clone()),
            (expected.score, expected_taps.join(" "))
        );
        answers.push((expected.score, taps, expected.nodes));
    }
    assert_ne!(answers[0], answers[1]);
    assert_ne!(answers[1], answers[2]);
}

/// The score and the `taps:` line `collapse solve` prints.
fn score_and_taps(out: &str) -> (i64, String) {
    let score = out
        .lines()
        .find_map(|l| l.strip_prefix("score "))
        .and_then(|l| l.split_whitespace().next())
        .expect("score line")
        .parse::<i64>()
        .unwrap();
    let taps = out
        .lines()
        .find_map(|l| l.strip_prefix("taps: "))
        .expect("taps line")
        .to_owned();
    (score, taps)
}
