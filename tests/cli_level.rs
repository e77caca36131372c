//! `matchgrid level ...` against the real server, with the example levels of
//! `examples/levels/` (docs/levels.md): the start drawn with its layers, moves played one by
//! one agreeing with a replay at once, a decided game, a simulation, JSON, colours, and the
//! level file's errors.

mod common;

use common::TestServer;

/// An example level's path.
fn example(name: &str) -> String {
    format!("{}/examples/levels/{name}.json", env!("CARGO_MANIFEST_DIR"))
}

/// `matchgrid --server URL level ARGS...`, which must succeed; its stdout.
fn level(server: &TestServer, args: &[&str], env: &[(&str, &str)]) -> String {
    let url = server.url();
    let all = [&["--server", url.as_str(), "level"][..], args].concat();
    let (code, stdout, stderr) = common::run_cli(&all, env);
    assert_eq!(code, Some(0), "matchgrid {all:?}: {stderr}");
    stdout
}

/// The line of `stdout` starting with `prefix`.
fn line<'a>(stdout: &'a str, prefix: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in:\n{stdout}"))
}

/// The jelly level's start on seed 1 (a layout: generated per seed).
const JELLY_SEED_1: &str =
    "BBPRGBGG/PGPYBBYR/RP'RY'RG'PB'/PRP'G\"B\"B'GG/RPY'P\"Y\"P'GR/R'GG'BR'BP'R/PRGRPBPB/GRRGRPRY";

#[test]
fn generate_draws_the_start_with_its_layers_and_goals() {
    let server = TestServer::start(&[]);
    let out = level(
        &server,
        &["generate", &example("jelly_rows"), "--seed", "1"],
        &[],
    );
    assert!(out.starts_with("level \"Jelly rows\": "), "{out}");
    assert!(out.contains("8x8, 5 colours, 10 moves; start generated on the layout with seed 1\n"));
    assert_eq!(line(&out, "text: "), format!("text: {JELLY_SEED_1}"));
    // Not a terminal: plain text, each cell in the notation, padded to the widest.
    assert_eq!(line(&out, "R  P' "), "R  P' R  Y' R  G' P  B'");
    assert_eq!(
        line(&out, "goals: CLEAR_JELLY "),
        "goals: CLEAR_JELLY 20 layers left"
    );
    assert!(out.contains("moves left 10, score 0\n") && out.contains("status PLAYING\n"));
    // Colours when forced, off again with --no-color: jelly is a background.
    let coloured = level(
        &server,
        &["generate", &example("jelly_rows"), "--seed", "1"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert!(coloured.contains("\u{1b}[48;5;238m"), "{coloured}");
    let plain = level(
        &server,
        &[
            "--no-color",
            "generate",
            &example("jelly_rows"),
            "--seed",
            "1",
        ],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert_eq!(plain, out);
    // Blockers, ingredients and exits.
    let out = level(
        &server,
        &["generate", &example("cherry_drop"), "--seed", "3"],
        &[],
    );
    assert_eq!(line(&out, "G  Y  G  X1"), "G  Y  G  X1 X1 G  G  Y");
    assert_eq!(line(&out, "#  "), "#  Y  B  B_ G_ B  G  #");
    assert_eq!(line(&out, "goals: BRING_DOWN 0"), "goals: BRING_DOWN 0/2");
    // JSON: StartLevel's answer.
    let json = level(
        &server,
        &["--json", "generate", &example("red_harvest")],
        &[],
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["state"]["moves_left"], 12);
    assert_eq!(value["state"]["board"]["locks"][24], true);
}

#[test]
fn play_and_replay_agree_and_report_hits() {
    let server = TestServer::start(&[]);
    let file = example("cherry_drop");
    let moves = "4,4-4,5 6,4:7,4";
    let play = level(
        &server,
        &["play", &file, "--seed", "3", "--moves", moves],
        &[],
    );
    assert_eq!(
        line(&play, "move 1: "),
        "move 1: swap 4,4:4,5 (seed 0): 4 steps, +770 points"
    );
    assert_eq!(
        line(&play, "hits "),
        "hits (2): 3,3 blocker destroyed, 3,4 blocker destroyed"
    );
    assert_eq!(
        line(&play, "move 2: "),
        "move 2: swap 6,4:7,4 (seed 1): 3 steps, +330 points"
    );
    let last_text = play.lines().rfind(|l| l.starts_with("text: ")).unwrap();
    assert!(play.ends_with("moves left 23, score 1100\ngoals: BRING_DOWN 0/2\nstatus PLAYING\n"));
    let replay = level(
        &server,
        &["replay", &file, "--seed", "3", "--moves", moves],
        &[],
    );
    assert_eq!(
        line(&replay, "  1. "),
        "  1. swap 4,4:4,5 score 770 steps 4"
    );
    assert_eq!(line(&replay, "text: "), last_text);
    assert!(replay.ends_with(
        "status PLAYING, not decided yet\nmoves left 23, score 1100\ngoals: BRING_DOWN 0/2\n"
    ));
}

#[test]
fn a_won_game_stops_and_its_replay_says_when() {
    let server = TestServer::start(&[]);
    let dir = std::env::temp_dir().join(format!("matchgrid-cli-level-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("quick.json");
    let rows: Vec<String> = JELLY_SEED_1.split('/').map(|r| format!("{r:?}")).collect();
    std::fs::write(
        &path,
        format!(
            r#"{{"name": "Quick", "colors": 5, "move_limit": 5, "board": [{}],
                "goals": [{{"kind": "SCORE", "target": 10}}]}}"#,
            rows.join(", ")
        ),
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let moves = "2,2-3,2 0,0-0,1";
    let play = level(&server, &["play", file, "--moves", moves], &[]);
    assert!(play.contains("fixed start board\n"), "{play}");
    assert!(
        play.contains("goals: SCORE 300/10 (met)\nstatus WON\n"),
        "{play}"
    );
    assert!(!play.contains("move 2:"), "{play}");
    assert!(play.ends_with("game over: WON\n"), "{play}");
    let replay = level(&server, &["replay", file, "--moves", moves], &[]);
    assert!(
        line(&replay, "move 2 (index 1) refused (LEVEL_OVER)")
            .ends_with("nothing after it applied"),
        "{replay}"
    );
    assert_eq!(
        line(&replay, "status "),
        "status WON, decided at move 1 (index 0)"
    );
    assert_eq!(line(&replay, "moves left "), "moves left 4, score 300");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn simulate_reports_the_pass_rate_as_json_says() {
    let server = TestServer::start(&["--request-timeout", "60s"]);
    let args = [
        "simulate",
        &example("red_harvest"),
        "--games",
        "10",
        "--seed",
        "1",
    ];
    let out = level(&server, &args, &[]);
    let json = level(&server, &[&["--json"][..], &args].concat(), &[]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sim = &value["level"];
    assert_eq!(sim["games"], 10);
    let wins = sim["wins"].as_u64().unwrap();
    let head = line(&out, "10 games (greedy), ");
    assert!(
        head.starts_with(&format!(
            "10 games (greedy), {wins} won: pass rate {}.0% (95% interval ",
            wins * 10
        )),
        "{head}"
    );
    let lost_dead = sim["lost_dead"].as_u64().unwrap();
    let lost_out = sim["lost_out_of_moves"].as_u64().unwrap();
    assert_eq!(
        line(&out, "lost out of moves "),
        format!("lost out of moves {lost_out}, lost dead {lost_dead}")
    );
    if wins < 10 {
        assert!(line(&out, "among losses, goals done: COLLECT R 20 ").ends_with('%'));
    }
}

#[test]
fn level_file_faults_name_the_file_field_row_and_column() {
    let dir = std::env::temp_dir().join(format!("matchgrid-cli-badlevel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, message) in [
        (
            "char",
            r#"{"colors": 5, "move_limit": 3, "board": ["...", "..Z"], "goals": [{"kind": "SCORE", "target": 9}]}"#,
            "board: row 1, col 2: unknown character 'Z'",
        ),
        (
            "lock",
            r#"{"colors": 5, "move_limit": 3, "board": ["...", ".@~."], "goals": [{"kind": "SCORE", "target": 9}]}"#,
            "board: row 1, col 1: locks at cell 4",
        ),
        (
            "goal",
            r#"{"colors": 4, "move_limit": 3, "board": ["..."], "goals": [{"kind": "COLLECT", "color": "P", "target": 9}]}"#,
            "goals[0]: color: must be one of the level's colours RGBY",
        ),
        (
            "json",
            "{\"colors\": 4,\n \"move_limit\": 3,, }",
            "key must be a string at line 2 column 18",
        ),
    ] {
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap().to_owned();
        // No server is needed to read the file: the fault comes first.
        let (code, stdout, stderr) = common::run_cli(
            &["--server", "http://127.0.0.1:1", "level", "generate", &path],
            &[],
        );
        assert_eq!((code, stdout.as_str()), (Some(1), ""), "{name}: {stderr}");
        let expected = format!("matchgrid: {path}: {message}");
        assert!(stderr.starts_with(&expected), "{name}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn play_reads_swaps_from_stdin_and_goes_on_after_a_refused_one() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let server = TestServer::start(&[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_matchgrid"))
        .args(["--server", &server.url(), "level", "play"])
        .args([&example("cherry_drop"), "--seed", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A refused swap, a typo, then the first move of the test above, then the end.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"3,3-3,4\nnonsense\n4,4-4,5\nq\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("SWAP_VERDICT_BLOCKED"), "{stderr}");
    assert_eq!(
        stderr
            .matches("move 1 (ROW,COL-ROW,COL; q quits)> ")
            .count(),
        3,
        "{stderr}"
    );
    assert!(
        stderr.contains("expected ROW,COL-ROW,COL, got \"nonsense\""),
        "{stderr}"
    );
    assert_eq!(
        line(&stdout, "move 1: "),
        "move 1: swap 4,4:4,5 (seed 0): 4 steps, +770 points"
    );
    assert!(stdout.ends_with("moves left 24, score 770\ngoals: BRING_DOWN 0/2\nstatus PLAYING\n"));
}

#[test]
fn every_example_level_reads() {
    let dir = format!("{}/examples/levels", env!("CARGO_MANIFEST_DIR"));
    let mut kinds = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let file = matchgrid::cli::level_file::read_level_file(&path).unwrap();
        let board = file.level.board.as_ref().unwrap();
        assert!(
            (7..=9).contains(&board.width) && (7..=9).contains(&board.height),
            "{path:?}"
        );
        assert!((4..=6).contains(&file.level.colors), "{path:?}");
        kinds.extend(file.level.goals.iter().map(|g| g.kind));
    }
    kinds.sort_unstable();
    assert_eq!(kinds, vec![1, 2, 3, 4, 5], "one level per goal kind");
}
